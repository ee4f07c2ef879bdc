import { hmacSha256 } from "./hmac-sha256.js";
import { deriveKey } from "./derive-key.js";

/**
 * The default CSRF token of a session: `base64url(HMAC-SHA256(key, sessid))`, 43 characters
 * like Drupal's, under a key derived from `secret` for this use alone. Bound to the session
 * id, so it changes at every login and a token from one session is worthless in another.
 * `services/session/token` answers it for any cookie value, so the key must sign nothing
 * else. For tokens that match a Drupal site's (so cached client tokens survive a cut-over),
 * pass the migration kit's `drupal7CsrfToken` as the `csrfToken` option instead.
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
