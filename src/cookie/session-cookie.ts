import { setCookieHeader, type CookieAttributes, type CookiePlacement } from "./cookie-headers.js";
import { parseCookieOptions, type CookieOptions, type CookieSettings } from "./options.js";
import { drupalCookieDomain } from "./cookie-domain.js";
import { drupalSessionName } from "./session-name.js";

/** The session cookie for a request to `host` by Drupal's rules and the options, with the derived name's plain-HTTP twin over HTTPS. */
export function placeSessionCookie(options: CookieSettings, host: string, secure: boolean): CookiePlacement {
  const { sessionName, cookieDomain, baseUrl, absoluteTimeout, sameSite } = options;
  const https = secure || options.cookieSecure === "always";
  const domain = drupalCookieDomain(host, cookieDomain);
  const attributes: CookieAttributes = { secure: https, domain, maxAge: absoluteTimeout, sameSite };
  // Cookie jars compare domains without case or leading dot: deleting `.API.example.com` would delete `api.example.com`.
  const places = new Map<string | undefined, string | undefined>([[undefined, undefined]]);
  const derived = drupalCookieDomain(host);
  if (derived !== undefined) places.set(domainKey(derived), derived);
  places.delete(domain === undefined ? undefined : domainKey(domain));
  const name = sessionName ?? drupalSessionName({ cookieDomain, baseUrl, host, secure: https });
  return {
    name,
    attributes,
    variants: [...places.values()].map((other) => ({ ...attributes, domain: other })),
    // Drupal's $is_https (not cookie_secure), derived SSESS… names only: substr(session_name(), 1).
    insecureName: secure && sessionName === undefined && name.startsWith("SSESS") ? name.slice(1) : undefined,
  };
}

/** A `Domain` attribute as cookie jars match it (RFC 6265 §5.2.3): no leading dot, lower case. */
function domainKey(domain: string): string {
  return domain.replace(/^\./, "").toLowerCase();
}

/** The session cookie a client of one public URL gets, as {@link sessionCookieFor} describes it. */
export interface SessionCookieDescription {
  /** The cookie's name: `SESS…`, or `SSESS…` when it is `Secure`, unless `sessionName` sets it. */
  readonly name: string;
  /** The `Domain` attribute; `undefined` for a host-only cookie. */
  readonly domain: string | undefined;
  readonly path: "/";
  readonly secure: boolean;
  readonly httpOnly: true;
  /** The `SameSite` attribute as sent; `undefined` for none (Drupal 7's default). */
  readonly sameSite: "Lax" | "Strict" | "None" | undefined;
  /** `Max-Age` in seconds: `absoluteTimeout`. */
  readonly maxAge: number;
  /** The `Set-Cookie` header of a login now, with `<sessid>` where the session id goes. */
  readonly setCookie: string;
  /** The other `Domain` values (`undefined`: host-only) where a copy is also deleted (a login over a cookie, a logout over several). */
  readonly alsoDeletedAt: ReadonlyArray<string | undefined>;
}

/**
 * The session cookie a client of `publicUrl` gets (the URL clients call; `options` as given to the
 * router), for a migration team to compare with the `Set-Cookie` Drupal sends today. Framework-free.
 * @example
 * ```ts
 * const cookie = sessionCookieFor("https://api.example.com/", { absoluteTimeout: 2_000_000 });
 * console.log(cookie.setCookie);
 * // SSESS6f1c…=<sessid>; expires=…; Max-Age=2000000; path=/; domain=.api.example.com; secure; HttpOnly
 * ```
 * @throws TypeError for a URL that is not absolute http(s), or an invalid option.
 */
export function sessionCookieFor(publicUrl: string | URL, options: Partial<CookieOptions> = {}): SessionCookieDescription {
  const url = new URL(publicUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`sessionCookieFor: ${url.protocol} is not http: or https:`);
  const cookie = placeSessionCookie(parseCookieOptions(options, "sessionCookieFor"), url.host, url.protocol === "https:");
  const { attributes } = cookie;
  return {
    name: cookie.name,
    domain: attributes.domain,
    path: "/",
    secure: attributes.secure,
    httpOnly: true,
    sameSite: attributes.sameSite,
    maxAge: attributes.maxAge,
    setCookie: setCookieHeader(cookie.name, "<sessid>", attributes, Math.floor(Date.now() / 1000)),
    alsoDeletedAt: cookie.variants.map((variant) => variant.domain),
  };
}
