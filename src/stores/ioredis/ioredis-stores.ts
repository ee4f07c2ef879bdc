import { z } from "zod";
import { parseOptions } from "../../validate.js";
import type { CounterStore, SessionStore } from "../../types.js";
import { redisCounterStore } from "../redis/redis-counter-store.js";
import { redisSessionStore } from "../redis/redis-session-store.js";
import { fromIoredis, hasKeyPrefix, type IoredisClient } from "./ioredis-client.js";

/**
 * Options of {@link ioredisSessionStore}.
 *
 * @example
 * ```ts
 * ioredisSessionStore({ client: new Redis(process.env.REDIS_URL!), prefix: "myapp:" });
 * ```
 */
export interface IoredisSessionStoreOptions {
  /**
   * A `Redis` (one server, or Sentinel) or `Cluster` client from ioredis 5 or 6 that the app
   * created and owns; the store never connects, retries or closes it. Create it with
   * `enableOfflineQueue: false` (a `Cluster` takes it in its own options) so that calls
   * fail at once while Redis is unreachable instead of queueing, and with `lazyConnect: true`
   * and `await client.connect()`, so none is sent before it is ready. Leave ioredis's
   * `keyPrefix` unset and use `prefix` here.
   */
  client: IoredisClient;
  /**
   * Put before every key, so several apps can share one Redis. Avoid a `{hash tag}` in it:
   * on a cluster that would put every session in one slot.
   * @default "ssa:"
   */
  prefix?: string;
}

/**
 * Options of {@link ioredisCounterStore}.
 *
 * @example
 * ```ts
 * ioredisCounterStore({ client: new Redis(process.env.REDIS_URL!), prefix: "myapp:c:" });
 * ```
 */
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
 * A {@link SessionStore} on Redis through an ioredis client: the same store as
 * `redisSessionStore` from `services-session-auth/redis` (same keys, atomicity and round
 * trips; see there), for apps that already run ioredis. A `Cluster` client is detected
 * and gets the per-slot write path. Needs Redis 7.0 or later.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { ioredisCounterStore, ioredisSessionStore } from "services-session-auth/ioredis";
 *
 * const client = new Redis(process.env.REDIS_URL!, { lazyConnect: true, enableOfflineQueue: false });
 * await client.connect();
 * const sessionStore = ioredisSessionStore({ client, prefix: "myapp:" });
 * const counterStore = ioredisCounterStore({ client, prefix: "myapp:c:" });
 * ```
 * @throws TypeError when `client` is not an ioredis client, has a `keyPrefix`, or an option is out of range.
 */
export function ioredisSessionStore(options: IoredisSessionStoreOptions): SessionStore {
  const { client, prefix } = parseOptions(optionsSchema, options, "ioredisSessionStore");
  return redisSessionStore({ client: fromIoredis(client), cluster: client.isCluster, ...(prefix === undefined ? {} : { prefix }) });
}

/**
 * A {@link CounterStore} on Redis through an ioredis client: the same store as
 * `redisCounterStore` from `services-session-auth/redis` (login throttle counts,
 * sealed-cookie revocations), on a `Redis` or `Cluster` client. Needs Redis 7.0 or later.
 *
 * @example
 * ```ts
 * const counterStore = ioredisCounterStore({ client, prefix: "myapp:c:" });
 * await counterStore.increment("ip:203.0.113.9", 3600); // 1, expiring in an hour
 * ```
 * @throws TypeError when `client` is not an ioredis client, has a `keyPrefix`, or an option is out of range.
 */
export function ioredisCounterStore(options: IoredisCounterStoreOptions): CounterStore {
  const { client, prefix } = parseOptions(optionsSchema, options, "ioredisCounterStore");
  return redisCounterStore({ client: fromIoredis(client), ...(prefix === undefined ? {} : { prefix }) });
}
