import type { WireResponse } from "../wire/reply.js";

/**
 * A {@link WireResponse} as a Web-standard `Response`: its status, reason phrase
 * (`statusText`; a runtime that writes its own reason phrases drops it), headers, one
 * `Set-Cookie` each, and the body's bytes exactly. The connection is the server's: after a
 * 413 it reads and drops the rest of the upload, or closes, as it does for any unread body.
 */
export function toResponse(wire: WireResponse): Response {
  const headers = new Headers();
  for (const name in wire.headers) {
    const value = wire.headers[name]!;
    if (typeof value === "string") headers.set(name, value);
    else for (const one of value) headers.append(name, one);
  }
  return new Response(wire.body, { status: wire.status, statusText: wire.reason ?? "", headers });
}

/** A response the app made, with the cookies a guard set added (the deletion of a stale session cookie, or the live one where it belongs). */
export function withCookies(response: Response, setCookie: readonly string[]): Response {
  if (setCookie.length === 0) return response;
  try {
    for (const cookie of setCookie) response.headers.append("Set-Cookie", cookie);
    return response;
  } catch {
    // An immutable Response (Response.redirect(), one from fetch()): copy it to add them.
    const copy = new Response(response.body, response);
    for (const cookie of setCookie) copy.headers.append("Set-Cookie", cookie);
    return copy;
  }
}
