import { createHmac } from "node:crypto";
import { z } from "zod";
import { parseOptions } from "../validate.js";

const optionsSchema = z.strictObject({
  privateKey: z.string().min(1),
  hashSalt: z.string().min(1),
});

/** Options of {@link drupal7CsrfToken}: both from the Drupal site being replaced. */
export interface Drupal7CsrfTokenOptions {
  /** The `drupal_private_key` variable (the string inside its serialized `value`); {@link readDrupal7PrivateKey} reads it. */
  privateKey: string;
  /** settings.php's `$drupal_hash_salt`; if empty, Drupal used `hash('sha256', serialize($databases))`: pass that hex. */
  hashSalt: string;
}

/**
 * Drupal's `drupal_get_token('services')` for a raw session id (never the hashed sid), for the
 * `csrfToken` option, so tokens apps cached from Drupal stay valid after the cut-over.
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
