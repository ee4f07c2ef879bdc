/**
 * `services-session-auth/ioredis`: the Redis session and counter stores for apps that
 * already run ioredis 5 or 6, on one server, Sentinel or a cluster. `ioredis` is an optional
 * peer dependency: install it in the app, create the client there, and pass it in; this
 * subpath only uses its types and never loads it.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { ioredisCounterStore, ioredisSessionStore } from "services-session-auth/ioredis";
 *
 * const client = new Redis(process.env.REDIS_URL!, { lazyConnect: true, enableOfflineQueue: false });
 * await client.connect();
 * const sessionStore = ioredisSessionStore({ client });
 * const counterStore = ioredisCounterStore({ client });
 * ```
 *
 * @module
 */
export { ioredisCounterStore, ioredisSessionStore } from "../stores/ioredis/ioredis-stores.js";
export type { IoredisCounterStoreOptions, IoredisSessionStoreOptions } from "../stores/ioredis/ioredis-stores.js";
export type { IoredisClient } from "../stores/ioredis/ioredis-client.js";
