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
   * - `"evict"`: drop keys to make room, fairly between key namespaces and lowest counts
   *   first (see {@link memoryCounterStore}). Right for the login throttle, whose keys an
   *   attacker can vary (client addresses, names): memory stays bounded and logins keep
   *   working, at the cost of forgetting some low failure counts under a flood.
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
  readonly namespace: string;
}

/** A key's namespace: the text before its first `:` (`ip:203.0.113.7` is in `ip`). */
function namespaceOf(key: string): string {
  const colon = key.indexOf(":");
  return colon === -1 ? "" : key.slice(0, colon);
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
 * When full and evicting, the store keeps every key namespace (the text before a key's
 * first `:`, such as the login throttle's `ip` and `user`) at least its fair share of
 * `maxKeys`: a new key evicts from its own namespace once that holds its share, else from
 * the largest one. Within a namespace the lowest counts go first (ties: the soonest to
 * expire), so a flood of fresh keys (one-off client addresses, made-up names) pushes out
 * its own kind, and a locked account's count outlasts the keys that flood it.
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
  const namespaceSizes = new Map<string, number>();
  // While a rejecting store is full, no scan can free a slot before its soonest key
  // expires: until then a new key is refused without walking every key again.
  let fullUntilMs = 0;

  function add(key: string, counter: Counter): void {
    counters.set(key, counter);
    namespaceSizes.set(counter.namespace, (namespaceSizes.get(counter.namespace) ?? 0) + 1);
  }

  function remove(key: string): void {
    const counter = counters.get(key);
    if (counter === undefined) return;
    counters.delete(key);
    const left = (namespaceSizes.get(counter.namespace) ?? 1) - 1;
    if (left === 0) namespaceSizes.delete(counter.namespace);
    else namespaceSizes.set(counter.namespace, left);
  }

  function live(key: string, now: number): Counter | undefined {
    const counter = counters.get(key);
    if (counter !== undefined && counter.expiresAtMs <= now) {
      remove(key);
      return undefined;
    }
    return counter;
  }

  function makeRoom(namespace: string, now: number): void {
    if (whenFull === "reject" && now < fullUntilMs) throw full();
    let soonestMs = Infinity;
    for (const [key, counter] of counters) {
      if (counter.expiresAtMs <= now) remove(key);
      else soonestMs = Math.min(soonestMs, counter.expiresAtMs);
    }
    if (counters.size < maxKeys) return;
    if (whenFull === "reject") {
      fullUntilMs = soonestMs;
      throw full();
    }
    // A namespace holding its fair share makes room in itself; one below it takes from
    // the largest, so no kind of key can crowd another below maxKeys / namespaces.
    const share = maxKeys / (namespaceSizes.has(namespace) ? namespaceSizes.size : namespaceSizes.size + 1);
    let victim = namespace;
    if ((namespaceSizes.get(namespace) ?? 0) < share) {
      let largest = -1;
      for (const [name, size] of namespaceSizes) {
        if (size > largest) [victim, largest] = [name, size];
      }
    }
    // Drop a tenth of it at once, lowest counts first, so a flood costs one scan per
    // tenth of the namespace rather than one per key.
    const candidates: [string, Counter][] = [];
    for (const entry of counters) if (entry[1].namespace === victim) candidates.push(entry);
    candidates.sort(([, a], [, b]) => a.count - b.count || a.expiresAtMs - b.expiresAtMs);
    const drop = Math.max(1, Math.floor(candidates.length / 10));
    for (let i = 0; i < drop; i++) remove(candidates[i]![0]);
  }

  function full(): Error {
    return new Error(`memoryCounterStore is full: ${maxKeys} unexpired keys`);
  }

  const store: CounterStore = {
    async increment(key, ttlSeconds) {
      const now = Date.now();
      const counter = live(key, now);
      if (counter !== undefined) return ++counter.count;
      const namespace = namespaceOf(key);
      if (counters.size >= maxKeys) makeRoom(namespace, now);
      add(key, { count: 1, expiresAtMs: now + ttlSeconds * 1000, namespace });
      return 1;
    },
    async decrement(key) {
      const counter = live(key, Date.now());
      if (counter !== undefined && counter.count > 0) counter.count -= 1;
    },
    async get(key) {
      return live(key, Date.now())?.count ?? 0;
    },
    async delete(key) {
      remove(key);
    },
  };
  // Not enumerable: spreading or logging the store shows only its methods.
  if (whenFull === "evict") Object.defineProperty(store, EVICTS, { value: true });
  // So that a sealed-cookie store can tell its revocations die with this process.
  markProcessLocal(store);
  return store;
}
