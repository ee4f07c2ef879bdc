import {
  memoryCounterStore,
  memorySessionStore,
  type AccountsOptions,
  type CounterStore,
  type SessionAuthOptions,
  type SessionStore,
} from "services-session-auth";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import { drupal7FromEnv } from "./drupal7.js";
import { redisFromEnv } from "./redis.js";

/** How long a session may live from login: the default `absoluteTimeout`, in seconds. */
const ABSOLUTE_TIMEOUT = 2_000_000;

/** The stores the example runs on, the options that go with them, and how to let go of them. */
export interface ExampleStores {
  readonly kind: "memory" | "redis" | "sealed" | "drupal7";
  readonly sessionStore: SessionStore;
  /** The login throttle's failure counts. */
  readonly counterStore: CounterStore;
  /**
   * What createSessionAuthRouter needs besides the secret: the stores, and the timeouts they
   * can honour; beside a Drupal site, also its users, password hashes, CSRF tokens, login
   * limits, session write interval and cookie settings.
   */
  readonly authOptions: Pick<SessionAuthOptions, "sessionStore" | "counterStore" | "idleTimeout" | "absoluteTimeout"> &
    Partial<Pick<SessionAuthOptions, "userStore" | "hasher" | "csrfToken" | "throttle" | "touchInterval" | "cookieDomain" | "baseUrl">>;
  /** Beside a Drupal site: the account calls follow its settings and sign links with its hash salt. */
  readonly accounts?: Partial<AccountsOptions>;
  close(): Promise<void>;
}

/**
 * Picks the stores from the environment: `SESSION_STORE=memory` (the default: one process),
 * `redis` (sessions and login-failure counters shared by every instance through `REDIS_URL`),
 * `sealed` (stateless sealed cookies; revocations and counters in Redis when `REDIS_URL`
 * is set, else in memory), or `drupal7`: beside a running Drupal 7 site, on its database
 * (`DATABASE_URL`), with its users, sessions and CSRF tokens (see ./drupal7.ts).
 * `REDIS_PREFIX` separates apps sharing one Redis; `REDIS_CLIENT=ioredis` uses ioredis instead of node-redis.
 *
 * Sealed sessions cannot move their idle deadline (that would need a new cookie), so in
 * that mode the idle timeout is set equal to the absolute one: a session lasts
 * `ABSOLUTE_TIMEOUT` from login, whether used or not, unless the user logs out.
 */
export async function storesFromEnv(env: NodeJS.ProcessEnv, secret: string): Promise<ExampleStores> {
  const kind = env.SESSION_STORE ?? "memory";
  if (kind !== "memory" && kind !== "redis" && kind !== "sealed" && kind !== "drupal7")
    throw new TypeError(`SESSION_STORE must be memory, redis, sealed or drupal7, not "${kind}"`);
  if (kind === "drupal7") return { kind, ...(await drupal7FromEnv(env)) };
  if (kind === "memory") {
    const sessionStore = memorySessionStore();
    const counterStore = memoryCounterStore();
    return { kind, sessionStore, counterStore, authOptions: { sessionStore, counterStore }, close: async () => sessionStore.close() };
  }
  if (kind === "redis" && env.REDIS_URL === undefined) throw new TypeError("SESSION_STORE=redis needs REDIS_URL, e.g. redis://127.0.0.1:6379");
  const prefix = env.REDIS_PREFIX ?? "sports:";
  const redis = env.REDIS_URL === undefined ? undefined : await redisFromEnv(env.REDIS_URL, env.REDIS_CLIENT);
  const close = async () => redis?.close();
  const counterStore = redis === undefined ? memoryCounterStore() : redis.counterStore(prefix);
  if (kind === "redis") {
    const sessionStore = redis!.sessionStore(prefix);
    return { kind, sessionStore, counterStore, authOptions: { sessionStore, counterStore }, close };
  }
  // Revocations get a store of their own: the throttle's keys are chosen by clients (their
  // IPs), and sharing would let a flood of them crowd out logouts. In memory it must refuse
  // new keys when full rather than forget old ones, or a flood would undo logouts; and a
  // restart, which forgets them all, ends every sealed session (users log in again). On
  // Redis they get their own prefix; in production, give them their own Redis (or database
  // with its own maxmemory) too, so that throttle keys can never take the memory they need.
  const revocations = redis === undefined ? memoryCounterStore({ whenFull: "reject" }) : redis.counterStore(`${prefix}revocations:`);
  const sessionStore = sealedCookieStore({ password: env.SEALED_COOKIE_PASSWORD ?? secret, revocations, maxAgeSeconds: ABSOLUTE_TIMEOUT });
  return {
    kind,
    sessionStore,
    counterStore,
    authOptions: { sessionStore, counterStore, idleTimeout: ABSOLUTE_TIMEOUT, absoluteTimeout: ABSOLUTE_TIMEOUT },
    close,
  };
}
