/**
 * Login CSRF: another site's page posting the login form logs the visitor into the attacker's
 * account. Browsers say where a request comes from (`Origin`, `Sec-Fetch-Site`); native clients send neither.
 *
 * @module
 */

/**
 * An origin as browsers serialise it in `Origin`, lower-cased, without a default port; `undefined`
 * for anything that is not one origin (a path, a query, userinfo, garbage).
 *
 * @example
 * ```ts
 * normalizeOrigin("HTTPS://App.Example.com:443"); // "https://app.example.com"
 * normalizeOrigin("https://app.example.com/login"); // undefined
 * ```
 */
export function normalizeOrigin(value: string): string | undefined {
  const text = value.trim().toLowerCase();
  if (text === "null") return "null";
  // Origins are short; anything longer is not one, and is not worth parsing.
  if (text.length > 512) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "" || url.host === "") return undefined;
  if (url.pathname !== "" && url.pathname !== "/") return undefined;
  // `URL.origin` is "null" for custom schemes (capacitor:, ionic:), which browsers still send
  // as scheme://host: compare that form.
  const origin = `${url.protocol}//${url.host}`;
  const given = text.endsWith("/") ? text.slice(0, -1) : text;
  return given === origin || given === `${origin}:${defaultPort(url.protocol)}` ? origin : undefined;
}

function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : protocol === "http:" ? "80" : "";
}

/** What a login request says about where it comes from. */
export interface LoginSource {
  readonly origin: string | undefined;
  readonly fetchSite: string | undefined;
  /** The site's own origin, normalised (`baseUrl`'s, else the request's scheme and `Host`). */
  readonly ownOrigin: string | undefined;
  /** Whether no HTML form could send it: an `X-CSRF-Token` header (jDrupal, DrupalGap) or a JSON body. */
  readonly scripted: boolean;
}

/**
 * Whether a login must be refused as cross-site: an `Origin` neither own nor trusted, or marked
 * `Sec-Fetch-Site: cross-site` without a trusted one; never a native client's, and `null` is never
 * trusted. `admitWithoutOrigin` admits a scripted cross-site login with no `Origin` (Cordova `file:`).
 * @param trusted - Origins normalised with {@link normalizeOrigin}.
 */
export function isCrossSiteLogin(source: LoginSource, trusted: ReadonlySet<string>, admitWithoutOrigin = false): boolean {
  const origin = source.origin === undefined ? undefined : (normalizeOrigin(source.origin) ?? "invalid");
  if (origin === "null") return true;
  if (origin !== undefined && trusted.has(origin)) return false;
  if (source.fetchSite?.trim().toLowerCase() === "cross-site") return !(admitWithoutOrigin && origin === undefined && source.scripted);
  return origin !== undefined && origin !== source.ownOrigin;
}
