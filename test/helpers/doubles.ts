import { vi } from "vitest";

/**
 * Wraps every method of `target`: `around(name, call)` runs instead of each call, and
 * `call()` passes it through. The one proxy that counts, fails or stalls a store's calls.
 */
export function aroundMethods<T extends object>(target: T, around: (name: string, call: () => unknown) => unknown): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key, object) as unknown;
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => around(key, () => (value as (...a: unknown[]) => unknown).apply(object, args));
    },
  });
}

/** Counts every method call on `target` by name, passing each through. */
export function countCalls<T extends object>(target: T): { proxy: T; calls: Record<string, number>; reset(): void } {
  const calls: Record<string, number> = {};
  const proxy = aroundMethods(target, (name, call) => {
    calls[name] = (calls[name] ?? 0) + 1;
    return call();
  });
  return {
    proxy,
    calls,
    reset() {
      for (const key of Object.keys(calls)) delete calls[key];
    },
  };
}

/**
 * A fake `Date` (timers stay real unless `alsoFake` names them), starting at `start`.
 * `advance(seconds)` moves it on; call `vi.useRealTimers()` (or `restore()`) after the test.
 */
export function fakeClock(
  start: Date | number = Date.UTC(2026, 10, 21, 12),
  alsoFake: ("setInterval" | "clearInterval" | "setTimeout" | "clearTimeout")[] = [],
) {
  vi.useFakeTimers({ toFake: ["Date", ...alsoFake], now: start });
  return {
    /** Moves the clock on by whole or fractional seconds. */
    advance(seconds: number): void {
      vi.setSystemTime(Date.now() + seconds * 1000);
    },
    /** The clock in Unix seconds, as records hold it. */
    seconds(): number {
      return Math.floor(Date.now() / 1000);
    },
    restore(): void {
      vi.useRealTimers();
    },
  };
}
