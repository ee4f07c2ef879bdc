/**
 * Finds one cookie's value in a `Cookie` header without parsing the rest. With duplicate
 * names the first wins; a malformed pair is skipped, never an error.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined || header.length === 0) return undefined;
  let start = 0;
  // The next "=" is looked up again only once the pairs have passed it: each character is
  // looked at a bounded number of times however many ";" or "=" a client sends.
  let eq = -1;
  while (start < header.length) {
    let end = header.indexOf(";", start);
    if (end === -1) end = header.length;
    if (eq < start) {
      eq = header.indexOf("=", start);
      if (eq === -1) return undefined;
    }
    if (eq < end && header.slice(start, eq).trim() === name) {
      let value = header.slice(eq + 1, end).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value;
    }
    start = end + 1;
  }
  return undefined;
}

/** The attributes of the session cookie. */
export interface CookieAttributes {
  /** Sent only over HTTPS: on when the request came over HTTPS. */
  readonly secure: boolean;
  /** The `Domain` attribute; host-only when absent. */
  readonly domain?: string | undefined;
  /** Lifetime in seconds (`Max-Age`, and `Expires` for old clients). */
  readonly maxAge: number;
}

/** A `Set-Cookie` value for the session cookie: `Path=/`, `HttpOnly`, `SameSite=Lax`, `Secure` on HTTPS. */
export function sessionCookie(name: string, value: string, attributes: CookieAttributes, now: number): string {
  const expires = new Date((now + attributes.maxAge) * 1000).toUTCString();
  return `${name}=${value}; Path=/; Expires=${expires}; Max-Age=${attributes.maxAge}${tail(attributes)}`;
}

/** A `Set-Cookie` value that deletes the session cookie, as Drupal's `session_destroy()` does. */
export function expiredSessionCookie(name: string, attributes: CookieAttributes): string {
  return `${name}=deleted; Path=/; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0${tail(attributes)}`;
}

function tail(attributes: CookieAttributes): string {
  const domain = attributes.domain === undefined ? "" : `; Domain=${attributes.domain}`;
  return `${domain}; HttpOnly; SameSite=Lax${attributes.secure ? "; Secure" : ""}`;
}
