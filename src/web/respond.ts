import { NO_HEADERS, mergeVary, writeHeaders, type HeaderRecord } from "../http-output/headers.js";
import type { WireResponse } from "../wire/reply.js";

/** A {@link WireResponse} as a Web `Response`: status, `statusText`, headers (`Set-Cookie` each its own), exact bytes. */
export function toResponse(wire: WireResponse): Response {
  const headers = new Headers();
  writeHeaders(wire.headers, headers);
  // An empty body rather than none, so servers say `Content-Length: 0` as Drupal does; a status that has no body takes none.
  const body = wire.body ?? (NO_BODY.has(wire.status) ? null : "");
  return new Response(body, { status: wire.status, statusText: wire.reason ?? "", headers });
}
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * The app's response with the headers it lacks (`Vary` merged, `Set-Cookie` appended), on a copy:
 * @hono/node-server may rebuild a `Response` and lose in-place changes, and `fetch()` responses are immutable.
 */
export function withHeaders(response: Response, headers: HeaderRecord): Response {
  const missing = lacking(response.headers, headers);
  if (missing === undefined) return response;
  let target = response;
  try {
    target = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
  } catch {
    // A disturbed body cannot be carried over; its headers may still be changed.
  }
  writeHeaders(missing, target.headers);
  return target;
}

/** What `have` lacks of `headers` (`Vary`'s names, cookies not there yet, other values that differ); `undefined` for nothing. */
export function lacking(have: Headers, headers: HeaderRecord): HeaderRecord | undefined {
  if (headers === NO_HEADERS) return undefined;
  let missing: Record<string, string | readonly string[]> | undefined;
  for (const name in headers) {
    const value = headers[name]!;
    if (typeof value !== "string") {
      const present = have.getSetCookie();
      const absent = value.filter((one) => !present.includes(one));
      if (absent.length > 0) (missing ??= {})[name] = absent;
      continue;
    }
    const current = have.get(name) ?? undefined;
    if (current !== (name === "Vary" ? mergeVary(current, value) : value)) (missing ??= {})[name] = value;
  }
  return missing;
}
