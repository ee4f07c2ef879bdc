import { z } from "zod";
import { parseOptions } from "../../validate.js";
import type { CounterStore, SessionStore } from "../../types.js";
import { redisCounterStore } from "../redis/redis-counter-store.js";
import { redisSessionStore } from "../redis/redis-session-store.js";
import { fromIoredis, hasKeyPrefix, type IoredisClient } from "./ioredis-client.js";

/** Options of {@link ioredisSessionStore}. */
export interface IoredisSessionStoreOptions {
  /** An ioredis 5/6 client the app owns (`enableOfflineQueue: false`, connected); no ioredis `keyPrefix` (use `prefix`). */
  client: IoredisClient;
  /**
   * Put before every key, so apps can share one Redis; no `{hash tag}`, which would put every session in one slot.
   * @default "ssa:"
   */
  prefix?: string;
}

/** Options of {@link ioredisCounterStore}. */
export interface IoredisCounterStoreOptions {
  /** An ioredis 5 or 6 `Redis` or `Cluster` client that the app owns (see {@link IoredisSessionStoreOptions.client}). */
  client: IoredisClient;
  /**
   * Put before every counter key.
   * @default "ssa:c:"
   */
  prefix?: string;
}

const client = z
  .custom<IoredisClient>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      typeof (value as { multi?: unknown }).multi === "function" &&
      typeof (value as { isCluster?: unknown }).isCluster === "boolean",
    "expected an ioredis Redis or Cluster client",
  )
  .refine((value) => !hasKeyPrefix(value), "ioredis keyPrefix is not supported: leave it unset and pass prefix to the store instead");

const optionsSchema = z.strictObject({ client, prefix: z.string().optional() });

/**
 * `redisSessionStore` over an ioredis client (same keys, atomicity and round trips), for apps that
 * already run ioredis; a `Cluster` gets the per-slot path. Redis 7+.
 *
 * @example
 * ```ts
 * const sessionStore = ioredisSessionStore({ client: new Redis(process.env.REDIS_URL!, { lazyConnect: true, enableOfflineQueue: false }) });
 * ```
 * @throws TypeError when `client` is not an ioredis client, has a `keyPrefix`, or an option is out of range.
 */
export function ioredisSessionStore(options: IoredisSessionStoreOptions): SessionStore {
  const { client, prefix } = parseOptions(optionsSchema, options, "ioredisSessionStore");
  return redisSessionStore({ client: fromIoredis(client), cluster: client.isCluster, ...(prefix === undefined ? {} : { prefix }) });
}

/**
 * `redisCounterStore` over an ioredis `Redis` or `Cluster` client. Redis 7+.
 *
 * @throws TypeError when `client` is not an ioredis client, has a `keyPrefix`, or an option is out of range.
 */
export function ioredisCounterStore(options: IoredisCounterStoreOptions): CounterStore {
  const { client, prefix } = parseOptions(optionsSchema, options, "ioredisCounterStore");
  return redisCounterStore({ client: fromIoredis(client), ...(prefix === undefined ? {} : { prefix }) });
}
