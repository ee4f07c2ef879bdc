/**
 * Whether two origins are the same *site* to a browser: the test that decides whether a
 * cookie without `SameSite=None` goes with a request (schemeful same-site: the scheme and the
 * registrable domain).
 *
 * @module
 */

/**
 * The site of an origin as browsers reckon it: its scheme and registrable domain
 * (`https://example.com` for `https://api.example.com`), an IP address or single-label host
 * (`localhost`) whole; `undefined` for `null`, whose requests are cross-site to every site.
 *
 * Without the Public Suffix List, the registrable domain is the last two labels, or three when
 * the last two look like a country's second level (`example.co.uk`, `example.com.au`): an
 * approximation that is right for the host names apps use. It is wrong for private
 * suffixes (`github.io`): two apps under one such suffix are taken for one site, so the
 * start-up warning about a cookie that will not go cross-site can be missing for them.
 *
 * @param origin - An origin normalised with `normalizeOrigin`.
 * @example
 * ```ts
 * siteOf("https://api.example.com"); // "https://example.com"
 * siteOf("capacitor://localhost"); // "capacitor://localhost"
 * siteOf("null"); // undefined
 * ```
 */
export function siteOf(origin: string): string | undefined {
  if (origin === "null") return undefined;
  const schemeEnd = origin.indexOf("://");
  if (schemeEnd === -1) return undefined;
  const scheme = origin.slice(0, schemeEnd);
  // Ports do not count: a site is a scheme and a domain.
  const host = hostWithoutPort(origin.slice(schemeEnd + 3));
  return `${scheme}://${registrableDomain(host)}`;
}

/**
 * Whether a request from `from` to a site whose origin is `to` is cross-site, so that a
 * cookie without `SameSite=None` (and so `Secure`) stays behind. `null` is cross-site to all.
 */
export function isCrossSite(from: string, to: string): boolean {
  const a = siteOf(from);
  const b = siteOf(to);
  return a === undefined || b === undefined || a !== b;
}

function hostWithoutPort(hostPort: string): string {
  if (hostPort.startsWith("[")) return hostPort.slice(0, hostPort.indexOf("]") + 1);
  const colon = hostPort.lastIndexOf(":");
  return colon === -1 ? hostPort : hostPort.slice(0, colon);
}

function registrableDomain(host: string): string {
  if (host.startsWith("[") || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host)) return host;
  const labels = host.split(".");
  if (labels.length <= 2) return host;
  const [tld, second] = [labels[labels.length - 1]!, labels[labels.length - 2]!];
  // co.uk, com.au, org.br, ac.jp…: a two-letter country code under a short generic label.
  const countrySecondLevel = tld.length === 2 && second.length <= 3;
  return labels.slice(countrySecondLevel ? -3 : -2).join(".");
}
