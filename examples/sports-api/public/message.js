// The message line of the example's pages: a status, or an error read out as an alert.

/** Shows `text` in the page's `#message`, as `kind` ("ok", "error", …). */
export function say(kind, text) {
  const box = document.querySelector("#message");
  box.dataset.kind = kind;
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  box.textContent = text;
  box.hidden = false;
}
