import { createHash } from "node:crypto";
import { trimTrailingSlashes } from "../http-input/path.js";

/** What Drupal derives the session cookie's name from (`includes/bootstrap.inc` `drupal_settings_initialize()`). */
export interface SessionNameSource {
  /** settings.php `$cookie_domain`, if the site set one: it wins over everything else. @default none */
  readonly cookieDomain?: string | undefined;
  /** settings.php `$base_url`, e.g. `https://example.com/drupal`. @default none: `host` is used */
  readonly baseUrl?: string | undefined;
  /** The request's `Host` header, used when neither of the above is set, as Drupal does. */
  readonly host: string;
  /** Whether the request came over HTTPS: the name is then `SSESS…` instead of `SESS…`. */
  readonly secure: boolean;
}

/**
 * The session cookie's name as Drupal 7.85+ derives it: `SESS` (`SSESS` on HTTPS) + 32 hex of
 * `sha256` of the cookie domain, or of the base URL without its scheme.
 *
 * @example
 * ```ts
 * drupalSessionName({ host: "example.com", secure: false }); // "SESSa379a6f6eeafb9a55e378c118034e275"
 * ```
 */
export function drupalSessionName(source: SessionNameSource): string {
  let input: string;
  if (source.cookieDomain !== undefined) {
    input = source.cookieDomain;
  } else {
    input = source.baseUrl !== undefined ? trimTrailingSlashes(source.baseUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")) : source.host.toLowerCase();
    // Core 7.85 and later put a dot before a www. host so the cookie covers its subdomains.
    if (input.startsWith("www.")) input = `.${input}`;
  }
  return `${source.secure ? "SSESS" : "SESS"}${createHash("sha256").update(input).digest("hex").slice(0, 32)}`;
}
