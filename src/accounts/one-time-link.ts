import { createHmac, randomInt } from "node:crypto";

/**
 * Drupal 7.101's `user_pass_rehash()`: `drupal_hmac_base64("<timestamp>:<login>:<uid>:<mail>",
 * hash salt . stored password hash)`. A link made here opens on Drupal and the other way round
 * when both have the same hash salt; it dies when the account logs in or changes its password.
 */
export function userPassRehash(passwordHash: string, timestamp: number | string, login: number, uid: string, mail: string, hashSalt: string): string {
  return createHmac("sha256", hashSalt + passwordHash)
    .update(`${timestamp}:${login}:${uid}:${mail}`)
    .digest("base64url");
}

/** What a one-time login link is made of, for an app that sends users to a page of its own (`accounts.oneTimeLoginUrl`). */
export interface OneTimeLink {
  readonly uid: string;
  readonly timestamp: number;
  /** `user_pass_rehash()` of the account as it was when the link was made. */
  readonly hash: string;
  /** The site's URL (`$base_url`), without a trailing slash. */
  readonly siteUrl: string;
  /** Drupal's own link to it: `<site>/user/reset/<uid>/<timestamp>/<hash>`. */
  readonly drupalUrl: string;
}

// user_password(): no 0/O, 1/I/l.
const PASSWORD_CHARACTERS = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** Drupal's `user_password()`: ten characters from an unambiguous alphabet, by the CSPRNG (a visitor who must use a mailed link first). */
export function userPassword(length = 10): string {
  let password = "";
  for (let i = 0; i < length; i++) password += PASSWORD_CHARACTERS[randomInt(PASSWORD_CHARACTERS.length)];
  return password;
}
