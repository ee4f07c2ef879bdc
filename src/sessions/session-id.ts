import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/** Session ids are 32 random bytes, base64url without padding: 43 characters, as Drupal's `drupal_random_key()`. */
const SESSION_ID_BYTES = 32;

const SESSION_ID_PATTERN = /^[\w-]{43}$/;

/** A new session id: 256 bits from the CSPRNG, base64url (43 characters). */
export function createSessionId(): string {
  return randomBytes(SESSION_ID_BYTES).toString("base64url");
}

/** Whether a string has the shape of an id from {@link createSessionId}. Cheap; rejects junk before any hashing. */
export function isSessionIdShape(value: string): boolean {
  return value.length === 43 && SESSION_ID_PATTERN.test(value);
}

/**
 * The form a store keeps a session id in, `base64url(sha256(sessid))` (as Drupal 7.98+ keeps
 * `sessions.sid`), so a dump of the store cannot be replayed as cookies.
 *
 * @example
 * ```ts
 * await sessionStore.destroy(hashSessionId(sessid)); // end the session a client sent, by its handle
 * ```
 */
export function hashSessionId(sessid: string): string {
  // The one-shot form: no Hash object per call, on a path every protected request takes.
  return hash("sha256", sessid, "base64url");
}

/** Compares two strings in time that depends only on their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
