import { SessionAuthError } from "../errors.js";
import type { AuthEventListener } from "./events.js";

/**
 * Wraps every method of a store so that a call which fails or outlasts `timeoutMs`
 * rejects with `ERR_STORE_UNAVAILABLE` (a 503), instead of hanging the request or
 * surfacing a driver's error text. Nothing is cached: the next call tries the store
 * again, so the app recovers by itself when the store is back.
 */
export function guardStore<T extends object>(store: T, name: string, timeoutMs: number, onEvent: AuthEventListener | undefined): T {
  const guarded: Record<string, unknown> = {};
  for (const key of methodNames(store)) {
    const method = (store as Record<string, (...args: unknown[]) => Promise<unknown>>)[key]!;
    const operation = `${name}.${key}`;
    guarded[key] = (...args: unknown[]) => withTimeout(() => method.apply(store, args), timeoutMs, operation, onEvent);
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

function withTimeout(call: () => Promise<unknown>, timeoutMs: number, operation: string, onEvent: AuthEventListener | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      clearTimeout(timer);
      emit(onEvent, operation, error);
      reject(new SessionAuthError("ERR_STORE_UNAVAILABLE", operation, { cause: error }));
    };
    const timer = setTimeout(() => fail(new Error(`${operation} timed out after ${timeoutMs} ms`)), timeoutMs);
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(call());
    } catch (error) {
      fail(error);
      return;
    }
    pending.then((value) => {
      clearTimeout(timer);
      resolve(value);
    }, fail);
  });
}

function emit(onEvent: AuthEventListener | undefined, operation: string, error: unknown): void {
  try {
    onEvent?.({ type: "store.failure", operation, error });
  } catch {
    // A listener's bug must not turn a 503 into something else.
  }
}
