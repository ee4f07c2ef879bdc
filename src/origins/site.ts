/**
 * The site of an origin as browsers reckon it (`https://example.com` for `https://api.example.com`;
 * IPs and single labels whole; `undefined` for `null`). Without the Public Suffix List: the last two
 * labels, three for `co.uk`-like ones, so private suffixes (`github.io`) may miss the start-up warning.
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

/** Whether a request from `from` to `to` is cross-site, so a cookie without `SameSite=None` stays behind. */
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
