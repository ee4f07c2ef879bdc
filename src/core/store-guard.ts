import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { Emit } from "./events.js";

/**
 * Wraps every method of a store so that a call which fails or outlasts `timeoutMs`
 * rejects with `ERR_STORE_UNAVAILABLE` (a 503), instead of hanging the request or
 * surfacing a driver's error text. Nothing is cached: the next call tries the store
 * again, so the app recovers by itself when the store is back. A store that refuses
 * because it is at its capacity (`ERR_STORE_FULL`) keeps that code, with a `store.full`
 * event instead of `store.failure`.
 *
 * A store with a `ready` promise (one that prepares itself after it is made) is waited for
 * first, and that wait is not timed: the timeout measures the store's answers, not its start.
 *
 * A call that outlasts `timeoutMs` is rejected within an eighth of `timeoutMs` after it:
 * one shared watchdog checks the calls in flight, rather than a timer armed and cleared
 * for every call on the path of every protected request.
 */
export function guardStore<T extends object>(store: T, name: string, timeoutMs: number, emit: Emit): T {
  const watchdog = new Watchdog(timeoutMs);
  const guarded: Record<string, unknown> = {};
  // A store that prepares itself after it is made: calls wait for it, outside the timeout.
  const ready = (store as { ready?: unknown }).ready;
  let preparing = typeof (ready as Promise<unknown> | undefined)?.then === "function";
  if (preparing) (ready as Promise<unknown>).then(() => (preparing = false), () => undefined);
  for (const key of methodNames(store)) {
    const method = (store as Record<string, (...args: unknown[]) => Promise<unknown>>)[key]!;
    const operation = `${name}.${key}`;
    const call = (...args: unknown[]): Promise<unknown> => {
      let pending: Promise<unknown>;
      try {
        pending = Promise.resolve(method.apply(store, args));
      } catch (error) {
        return Promise.reject(failure(operation, error, emit));
      }
      return watchdog.watch(pending, () => failure(operation, new Error(`${operation} timed out after ${timeoutMs} ms`), emit), (error) =>
        failure(operation, error, emit),
      );
    };
    guarded[key] = (...args: unknown[]) =>
      preparing ? (ready as Promise<unknown>).then(() => call(...args), (error: unknown) => Promise.reject(failure(`${name}.ready`, error, emit))) : call(...args);
  }
  return guarded as T;
}

function methodNames(store: object): string[] {
  const names = new Set<string>();
  for (let proto: object | null = store; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === "constructor") continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      if (descriptor !== undefined && typeof descriptor.value === "function") names.add(key);
    }
  }
  return [...names];
}

interface Watch {
  readonly deadline: number;
  readonly expire: () => void;
}

/**
 * Rejects calls still in flight after `timeoutMs`. Every call gets the same timeout, so the
 * calls in flight are in deadline order: a tick looks only at the oldest ones. The ticker
 * runs while calls are in flight and stops at the first tick that finds none.
 */
class Watchdog {
  readonly #timeoutMs: number;
  readonly #tickMs: number;
  readonly #inFlight = new Set<Watch>();
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#tickMs = Math.max(1, Math.ceil(timeoutMs / 8));
  }

  watch<V>(pending: Promise<V>, timedOut: () => Error, failed: (error: unknown) => Error): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      let settled = false;
      const watch: Watch = {
        deadline: performance.now() + this.#timeoutMs,
        expire: () => {
          settled = true;
          reject(timedOut());
        },
      };
      this.#inFlight.add(watch);
      this.#ticker ??= setInterval(() => this.#tick(), this.#tickMs);
      pending.then(
        (value) => {
          if (settled) return;
          this.#inFlight.delete(watch);
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          this.#inFlight.delete(watch);
          reject(failed(error));
        },
      );
    });
  }

  #tick(): void {
    const now = performance.now();
    for (const watch of this.#inFlight) {
      if (watch.deadline > now) return;
      this.#inFlight.delete(watch);
      watch.expire();
    }
    if (this.#inFlight.size === 0) {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
    }
  }
}

function failure(operation: string, error: unknown, emit: Emit): SessionAuthError {
  // A store at its capacity is working as designed: its refusal keeps its own code.
  const full = isSessionAuthError(error) && error.code === "ERR_STORE_FULL";
  emit(full ? { type: "store.full", operation } : { type: "store.failure", operation, err: error });
  return full ? error : new SessionAuthError("ERR_STORE_UNAVAILABLE", operation, { cause: error });
}
