/**
 * The slice of a node-redis v5/v6 client the stores use, written out so any client shape fits and
 * `redis` stays an optional peer (types only). Replies use the default type mapping (no Buffers).
 *
 * @module
 */

/** Where a sorted-set write puts a member: its score and value. */
export interface RedisSortedSetMember {
  /** The sort key: an expiry time. */
  score: number;
  /** The member: a session handle. */
  value: string;
}

/** The commands a store queues in a `MULTI` transaction; each returns the transaction. */
export interface RedisTransactionLike {
  /** `SET … PXAT` (with `XX`: only if the key exists). */
  set(key: string, value: string, options: { expiration: { type: "PXAT"; value: number }; condition?: "XX" }): RedisTransactionLike;
  /** `ZADD` one member (with `XX`: only if it is there). */
  zAdd(key: string, members: RedisSortedSetMember, options?: { condition?: "XX" }): RedisTransactionLike;
  /** `ZREMRANGEBYSCORE`: drops the members whose score is in the range. */
  zRemRangeByScore(key: string, min: number | string, max: number | string): RedisTransactionLike;
  /** `PEXPIREAT` with an optional mode (`NX`, `GT`). */
  pExpireAt(key: string, msTimestamp: number, mode?: "NX" | "GT"): RedisTransactionLike;
  /** `INCR`. */
  incr(key: string): RedisTransactionLike;
  /** `PEXPIRE` with an optional mode (`NX`). */
  pExpire(key: string, milliseconds: number, mode?: "NX"): RedisTransactionLike;
  /** Sends the transaction; resolves the replies in order. */
  exec(): Promise<unknown>;
}

/**
 * A connected node-redis v5/v6 client, cluster or sentinel, as the app has it: the stores never
 * connect, reconnect or close it.
 */
export interface RedisClientLike {
  /** node-redis's `isReady` (a cluster has none): `false` while the client cannot send, so a call is refused at once. */
  readonly isReady?: boolean;
  /** `GET`. */
  get(key: string): Promise<unknown>;
  /** `GETDEL`: reads and removes a key in one step. */
  getDel(key: string): Promise<unknown>;
  /** `DEL` one or more keys. */
  del(keys: string | string[]): Promise<unknown>;
  /** `ZREM` one or more members. */
  zRem(key: string, members: string | string[]): Promise<unknown>;
  /** `ZRANGEBYSCORE`: the members whose score is in the range, lowest first. */
  zRangeByScore(key: string, min: number | string, max: number | string): Promise<unknown>;
  /** `ZREMRANGEBYSCORE`, outside a transaction. */
  zRemRangeByScore(key: string, min: number | string, max: number | string): Promise<unknown>;
  /** Starts a transaction. A cluster routes it by its first key, so callers keep one slot per transaction. */
  multi(): RedisTransactionLike;
  /** Runs a Lua script atomically; used only on one primary, where a script may touch any key. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Whether a client is a Redis Cluster client (only it has `getSlotMaster`): elsewhere a transaction may span any keys. */
export function isClusterClient(client: RedisClientLike): boolean {
  return typeof (client as { getSlotMaster?: unknown }).getSlotMaster === "function";
}
