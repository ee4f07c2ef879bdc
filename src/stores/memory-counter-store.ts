import { z } from "zod";
import { parseOptions } from "../core/validate.js";
import type { CounterStore } from "../types.js";

const optionsSchema = z.strictObject({ maxKeys: z.number().int().positive().optional() });

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
   * The most keys kept at once. Failure counters are keyed by client IP, which an attacker
   * can vary; when full, the key that expires soonest is dropped first.
   * @default 100000
   */
  maxKeys?: number;
}

interface Counter {
  count: number;
  expiresAtMs: number;
}

/**
 * An in-process {@link CounterStore} for the login throttle: counts with a TTL fixed at
 * the first increment, bounded in size. For one process only; use the Redis counter
 * store to share counts between instances.
 *
 * @example
 * ```ts
 * const counters = memoryCounterStore({ maxKeys: 10_000 });
 * ```
 * @throws TypeError when an option is out of range.
 */
export function memoryCounterStore(options: MemoryCounterStoreOptions = {}): CounterStore {
  const { maxKeys = 100_000 } = parseOptions(optionsSchema, options, "memoryCounterStore");
  const counters = new Map<string, Counter>();

  function live(key: string, now: number): Counter | undefined {
    const counter = counters.get(key);
    if (counter !== undefined && counter.expiresAtMs <= now) {
      counters.delete(key);
      return undefined;
    }
    return counter;
  }

  function makeRoom(now: number): void {
    for (const [key, counter] of counters) if (counter.expiresAtMs <= now) counters.delete(key);
    if (counters.size < maxKeys) return;
    // Every window here has the same length per kind of key, so insertion order is
    // close to expiry order: dropping the oldest tenth drops the soonest to expire.
    let drop = Math.max(1, Math.floor(maxKeys / 10));
    for (const key of counters.keys()) {
      counters.delete(key);
      if (--drop === 0) break;
    }
  }

  return {
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
}
