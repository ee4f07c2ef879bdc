/**
 * The session cookie's `Domain` attribute as Drupal 7 (7.83 and later) sets it in
 * `drupal_settings_initialize()`: settings.php `$cookie_domain` if the site set one, else
 * `.` + the `Host` without its port (a leading `www.` kept, leading dots dropped). The
 * attribute is sent only when that value has more than two dot-separated parts and is not
 * numeric once its dots are removed, so `localhost`, `example` and IPv4 addresses get
 * host-only cookies, and so does a `$cookie_domain` of `example.com` (its name still comes
 * from it). A `Host` that is not a plain host name (IPv6 literals, stray characters) gets
 * a host-only cookie too: it must never reach a `Set-Cookie` header.
 *
 * @returns the attribute value, or `undefined` for a host-only cookie.
 */
export function drupalCookieDomain(host: string, cookieDomain?: string): string | undefined {
  let domain: string;
  if (cookieDomain !== undefined) {
    domain = cookieDomain;
  } else {
    const bare = host.replace(/^\.+/, "").split(":", 1)[0]!.toLowerCase();
    domain = `.${bare}`;
  }
  if (!HOST_NAME.test(domain) || domain.length > 254) return undefined;
  if (domain.split(".").length <= 2 || phpIsNumeric(domain.replaceAll(".", ""))) return undefined;
  return domain;
}

// Letters, digits, underscores (drupal_valid_http_host() allows them), hyphens and dots only:
// nothing that could end or extend a cookie attribute.
const HOST_NAME = /^[\w.-]+$/;

/** PHP's `is_numeric()` for the characters a host name can hold: digits with an optional sign and exponent. */
function phpIsNumeric(text: string): boolean {
  let i = text[0] === "+" || text[0] === "-" ? 1 : 0;
  const digitsFrom = (from: number) => {
    let j = from;
    while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j += 1;
    return j;
  };
  const mantissa = digitsFrom(i);
  if (mantissa === i) return false;
  i = mantissa;
  if (i === text.length) return true;
  if (text[i] !== "e" && text[i] !== "E") return false;
  i += 1;
  if (text[i] === "+" || text[i] === "-") i += 1;
  const exponent = digitsFrom(i);
  return exponent > i && exponent === text.length;
}
