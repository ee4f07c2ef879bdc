import { z } from "zod";
import { parseOptions } from "../validate.js";
import type { CounterStore } from "../types.js";
import { answeredInProcess, processLocal } from "./process-local.js";

const optionsSchema = z.strictObject({
  maxKeys: z.number().int().positive().optional(),
  whenFull: z.enum(["evict", "reject"]).optional(),
});

/** Options of {@link memoryCounterStore}. */
export interface MemoryCounterStoreOptions {
  /**
   * The most unexpired keys kept in each namespace (the text before a key's first `:`, as the throttle's `ip`, `user`).
   * @default 100000
   */
  maxKeys?: number;
  /**
   * What `increment` does with a new key once its namespace holds `maxKeys` unexpired keys.
   * What `increment` does with a new key in a full namespace: `"evict"` drops that namespace's
   * lowest counts (for the throttle, whose keys attackers vary); `"reject"` refuses
   * (`ERR_STORE_FULL`) and never drops a key, as revocations need (`sealedCookieStore`).
   * @default "evict"
   */
  whenFull?: "evict" | "reject";
}

interface Counter {
  count: number;
  expiresAtMs: number;
}

/** A key's namespace: the text before its first `:` (`ip:203.0.113.7` is in `ip`). */
function namespaceOf(key: string): string {
  const colon = key.indexOf(":");
  return colon === -1 ? "" : key.slice(0, colon);
}

/** Whether a counter store may drop unexpired keys when full (a {@link memoryCounterStore} with `whenFull: "evict"`). */
export function evictsUnexpiredKeys(store: CounterStore): boolean {
  return store.evictsWhenFull === true;
}

/**
 * An in-process {@link CounterStore} with a TTL fixed at the first increment, bounded per
 * namespace: a flood of fresh addresses never evicts an account's count, and the lowest counts
 * go first. One process only; why it holds under attack: docs/security.md#protections.
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
  const namespaces = new Map<string, Map<string, Counter>>();
  // A full rejecting namespace frees nothing before its soonest expiry: refuse without rescanning.
  const fullUntilMs = new Map<string, number>();

  function live(key: string, now: number): Counter | undefined {
    const counters = namespaces.get(namespaceOf(key));
    const counter = counters?.get(key);
    if (counter !== undefined && counter.expiresAtMs <= now) {
      counters!.delete(key);
      return undefined;
    }
    return counter;
  }

  /** Makes room for one more key among `counters`, the full namespace `namespace`. */
  function makeRoom(namespace: string, counters: Map<string, Counter>, now: number): void {
    if (whenFull === "reject" && now < (fullUntilMs.get(namespace) ?? 0)) throw full(namespace);
    let soonestMs = Infinity;
    for (const [key, counter] of counters) {
      if (counter.expiresAtMs <= now) counters.delete(key);
      else soonestMs = Math.min(soonestMs, counter.expiresAtMs);
    }
    if (counters.size < maxKeys) return;
    if (whenFull === "reject") {
      fullUntilMs.set(namespace, soonestMs);
      throw full(namespace);
    }
    // Drop a tenth at once: a flood costs one scan per tenth of the namespace, not one per key.
    const candidates = [...counters].sort(([, a], [, b]) => a.count - b.count || a.expiresAtMs - b.expiresAtMs);
    const drop = Math.max(1, Math.floor(candidates.length / 10));
    for (let i = 0; i < drop; i++) counters.delete(candidates[i]![0]);
  }

  function full(namespace: string): Error {
    return new Error(`memoryCounterStore is full: ${maxKeys} unexpired keys in namespace "${namespace}"`);
  }

  const store: CounterStore = {
    // So a sealed-cookie store can tell its revocations die with this process.
    processLocal: processLocal(),
    evictsWhenFull: whenFull === "evict",
    async increment(key, ttlSeconds) {
      const now = Date.now();
      const counter = live(key, now);
      if (counter !== undefined) return ++counter.count;
      const namespace = namespaceOf(key);
      let counters = namespaces.get(namespace);
      if (counters === undefined) namespaces.set(namespace, (counters = new Map()));
      if (counters.size >= maxKeys) makeRoom(namespace, counters, now);
      counters.set(key, { count: 1, expiresAtMs: now + ttlSeconds * 1000 });
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
      namespaces.get(namespaceOf(key))?.delete(key);
    },
  };
  return answeredInProcess(store);
}
