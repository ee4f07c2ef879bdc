import { z } from "zod";
import { parseOptions } from "../../validate.js";
import { redisClientSchema } from "./client-option.js";
import type { CounterStore } from "../../types.js";
import type { RedisClientLike } from "./client.js";
import { watchedClient } from "./connection.js";
import { DECREMENT_SCRIPT } from "./scripts.js";

/** Options of {@link redisCounterStore}. */
export interface RedisCounterStoreOptions {
  /** A connected node-redis v5 or v6 client, cluster or sentinel that the app owns (see {@link RedisSessionStoreOptions.client}). */
  client: RedisClientLike;
  /**
   * Put before every counter key.
   * @default "ssa:c:"
   */
  prefix?: string;
  /** A second connection for writes, as {@link RedisSessionStoreOptions.writeClient}. @default client */
  writeClient?: RedisClientLike;
}

const optionsSchema = z.strictObject({
  client: redisClientSchema,
  prefix: z.string().optional(),
  writeClient: redisClientSchema.optional(),
});

function count(reply: unknown): number {
  const value = typeof reply === "string" ? Number(reply) : reply;
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * A {@link CounterStore} on Redis 7+, shared by every instance: `increment` answers from the same
 * atomic step (`MULTI INCR, PEXPIRE NX`), one key per slot so it works on a cluster. See docs/scaling-out.md#redis.
 *
 *
 * @example
 * ```ts
 * const counters = redisCounterStore({ client, prefix: "myapp:c:" });
 * await counters.increment("ip:203.0.113.9", 3600); // 1, expiring in an hour
 * ```
 * @throws TypeError when `client` is missing or an option is out of range.
 */
export function redisCounterStore(options: RedisCounterStoreOptions): CounterStore {
  const parsed = parseOptions(optionsSchema, options, "redisCounterStore");
  const { prefix = "ssa:c:" } = parsed;
  const client = watchedClient(parsed.client);
  const writer = parsed.writeClient === undefined ? client : watchedClient(parsed.writeClient);

  return {
    async increment(key, ttlSeconds) {
      const name = prefix + key;
      // NX: the TTL is set by the creating increment only, so later failures cannot stretch the window.
      const replies = await writer
        .multi()
        .incr(name)
        .pExpire(name, Math.max(1, Math.round(ttlSeconds * 1000)), "NX")
        .exec();
      return count(Array.isArray(replies) ? replies[0] : undefined);
    },
    async decrement(key) {
      await writer.eval(DECREMENT_SCRIPT, { keys: [prefix + key], arguments: [] });
    },
    async get(key) {
      return count(await client.get(prefix + key));
    },
    async delete(key) {
      await writer.del(prefix + key);
    },
  };
}
