import { z } from "zod";
import { parseOptions } from "../../validate.js";
import { redisClientSchema } from "./client-option.js";
import type { CounterStore } from "../../types.js";
import type { RedisClientLike } from "./client.js";
import { DECREMENT_SCRIPT } from "./scripts.js";

/**
 * Options of {@link redisCounterStore}.
 *
 * @example
 * ```ts
 * redisCounterStore({ client, prefix: "myapp:c:" });
 * ```
 */
export interface RedisCounterStoreOptions {
  /** A connected node-redis v5 or v6 client, cluster or sentinel that the app owns (see {@link RedisSessionStoreOptions.client}). */
  client: RedisClientLike;
  /**
   * Put before every counter key.
   * @default "ssa:c:"
   */
  prefix?: string;
}

const optionsSchema = z.strictObject({
  client: redisClientSchema,
  prefix: z.string().optional(),
});

function count(reply: unknown): number {
  const value = typeof reply === "string" ? Number(reply) : reply;
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * A {@link CounterStore} on Redis, shared by every instance: the login throttle's
 * failure counts and the sealed-cookie store's revocation marks. Each key is one slot,
 * so it works the same on a cluster. Needs Redis 7.0 or later (`PEXPIRE … NX`).
 *
 * `increment` answers the new count from the same atomic step that made it, so every
 * instance sharing the server sees each count exactly once: the login throttle reserves an
 * attempt with it before any password is checked.
 *
 * Round trips: `increment` 1 (`MULTI INCR, PEXPIRE NX`), `decrement` 1 (a one-key Lua
 * script), `get` 1, `delete` 1.
 *
 * @example
 * ```ts
 * const counters = redisCounterStore({ client, prefix: "myapp:c:" });
 * await counters.increment("ip:203.0.113.9", 3600); // 1, expiring in an hour
 * ```
 * @throws TypeError when `client` is missing or an option is out of range.
 */
export function redisCounterStore(options: RedisCounterStoreOptions): CounterStore {
  const { client, prefix = "ssa:c:" } = parseOptions(optionsSchema, options, "redisCounterStore");

  return {
    async increment(key, ttlSeconds) {
      const name = prefix + key;
      // NX sets the TTL only on the increment that created the key, so a window is
      // fixed from its first event and later failures cannot stretch it.
      const replies = await client
        .multi()
        .incr(name)
        .pExpire(name, Math.max(1, Math.round(ttlSeconds * 1000)), "NX")
        .exec();
      return count(Array.isArray(replies) ? replies[0] : undefined);
    },
    async decrement(key) {
      await client.eval(DECREMENT_SCRIPT, { keys: [prefix + key], arguments: [] });
    },
    async get(key) {
      return count(await client.get(prefix + key));
    },
    async delete(key) {
      await client.del(prefix + key);
    },
  };
}
