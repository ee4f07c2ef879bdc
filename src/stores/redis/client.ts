/**
 * The slice of a node-redis v5 or v6 client this package uses. It is written out rather than
 * imported so that any client shape fits (`createClient`, `createCluster`,
 * `createSentinel`, with or without modules, scripts or RESP3) and `redis` stays an
 * optional peer: these are types only and load nothing at run time.
 *
 * Replies are read with the default type mapping (strings and numbers); a client made
 * with a custom `typeMapping` that turns strings into Buffers is not supported.
 *
 * @module
 */

/**
 * Where a sorted-set write puts a member: its score and value.
 *
 * @example
 * ```ts
 * tx.zAdd(key, { score: record.expiresAt, value: handle });
 * ```
 */
export interface RedisSortedSetMember {
  /** The sort key: an expiry time. */
  score: number;
  /** The member: a session handle. */
  value: string;
}

/**
 * The commands a store queues in a `MULTI` transaction. Each returns the transaction, for chaining.
 *
 * @example
 * ```ts
 * await client.multi().incr(key).pExpire(key, 60_000, "NX").exec();
 * ```
 */
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
 * A connected node-redis v5 or v6 client, cluster or sentinel, as the app already has it. The
 * stores never connect, reconnect or close it: its lifecycle is the app's.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const store = redisSessionStore({ client }); // client: RedisClientLike
 * ```
 */
export interface RedisClientLike {
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

/**
 * Whether a client is a Redis Cluster client. Only the cluster client has
 * `getSlotMaster`; a plain or sentinel client talks to one primary, where a transaction
 * may span any keys.
 *
 * @example
 * ```ts
 * isClusterClient(createCluster({ rootNodes })); // true
 * isClusterClient(createClient()); // false
 * ```
 */
export function isClusterClient(client: RedisClientLike): boolean {
  return typeof (client as { getSlotMaster?: unknown }).getSlotMaster === "function";
}
