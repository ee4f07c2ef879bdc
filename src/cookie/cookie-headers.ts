/** Every distinct value of one cookie name, in order, in one pass; all are read, so planted copies never hide the client's own. */
export function readCookies(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  // A scan while few values, then a set: a header stuffed with copies still costs one pass.
  let seen: Set<string> | undefined;
  if (header === undefined || header.length === 0) return values;
  let start = 0;
  // The next "=" is found once and reused, so `a;a;a;…` is scanned once, not once per pair.
  let nextEq = -1;
  while (start < header.length) {
    let end = header.indexOf(";", start);
    if (end === -1) end = header.length;
    if (nextEq !== header.length && nextEq < start) {
      nextEq = header.indexOf("=", start);
      if (nextEq === -1) nextEq = header.length;
    }
    if (nextEq < end && header.slice(start, nextEq).trim() === name) {
      let value = header.slice(nextEq + 1, end).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (value !== "" && !(seen === undefined ? values.includes(value) : seen.has(value))) {
        values.push(value);
        seen?.add(value);
        if (seen === undefined && values.length > DISTINCT_BY_SCAN) seen = new Set(values);
      }
    }
    start = end + 1;
  }
  return values;
}

/** Past this many values, distinct ones are told apart by a set rather than a scan. */
const DISTINCT_BY_SCAN = 8;

/** The `SameSite` values a session cookie may carry, as written on the wire. */
export type SameSiteValue = "Lax" | "Strict" | "None";

/** The attributes of the session cookie. */
export interface CookieAttributes {
  /** Sent only over HTTPS. */
  readonly secure: boolean;
  /** The `Domain` attribute; host-only when absent. */
  readonly domain?: string | undefined;
  /** Lifetime in seconds (`Max-Age`, and `expires` for old clients). */
  readonly maxAge: number;
  /** The `SameSite` attribute; none when absent, as Drupal 7 sends it. */
  readonly sameSite?: SameSiteValue | undefined;
}

/** A session `Set-Cookie` exactly as PHP's `session_start()` wrote it for Drupal 7, so Drupal-era cookie jars see the same. */
export function setCookieHeader(name: string, value: string, attributes: CookieAttributes, now: number): string {
  return `${name}=${value}; expires=${httpDate(now + attributes.maxAge)}; Max-Age=${attributes.maxAge}${tail(attributes)}`;
}

/** The last date formatted: the logins of one second share one `expires`. */
let lastDate = { seconds: Number.NaN, text: "" };

/** A time in Unix seconds as RFC 1123 writes it (`Sat, 19 Dec 2026 01:29:10 GMT`). */
function httpDate(seconds: number): string {
  if (seconds !== lastDate.seconds) lastDate = { seconds, text: new Date(seconds * 1000).toUTCString() };
  return lastDate.text;
}

/** A deletion as `session_destroy()` sends it, same `domain` and `secure`: browsers only remove a cookie whose domain matches. */
function deletionHeader(name: string, attributes: CookieAttributes): string {
  return `${name}=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0${tail(attributes)}`;
}

function tail(attributes: CookieAttributes): string {
  const domain = attributes.domain === undefined ? "" : `; domain=${attributes.domain}`;
  const sameSite = attributes.sameSite === undefined ? "" : `; SameSite=${attributes.sameSite}`;
  return `; path=/${domain}${attributes.secure ? "; secure" : ""}; HttpOnly${sameSite}`;
}

/** The session cookie of one host: name, attributes, and the other places a copy may sit, which deletions must also reach. */
export interface CookiePlacement {
  readonly name: string;
  readonly attributes: CookieAttributes;
  readonly variants: readonly CookieAttributes[];
  /** Over HTTPS, the derived name's plain-HTTP twin (`SESS…` beside `SSESS…`), deleted with it as Drupal does. */
  readonly insecureName?: string | undefined;
}

/** Deletions for the other places a copy of the session cookie may sit (see {@link CookiePlacement.variants}). */
export function variantDeletionHeaders(cookie: CookiePlacement): string[] {
  return cookie.variants.map((attributes) => deletionHeader(cookie.name, attributes));
}

/** Deletions as `session_destroy()` sends them, in every place when several values came (docs/wire-format.md#stale-and-duplicate-cookies). */
export function deletionHeaders(cookie: CookiePlacement, sent: number, cookieHeader?: string): string[] {
  const own = deletionHeader(cookie.name, cookie.attributes);
  const deletions = sent > 1 ? [own, ...variantDeletionHeaders(cookie)] : [own];
  const insecure = cookie.insecureName;
  if (insecure !== undefined && readCookies(cookieHeader, insecure).length > 0) {
    // A browser refuses SameSite=None without Secure; SameSite plays no part in matching.
    const sameSite = cookie.attributes.sameSite === "None" ? undefined : cookie.attributes.sameSite;
    deletions.push(deletionHeader(insecure, { ...cookie.attributes, secure: false, sameSite }));
  }
  return deletions;
}
