import { createHmac } from "node:crypto";
import { z } from "zod";
import { parseOptions } from "../validate.js";

const optionsSchema = z.strictObject({
  privateKey: z.string().min(1),
  hashSalt: z.string().min(1),
});

/**
 * Options of {@link drupal7CsrfToken}. Both values come from the Drupal site being replaced.
 *
 * @example
 * ```ts
 * drupal7CsrfToken({ privateKey: await readDrupal7PrivateKey({ pool }), hashSalt: process.env.DRUPAL_HASH_SALT! });
 * ```
 */
export interface Drupal7CsrfTokenOptions {
  /**
   * The `drupal_private_key` variable: the string inside the PHP-serialized `value` of that
   * row of the `variable` table (`s:43:"…";`). {@link readDrupal7PrivateKey} reads it.
   */
  privateKey: string;
  /**
   * settings.php's `$drupal_hash_salt`. When the site left it empty, Drupal used
   * `hash('sha256', serialize($databases))` (lower-case hex); pass that string instead.
   */
  hashSalt: string;
}

/**
 * Drupal's `drupal_get_token('services')` for a session, so tokens the apps already hold
 * (some keep them for good) stay valid after the cut-over:
 * `base64url(HMAC-SHA256(key = sessid . drupal_private_key . hash_salt, data = "services"))`,
 * 43 characters without padding. `sessid` is the raw cookie value, never the hashed sid.
 * Pass the result as the `csrfToken` option of `createSessionAuthRouter`.
 *
 * @example
 * ```ts
 * const csrfToken = drupal7CsrfToken({ privateKey, hashSalt: process.env.DRUPAL_HASH_SALT! });
 * createSessionAuthRouter({ userStore, sessionStore, secret, csrfToken });
 * csrfToken("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"); // with "PRIVKEY"/"SALT": "NHKxPzvOr38kSDd3jkk1yScPNr8jXITuXEllAIGdzpc"
 * ```
 * @throws TypeError when either value is missing or empty.
 */
export function drupal7CsrfToken(options: Drupal7CsrfTokenOptions): (sessid: string) => string {
  const { privateKey, hashSalt } = parseOptions(optionsSchema, options, "drupal7CsrfToken");
  // drupal_get_token() → drupal_hmac_base64($value, session_id() . $private_key . drupal_get_hash_salt()).
  return function drupal7CsrfTokenFor(sessid) {
    return createHmac("sha256", sessid + privateKey + hashSalt)
      .update("services")
      .digest("base64url");
  };
}
