/**
 * The session cookie's `Domain` as Drupal 7.83+ sets it: `$cookie_domain`, else `.` + the `Host`
 * without its port, sent only when it has more than two parts and is not numeric (docs/wire-format.md#the-cookies-name-and-domain).
 * @returns the attribute value, or `undefined` for a host-only cookie (also for any `Host` that is not a plain name).
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

// drupal_valid_http_host()'s characters: nothing that could end or extend a cookie attribute.
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
