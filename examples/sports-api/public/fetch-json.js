// One Services call from a page of the example: JSON in, the reply's status and its body back,
// parsed when it is JSON (Services' error bodies are), else as text.

/** Sends `body` (if any) as JSON with the session cookie; resolves `{ status, data }`. */
export async function fetchJson(method, path, { body, headers = {} } = {}) {
  const res = await fetch(path, {
    method,
    headers: { Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    cache: "no-store",
  });
  const text = await res.text();
  let data = null;
  try {
    data = text === "" ? null : JSON.parse(text);
  } catch {
    data = text;
  }
  return { status: res.status, data };
}
