/**
 * `services-session-auth/redis`: session and counter stores on Redis (node-redis v5 or v6),
 * for apps that run more than one instance. `redis` is an optional peer dependency:
 * install it in the app, create and connect the client there, and pass it in.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
 *
 * const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const sessionStore = redisSessionStore({ client });
 * const counterStore = redisCounterStore({ client });
 * ```
 *
 * @module
 */
export { redisSessionStore } from "../stores/redis/redis-session-store.js";
export type { RedisSessionStoreOptions } from "../stores/redis/redis-session-store.js";
export { redisCounterStore } from "../stores/redis/redis-counter-store.js";
export type { RedisCounterStoreOptions } from "../stores/redis/redis-counter-store.js";
export type { RedisClientLike, RedisSortedSetMember, RedisTransactionLike } from "../stores/redis/client.js";
