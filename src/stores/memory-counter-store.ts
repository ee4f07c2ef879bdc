import { z } from "zod";
import { parseOptions } from "../core/validate.js";
import type { CounterStore } from "../types.js";
import { markProcessLocal } from "./process-local.js";

const optionsSchema = z.strictObject({
  maxKeys: z.number().int().positive().optional(),
  whenFull: z.enum(["evict", "reject"]).optional(),
});

/**
 * Options of {@link memoryCounterStore}.
 *
 * @example
 * ```ts
 * const counterStore = memoryCounterStore({ maxKeys: 10_000 });
 * ```
 */
export interface MemoryCounterStoreOptions {
  /**
   * The most unexpired keys kept at once.
   * @default 100000
   */
  maxKeys?: number;
  /**
   * What `increment` does with a new key once `maxKeys` unexpired keys are held.
   *
   * - `"evict"`: drop the keys that expire soonest to make room. Right for the login
   *   throttle, whose keys an attacker can vary (client IPs): memory stays bounded and
   *   logins keep working, at the cost of forgetting some failure counts under a flood.
   * - `"reject"`: keep every key and reject the increment (the request gets a 503).
   *   Required for revocations (`sealedCookieStore`): a forgotten mark would bring a
   *   logged-out session back, so a full store must refuse new logouts, never undo old ones.
   * @default "evict"
   */
  whenFull?: "evict" | "reject";
}

interface Counter {
  count: number;
  expiresAtMs: number;
}

/**
 * Set on a store that may drop unexpired keys, so that a consumer which must never lose
 * one (the sealed-cookie store's revocations) can refuse it. A registered symbol, so it
 * is the same in the ESM and CJS builds.
 */
const EVICTS = Symbol.for("services-session-auth.counterStore.evicts");

/**
 * Whether a counter store is a {@link memoryCounterStore} that may drop unexpired keys
 * when full (`whenFull: "evict"`, the default).
 */
export function evictsUnexpiredKeys(store: CounterStore): boolean {
  return (store as { [EVICTS]?: unknown })[EVICTS] === true;
}

/**
 * An in-process {@link CounterStore}: counts with a TTL fixed at the first increment,
 * bounded in size. For one process only; use the Redis counter store to share counts
 * between instances.
 *
 * @example
 * ```ts
 * const throttle = memoryCounterStore({ maxKeys: 10_000 }); // login-failure counts
 * const revocations = memoryCounterStore({ whenFull: "reject" }); // sealed-cookie logouts
 * ```
 * @throws TypeError when an option is out of range.
 */
export function memoryCounterStore(options: MemoryCounterStoreOptions = {}): CounterStore {
  const { maxKeys = 100_000, whenFull = "evict" } = parseOptions(optionsSchema, options, "memoryCounterStore");
  const counters = new Map<string, Counter>();
  // While a rejecting store is full, no scan can free a slot before its soonest key
  // expires: until then a new key is refused without walking every key again.
  let fullUntilMs = 0;

  function live(key: string, now: number): Counter | undefined {
    const counter = counters.get(key);
    if (counter !== undefined && counter.expiresAtMs <= now) {
      counters.delete(key);
      return undefined;
    }
    return counter;
  }

  function makeRoom(now: number): void {
    if (whenFull === "reject" && now < fullUntilMs) throw full();
    let soonestMs = Infinity;
    for (const [key, counter] of counters) {
      if (counter.expiresAtMs <= now) counters.delete(key);
      else soonestMs = Math.min(soonestMs, counter.expiresAtMs);
    }
    if (counters.size < maxKeys) return;
    if (whenFull === "reject") {
      fullUntilMs = soonestMs;
      throw full();
    }
    // Every window here has the same length per kind of key, so insertion order is
    // close to expiry order: dropping the oldest tenth drops the soonest to expire.
    let drop = Math.max(1, Math.floor(maxKeys / 10));
    for (const key of counters.keys()) {
      counters.delete(key);
      if (--drop === 0) break;
    }
  }

  function full(): Error {
    return new Error(`memoryCounterStore is full: ${maxKeys} unexpired keys`);
  }

  const store: CounterStore = {
    async increment(key, ttlSeconds) {
      const now = Date.now();
      const counter = live(key, now);
      if (counter !== undefined) return ++counter.count;
      if (counters.size >= maxKeys) makeRoom(now);
      counters.set(key, { count: 1, expiresAtMs: now + ttlSeconds * 1000 });
      return 1;
    },
    async get(key) {
      return live(key, Date.now())?.count ?? 0;
    },
    async delete(key) {
      counters.delete(key);
    },
  };
  // Not enumerable: spreading or logging the store shows only its methods.
  if (whenFull === "evict") Object.defineProperty(store, EVICTS, { value: true });
  // So that a sealed-cookie store can tell its revocations die with this process.
  markProcessLocal(store);
  return store;
}
