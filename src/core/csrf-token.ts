import { createHmac } from "node:crypto";

/**
 * The default CSRF token of a session: `base64url(HMAC-SHA256(secret, sessid))`, 43
 * characters like Drupal's. Bound to the session id, so it changes at every login and a
 * token from one session is worthless in another. For tokens that match a Drupal site's
 * (so cached client tokens survive a cut-over), pass the migration kit's `drupal7CsrfToken`
 * as the `csrfToken` option instead.
 *
 * @example
 * ```ts
 * const token = hmacCsrfToken(process.env.SESSION_SECRET!);
 * token(sessid); // the X-CSRF-Token this session must send, 43 base64url characters
 * ```
 */
export function hmacCsrfToken(secret: string): (sessid: string) => string {
  return (sessid) => createHmac("sha256", secret).update(sessid).digest("base64url");
}
