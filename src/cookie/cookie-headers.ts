/**
 * Every distinct value of one cookie name in a `Cookie` header, in the order sent, without
 * parsing the rest; a malformed pair is skipped, never an error. A client can hold several
 * cookies of one name (a host-only one, one for `.example.com`, one a sibling subdomain
 * planted for a narrower path), and the header does not say which is which: all are read, so
 * that no count of copies an attacker can fill hides one. The header's size bounds the work
 * (one pass, distinct values kept in a set); how many are looked up is the caller's to bound.
 */
export function readCookies(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  // Distinct values: a scan of the few a header carries, and a set once it carries many, so a
  // header stuffed with copies still costs one pass.
  let seen: Set<string> | undefined;
  if (header === undefined || header.length === 0) return values;
  let start = 0;
  // The next "=" at or after `start`: found once and reused by the pairs before it, so a header
  // of many pairs without one (a;a;a;…) is scanned once, not once per pair.
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

/**
 * A `Set-Cookie` value for the session cookie, written as PHP's `session_start()` writes
 * it for Drupal 7: `name=value; expires=…; Max-Age=…; path=/; domain=…; secure; HttpOnly`,
 * lower-case attribute names where PHP has them, the date in RFC 1123 form. Cookie-jar
 * code written against Drupal (and its tests) sees the same header.
 */
export function setCookieHeader(name: string, value: string, attributes: CookieAttributes, now: number): string {
  return `${name}=${value}; expires=${httpDate(now + attributes.maxAge)}; Max-Age=${attributes.maxAge}${tail(attributes)}`;
}

/** The last date written, and its text: the logins of one second share one `expires`, formatted once. */
let lastDate = { seconds: Number.NaN, text: "" };

/** A time in Unix seconds as RFC 1123 writes it (`Sat, 19 Dec 2026 01:29:10 GMT`). */
function httpDate(seconds: number): string {
  if (seconds !== lastDate.seconds) lastDate = { seconds, text: new Date(seconds * 1000).toUTCString() };
  return lastDate.text;
}

/**
 * A `Set-Cookie` value that deletes the session cookie, as PHP's `setcookie()` writes the
 * deletion Drupal's `session_destroy()` sends. It carries the same `domain` (and `secure`)
 * as the cookie it deletes: a browser only removes a cookie whose domain and path match.
 */
function deletionHeader(name: string, attributes: CookieAttributes): string {
  return `${name}=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0${tail(attributes)}`;
}

function tail(attributes: CookieAttributes): string {
  const domain = attributes.domain === undefined ? "" : `; domain=${attributes.domain}`;
  const sameSite = attributes.sameSite === undefined ? "" : `; SameSite=${attributes.sameSite}`;
  return `; path=/${domain}${attributes.secure ? "; secure" : ""}; HttpOnly${sameSite}`;
}

/**
 * The session cookie of one host: its name, its attributes, and the other places a copy of
 * the same name may sit in a client's cookie jar (host-only, or the domain Drupal derives
 * from the host when `cookieDomain` names another), which deletions must also reach.
 */
export interface CookiePlacement {
  readonly name: string;
  readonly attributes: CookieAttributes;
  readonly variants: readonly CookieAttributes[];
  /**
   * Over HTTPS, the name Drupal gives the cookie over plain HTTP (`SESS…` beside `SSESS…`),
   * when the name is derived: a copy of it is deleted wherever the session cookie is, as
   * Drupal's `_drupal_session_destroy()` deletes it.
   */
  readonly insecureName?: string | undefined;
}

/** Deletions for the other places a copy of the session cookie may sit (see {@link CookiePlacement.variants}). */
export function variantDeletionHeaders(cookie: CookiePlacement): string[] {
  return cookie.variants.map((attributes) => deletionHeader(cookie.name, attributes));
}

/**
 * Deletions for the session cookie where this server sets it, as Drupal's `session_destroy()`
 * sends it (same path, domain and secure flag). When the request carried more than one value
 * (`sent`), for its other places too, so that a Drupal-era copy goes as well; a request with
 * one value shows no second copy, and gets Drupal's one deletion (a login over it still
 * deletes the other places). Over HTTPS, when the request also carried the plain-HTTP name
 * (`cookieHeader`, see {@link CookiePlacement.insecureName}), that one goes last, without
 * `secure`, as Drupal deletes it (it ends no session: Drupal deletes only the cookie).
 */
export function deletionHeaders(cookie: CookiePlacement, sent: number, cookieHeader?: string): string[] {
  const own = deletionHeader(cookie.name, cookie.attributes);
  const deletions = sent > 1 ? [own, ...variantDeletionHeaders(cookie)] : [own];
  const insecure = cookie.insecureName;
  if (insecure !== undefined && readCookies(cookieHeader, insecure).length > 0) {
    // A browser refuses SameSite=None without Secure, and would keep the cookie; SameSite plays no part in matching it.
    const sameSite = cookie.attributes.sameSite === "None" ? undefined : cookie.attributes.sameSite;
    deletions.push(deletionHeader(insecure, { ...cookie.attributes, secure: false, sameSite }));
  }
  return deletions;
}
