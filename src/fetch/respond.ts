import { mergeVary, NO_HEADERS, type HeaderRecord } from "../http-output/headers.js";
import type { WireResponse } from "../wire/reply.js";

/** A {@link WireResponse} as a Web `Response`: status, `statusText`, headers (`Set-Cookie` each its own), exact bytes. */
export function toResponse(wire: WireResponse): Response {
  const headers = new Headers();
  for (const name in wire.headers) {
    const value = wire.headers[name]!;
    if (typeof value === "string") headers.set(name, value);
    else for (const one of value) headers.append(name, one);
  }
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
  if (headers === NO_HEADERS) return response;
  const missing = lacking(response.headers, headers);
  if (missing === undefined) return response;
  let target = response;
  try {
    target = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
  } catch {
    // A disturbed body cannot be carried over; its headers may still be changed.
  }
  for (const [name, value] of missing) {
    if (name === "Set-Cookie") target.headers.append(name, value);
    else target.headers.set(name, value);
  }
  return target;
}

/** What `have` lacks of `headers`, as name and value pairs (`Vary` as the merged value); `undefined` for nothing. */
function lacking(have: Headers, headers: HeaderRecord): [string, string][] | undefined {
  const missing: [string, string][] = [];
  for (const name in headers) {
    const value = headers[name]!;
    if (typeof value !== "string") {
      const present = have.getSetCookie();
      for (const one of value) if (!present.includes(one)) missing.push([name, one]);
      continue;
    }
    const current = have.get(name) ?? undefined;
    const wanted = name === "Vary" ? mergeVary(current, value) : value;
    if (current !== wanted) missing.push([name, wanted]);
  }
  return missing.length === 0 ? undefined : missing;
}

/** Headers as a record: `Set-Cookie` as its list, the rest as they are. */
export function recordOf(headers: Headers): HeaderRecord {
  const record: Record<string, string | readonly string[]> = {};
  // Named as the package writes them (`Cache-Control`), not as `Headers` lists them.
  for (const [name, value] of headers) if (name !== "set-cookie") record[name.replace(/(^|-)[a-z]/g, (start) => start.toUpperCase())] = value;
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) record["Set-Cookie"] = cookies;
  return record;
}
