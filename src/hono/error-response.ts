import type { Context } from "hono";
import { mergeVary } from "../http-output/headers.js";

// What described the body or the outcome the error replaces (a download's name, a redirect's target).
const BODY_HEADERS = [
  "accept-ranges",
  "content-digest",
  "content-disposition",
  "content-encoding",
  "content-language",
  "content-length",
  "content-location",
  "content-md5",
  "content-range",
  "digest",
  "etag",
  "last-modified",
  "location",
  "repr-digest",
  "transfer-encoding",
];

/**
 * An error's response with what Hono holds for this request's reply beneath it (a guard's cookies
 * and CORS headers, the app's `c.header()`s), as Hono's own error handler has them: the reply's
 * headers win, cookies add up, `Vary` merges, and what described another body goes. Written into
 * what Hono holds with `c.header()` (which Hono copies onto the handler's response), and returned so.
 */
export function errorResponse(c: Context, reply: Response): Response {
  for (const name of BODY_HEADERS) if (c.res.headers.has(name)) c.header(name, undefined);
  for (const [name, value] of reply.headers) {
    const held = name === "vary" ? c.res.headers.get(name) : null;
    if (name !== "set-cookie") c.header(name, held === null ? value : mergeVary(value, held));
  }
  const cookies = c.res.headers.getSetCookie();
  for (const cookie of reply.headers.getSetCookie()) if (!cookies.includes(cookie)) c.header("Set-Cookie", cookie, { append: true });
  return new Response(reply.body, { status: reply.status, statusText: reply.statusText, headers: c.res.headers });
}
