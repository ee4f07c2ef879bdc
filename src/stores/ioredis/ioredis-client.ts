import type { ChainableCommander, Cluster, Redis } from "ioredis";
import type { RedisClientLike, RedisTransactionLike } from "../redis/client.js";
import { RECONNECT } from "../redis/connection.js";

/** An ioredis `Redis` (with or without Sentinel) or `Cluster` client; types only, the app owns the client. */
export type IoredisClient = Redis | Cluster;

/** Replies of an ioredis `exec()`: one `[error, result]` pair per queued command. */
type ExecReplies = [error: Error | null, result: unknown][] | null;

/** Whether ioredis's own `keyPrefix` is set: the Lua scripts build keys ioredis would not prefix. */
export function hasKeyPrefix(client: IoredisClient): boolean {
  const options = client.options as { keyPrefix?: unknown; redisOptions?: { keyPrefix?: unknown } };
  // A Cluster takes it at the top level or in redisOptions; either may be a string or a Buffer.
  const prefixes = client.isCluster ? [options.keyPrefix, options.redisOptions?.keyPrefix] : [options.keyPrefix];
  return prefixes.some((prefix) => (typeof prefix === "string" || Buffer.isBuffer(prefix)) && prefix.length > 0);
}

/** The results of a transaction, throwing its first failed command as node-redis does (`null`: discarded, `EXECABORT`). */
function results(replies: ExecReplies): unknown[] {
  if (replies === null) throw new Error("Redis discarded the transaction (EXEC returned null)");
  for (const [error] of replies) if (error !== null) throw error;
  return replies.map(([, result]) => result);
}

function transaction(tx: ChainableCommander): RedisTransactionLike {
  const self: RedisTransactionLike = {
    set(key, value, { expiration, condition }) {
      if (condition === "XX") tx.set(key, value, "PXAT", expiration.value, "XX");
      else tx.set(key, value, "PXAT", expiration.value);
      return self;
    },
    zAdd(key, { score, value }, options) {
      if (options?.condition === "XX") tx.zadd(key, "XX", score, value);
      else tx.zadd(key, score, value);
      return self;
    },
    zRemRangeByScore(key, min, max) {
      tx.zremrangebyscore(key, min, max);
      return self;
    },
    pExpireAt(key, msTimestamp, mode) {
      if (mode === "NX") tx.pexpireat(key, msTimestamp, "NX");
      else if (mode === "GT") tx.pexpireat(key, msTimestamp, "GT");
      else tx.pexpireat(key, msTimestamp);
      return self;
    },
    incr(key) {
      tx.incr(key);
      return self;
    },
    pExpire(key, milliseconds, mode) {
      if (mode === "NX") tx.pexpire(key, milliseconds, "NX");
      else tx.pexpire(key, milliseconds);
      return self;
    },
    async exec() {
      return results(await tx.exec());
    },
  };
  return self;
}

const adapters = new WeakMap<IoredisClient, RedisClientLike>();

/**
 * The ioredis client as the node-redis slice the Redis stores send: one implementation, layout and test suite for both.
 * One adapter per client, so every store over it shares one watch of its connection.
 */
export function fromIoredis(client: IoredisClient): RedisClientLike {
  let adapter = adapters.get(client);
  if (adapter === undefined) adapters.set(client, (adapter = adapt(client)));
  return adapter;
}

function adapt(client: IoredisClient): RedisClientLike {
  const adapter: RedisClientLike & { [RECONNECT]: () => void } = {
    // Commands fail at once unless ready (the documented set-up turns the offline queue off).
    get isReady() {
      return client.status === "ready";
    },
    // ioredis reconnects by itself once the socket is gone: `disconnect(true)` would wait for the silent peer to close.
    [RECONNECT]: () => {
      if (!client.isCluster) (client as Redis).stream.destroy();
    },
    get: (key) => client.get(key),
    getDel: (key) => client.getdel(key),
    del: (keys) => client.del(...(Array.isArray(keys) ? keys : [keys])),
    zRem: (key, members) => client.zrem(key, ...(Array.isArray(members) ? members : [members])),
    zRangeByScore: (key, min, max) => client.zrangebyscore(key, min, max),
    zRemRangeByScore: (key, min, max) => client.zremrangebyscore(key, min, max),
    multi: () => transaction(client.multi()),
    eval: (script, { keys, arguments: args }) => client.eval(script, keys.length, ...keys, ...args),
  };
  return adapter;
}
