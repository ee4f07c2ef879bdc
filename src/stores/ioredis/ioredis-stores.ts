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
  /** A second connection for writes (`client.duplicate()`), so a write Redis holds back never holds the reads behind it. @default client */
  writeClient?: IoredisClient;
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
  /** A second connection for writes, as {@link IoredisSessionStoreOptions.writeClient}. @default client */
  writeClient?: IoredisClient;
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

const optionsSchema = z.strictObject({ client, prefix: z.string().optional(), writeClient: client.optional() });

/**
 * `redisSessionStore` over an ioredis client (same keys, atomicity and round trips), for apps that
 * already run ioredis; a `Cluster` gets the per-slot path. Redis 7+.
 *
 * @example
 * ```ts
 * const client = new Redis(process.env.REDIS_URL!, { lazyConnect: true, enableOfflineQueue: false });
 * await client.connect(); // without the offline queue, a command sent before "ready" fails
 * const sessionStore = ioredisSessionStore({ client });
 * ```
 * @throws TypeError when `client` is not an ioredis client, has a `keyPrefix`, or an option is out of range.
 */
export function ioredisSessionStore(options: IoredisSessionStoreOptions): SessionStore {
  const { client, prefix, writeClient } = parseOptions(optionsSchema, options, "ioredisSessionStore");
  return redisSessionStore({ client: fromIoredis(client), cluster: client.isCluster, ...shared(prefix, writeClient) });
}

/**
 * `redisCounterStore` over an ioredis `Redis` or `Cluster` client. Redis 7+.
 *
 * @throws TypeError when `client` is not an ioredis client, has a `keyPrefix`, or an option is out of range.
 */
export function ioredisCounterStore(options: IoredisCounterStoreOptions): CounterStore {
  const { client, prefix, writeClient } = parseOptions(optionsSchema, options, "ioredisCounterStore");
  return redisCounterStore({ client: fromIoredis(client), ...shared(prefix, writeClient) });
}

/** The options both factories pass on, left out when not given. */
function shared(prefix: string | undefined, writeClient: IoredisClient | undefined) {
  return { ...(prefix === undefined ? {} : { prefix }), ...(writeClient === undefined ? {} : { writeClient: fromIoredis(writeClient) }) };
}
