/**
 * The Redis key layout, in one place so the docs, the stores and the tests agree.
 *
 * | key | type | holds | expires |
 * | --- | --- | --- | --- |
 * | `<prefix>s:<handle>` | string | the record as JSON | at `expiresAt` (PXAT) |
 * | `<prefix>u:<uid>` | sorted set | the user's handles, scored by `expiresAt` | at the latest member's `expiresAt` |
 * | `<counterPrefix><key>` | string | a counter | at first increment + TTL |
 *
 * `handle` is `base64url(sha256(sessid))`, so a dump of Redis holds no usable cookie.
 *
 * @module
 */

/**
 * Where a session record lives.
 *
 * @example
 * ```ts
 * sessionKey("ssa:", hashSessionId(sessid)); // "ssa:s:gcEk-EuJ…"
 * ```
 */
export function sessionKey(prefix: string, handle: string): string {
  return `${prefix}s:${handle}`;
}

/**
 * Where a user's index lives. It is its own key with its own slot: a session key is found
 * from the session id alone (one round trip for `get`), so it cannot share a hash tag
 * with the user it belongs to.
 *
 * @example
 * ```ts
 * userIndexKey("ssa:", "42"); // "ssa:u:42"
 * ```
 */
export function userIndexKey(prefix: string, uid: string): string {
  return `${prefix}u:${uid}`;
}
