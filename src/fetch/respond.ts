import { mergeVary } from "../cors/cors.js";
import type { WireResponse } from "../wire/reply.js";

/**
 * A {@link WireResponse} as a Web-standard `Response`: its status, reason phrase
 * (`statusText`; a runtime that writes its own reason phrases drops it), headers, one
 * `Set-Cookie` each, and the body's bytes exactly. The connection is the server's; after a
 * 413 the handler itself reads and drops the rest of the upload from the request's stream
 * (bounded as the Express router's lingering), so that a server that would stall on an
 * unread body (@hono/node-server) delivers the reply rather than a reset.
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
  return withHeaders(response, setCookie, undefined);
}

/**
 * A response the app made, with the `Set-Cookie` values and headers it lacks added (`Vary`
 * merged with its own), as a copy (its body, status and a copy of its headers, as Hono's own `c.header()`
 * does once a response is made): a response changed in place can lose the change when
 * something later rebuilds it from how it was made (@hono/node-server's `Response` does on a
 * clone, a read of its body, or Hono's answer to a HEAD: `etag()`, `compress()`). One that
 * already carries them all (a framework made it with them) is returned as it is, uncopied; one
 * whose body was already read is changed in place.
 */
export function withHeaders(response: Response, setCookie: readonly string[], headers: Readonly<Record<string, string>> | undefined): Response {
  if (setCookie.length === 0 && isEmpty(headers)) return response;
  const missing = lacking(response.headers, setCookie, headers);
  if (missing === undefined) return response;
  let target = response;
  try {
    // Headers of its own: a server's Response class may keep the init's Headers object when
    // given a Response (@hono/node-server's does), and a fetch() response's are immutable.
    target = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
  } catch {
    // A disturbed body cannot be carried over; its headers may still be changed.
  }
  for (const name in missing.headers) target.headers.set(name, missing.headers[name]!);
  for (const cookie of missing.setCookie) target.headers.append("Set-Cookie", cookie);
  return target;
}

/** What `have` lacks of the headers and cookies (`Vary` as the merged value); `undefined` for nothing. */
function lacking(
  have: Headers,
  setCookie: readonly string[],
  headers: Readonly<Record<string, string>> | undefined,
): { headers: Record<string, string>; setCookie: readonly string[] } | undefined {
  let missingHeaders: Record<string, string> | undefined;
  for (const name in headers) {
    const current = have.get(name) ?? undefined;
    const wanted = name === "Vary" ? mergeVary(current, headers[name]!) : headers[name]!;
    if (current !== wanted) (missingHeaders ??= {})[name] = wanted;
  }
  let missingCookies: readonly string[] = [];
  if (setCookie.length > 0) {
    const present = have.getSetCookie();
    missingCookies = setCookie.filter((cookie) => !present.includes(cookie));
  }
  return missingHeaders === undefined && missingCookies.length === 0 ? undefined : { headers: missingHeaders ?? {}, setCookie: missingCookies };
}

function isEmpty(headers: Readonly<Record<string, string>> | undefined): boolean {
  for (const _name in headers) return false;
  return true;
}
