import { createClient } from "redis";
import { memoryCounterStore, memorySessionStore, type CounterStore, type SessionStore } from "services-session-auth";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";

/** The stores the example runs on, and how to let go of them. */
export interface ExampleStores {
  readonly kind: "memory" | "redis" | "sealed";
  readonly sessionStore: SessionStore;
  readonly counterStore: CounterStore;
  close(): Promise<void>;
}

/**
 * Picks the stores from the environment: `SESSION_STORE=memory` (the default: one process),
 * `redis` (sessions and login-failure counters shared by every instance through `REDIS_URL`),
 * or `sealed` (stateless sealed cookies; revocations and counters in Redis when `REDIS_URL`
 * is set, else in memory). `REDIS_PREFIX` separates apps sharing one Redis.
 */
export async function storesFromEnv(env: NodeJS.ProcessEnv, secret: string): Promise<ExampleStores> {
  const kind = env.SESSION_STORE ?? "memory";
  if (kind !== "memory" && kind !== "redis" && kind !== "sealed") throw new TypeError(`SESSION_STORE must be memory, redis or sealed, not "${kind}"`);
  if (kind === "memory") {
    const sessionStore = memorySessionStore();
    return { kind, sessionStore, counterStore: memoryCounterStore(), close: async () => sessionStore.close() };
  }
  if (kind === "redis" && env.REDIS_URL === undefined) throw new TypeError("SESSION_STORE=redis needs REDIS_URL, e.g. redis://127.0.0.1:6379");
  const prefix = env.REDIS_PREFIX ?? "sports:";
  // No offline queue: while Redis is down, calls fail at once (a 503) instead of piling up.
  const client = env.REDIS_URL === undefined ? undefined : await createClient({ url: env.REDIS_URL, disableOfflineQueue: true }).connect();
  client?.on("error", () => undefined);
  const counterStore = client === undefined ? memoryCounterStore() : redisCounterStore({ client, prefix });
  const sessionStore =
    kind === "redis"
      ? redisSessionStore({ client: client!, prefix })
      : sealedCookieStore({ password: env.SEALED_COOKIE_PASSWORD ?? secret, revocations: counterStore, prefix: `${prefix}sealed:` });
  return { kind, sessionStore, counterStore, close: async () => void (await client?.quit()) };
}
