/**
 * The Redis key layout in one place (the table: docs/scaling-out.md#key-layout). Handles are
 * `base64url(sha256(sessid))`, so a dump of Redis holds no usable cookie.
 *
 * @module
 */

/** Where a session record lives (`<prefix>s:<handle>`). */
export function sessionKey(prefix: string, handle: string): string {
  return `${prefix}s:${handle}`;
}

/** Where a user's index lives (`<prefix>u:<uid>`): its own slot, since `get` finds a session from its id alone. */
export function userIndexKey(prefix: string, uid: string): string {
  return `${prefix}u:${uid}`;
}
