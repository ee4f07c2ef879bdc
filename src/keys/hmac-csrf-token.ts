import { hmacSha256 } from "./hmac-sha256.js";
import { deriveKey } from "./derive-key.js";

/**
 * The default CSRF token, `base64url(HMAC-SHA256(key, sessid))` under a key for this use alone
 * (the token call answers it for any cookie value); `drupal7CsrfToken` gives Drupal's instead.
 *
 * @example
 * ```ts
 * const token = hmacCsrfToken(process.env.SESSION_SECRET!);
 * token(sessid); // the X-CSRF-Token this session must send, 43 base64url characters
 * ```
 */
export function hmacCsrfToken(secret: string): (sessid: string) => string {
  const mac = hmacSha256(deriveKey(secret, "csrf token"));
  return (sessid) => mac(sessid).toString("base64url");
}
