// The page a mailed one-time login link opens (`/reset.html?uid=…&timestamp=…&hash=…`): the calls a
// Drupal 7 app makes with it. user/user_pass_reset logs in with the link and gives a pass-reset
// token; the new session's CSRF token comes from services/session/token; then PUT user/{uid}
// with the token in the query sets the password without the old one.

import { fetchJson } from "./fetch-json.js";
import { say } from "./message.js";

const API = "/services/json";
const $ = (selector) => document.querySelector(selector);
const link = new URLSearchParams(location.search);

/** The message of a Services error: the form's errors, or the body's one string, without markup. */
function problem(data, fallback) {
  const plain = (text) => String(text).replace(/<[^<>]*>/g, "");
  if (data && typeof data === "object" && data.form_errors) return Object.values(data.form_errors).filter(Boolean).map(plain).join(" ");
  return Array.isArray(data) && typeof data[0] === "string" ? plain(data[0]) : fallback;
}

$("#reset-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const uid = link.get("uid") ?? "";
  const used = await fetchJson("POST", `${API}/user/user_pass_reset.json`, {
    body: { uid, timestamp: link.get("timestamp") ?? "", hashed_pass: link.get("hash") ?? "" },
  });
  if (used.status !== 200) return say("error", problem(used.data, "This link cannot be used."));
  const token = (await (await fetch("/services/session/token", { credentials: "same-origin", cache: "no-store" })).text()).trim();
  const saved = await fetchJson("PUT", `${API}/user/${encodeURIComponent(uid)}.json?pass-reset-token=${encodeURIComponent(used.data.pass_reset_token)}`, {
    body: { pass: { pass1: form.get("pass1"), pass2: form.get("pass2") } },
    headers: { "X-CSRF-Token": token },
  });
  if (saved.status !== 200) return say("error", problem(saved.data, "The password was not saved."));
  say("ok", "Your new password is saved, and you are logged in.");
  $("#reset-form").hidden = true;
});
