import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { Emit } from "../events.js";
import { answersInProcess } from "../stores/process-local.js";
import type { SessionAuthTelemetry } from "../telemetry/telemetry.js";
import { neverSent, RepairQueue, type Held, type RepairTarget, type Repairs } from "../stores/repairs.js";
import { StoreTimeout } from "../stores/store-refusal.js";

/** How a store is watched besides its timeout. */
export interface WatchOptions {
  /** How long calls wait for the store's `ready` (its start-up, not one of its answers). @default 30000 */
  readonly readyTimeoutMs?: number;
  /** What undoes a call that landed after its request was answered, and which failed calls are sent again. */
  readonly repairs?: Repairs;
  /** Where each call's span, duration and failure go; none, nothing is measured. */
  readonly telemetry?: SessionAuthTelemetry | undefined;
}

/**
 * A store whose calls reject with `ERR_STORE_UNAVAILABLE` (a 503) when they fail or outlast `timeoutMs`, after its `ready`;
 * nothing cached, so the app recovers by itself, and nothing a failed call did is left behind (`repairs`):
 * docs/performance.md#store-timeouts-one-watchdog, docs/scaling-out.md#outages.
 */
export function withTimeout<T extends object>(store: T, name: string, timeoutMs: number, emit: Emit, watchOptions: WatchOptions = {}): T {
  const { readyTimeoutMs = READY_TIMEOUT_MS, repairs = {}, telemetry } = watchOptions;
  const watchdog = new Watchdog(timeoutMs);
  const guarded: Record<string, unknown> = {};
  /** The store's calls as repairs make them: watched, unreported, never held for another try of their own. */
  const direct: RepairTarget = {};
  const queue = new RepairQueue();
  const retried = new Set(repairs.retried ?? []);
  const ready = readiness((store as { ready?: unknown }).ready, readyTimeoutMs, `${name}.ready did not settle in ${readyTimeoutMs / 1000} s`);
  let preparing = ready !== undefined;
  // Memory stores wait on nothing, so are not watched (the watch was a quarter of a guarded request's time).
  const local = answersInProcess(store);
  const calls = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  for (const key of methodNames(store)) {
    const method = (store as Record<string, (...args: unknown[]) => Promise<unknown>>)[key]!;
    const operation = `${name}.${key}`;
    const failed = (error: unknown): never => {
      throw failure(operation, error, emit);
    };
    // A repair tried again is not news: only the first failure of the call it mends was reported.
    const quiet: Emit = () => undefined;
    const late = repairs.late?.[key];
    const unsure = repairs.unsure?.[key];
    const retry = retried.has(key);
    const attempt = (args: readonly unknown[], again?: Held, report: Emit = emit): Promise<unknown> => {
      let pending: Promise<unknown>;
      try {
        pending = Promise.resolve(method.apply(store, args as unknown[]));
      } catch (error) {
        return Promise.reject(failure(operation, error, report));
      }
      if (local) return pending.then(undefined, failed);
      // Failed after it may have been sent (before or after its deadline): undone as if it had landed.
      if (unsure !== undefined) pending.catch((error: unknown) => neverSent(error) || queue.add(() => unsure(direct, args)));
      const landedLate =
        late === undefined && !retry
          ? undefined
          : (value: unknown) => {
              // A give-back that lands late needs no second; a call whose caller was told it failed is undone.
              if (again !== undefined) again.cancelled = true;
              if (late !== undefined) queue.add(() => late(direct, args, value));
            };
      return watchdog.watch(
        pending,
        () => failure(operation, new StoreTimeout(`${operation} timed out after ${timeoutMs / 1000} s`), report),
        (error) => failure(operation, error, report),
        landedLate,
      );
    };
    direct[key] = (...args: unknown[]) => attempt(args, undefined, quiet);
    // A give-back or deletion the store refused is offered again until it takes it.
    const call =
      retry && !local
        ? (...args: unknown[]): Promise<unknown> => {
            const again: Held = { run: () => attempt(args, again, quiet), since: Date.now(), cancelled: false };
            return attempt(args, again).catch((error: unknown) => {
              queue.hold(again);
              throw error;
            });
          }
        : (...args: unknown[]): Promise<unknown> => attempt(args);
    calls.set(key, telemetry === undefined ? call : (...args: unknown[]) => telemetry.storeCall(operation, () => call(...args)));
    const measured = calls.get(key)!;
    guarded[key] = preparing
      ? (...args: unknown[]) =>
          preparing
            ? ready!.then(
                () => measured(...args),
                (error: unknown) => Promise.reject(failure(`${name}.ready`, error, emit)),
              )
            : measured(...args)
      : measured;
  }
  // Ready, however late: from then on calls go straight to the store, without the check.
  (store as { ready?: Promise<unknown> }).ready?.then?.(
    () => {
      preparing = false;
      for (const [key, call] of calls) guarded[key] = call;
    },
    () => undefined,
  );
  return guarded as T;
}

/** How long calls wait for a store's `ready` before they are answered 503: the start-up of a store, not one of its answers. */
const READY_TIMEOUT_MS = 30_000;

/** A store's `ready` promise, rejected when it has not settled within `limitMs`; undefined when it has none. */
function readiness(ready: unknown, limitMs: number, message: string): Promise<unknown> | undefined {
  if (typeof (ready as Promise<unknown> | undefined)?.then !== "function") return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), limitMs);
    timer.unref?.();
  });
  const settled = Promise.race([ready as Promise<unknown>, late]);
  settled.then(
    () => clearTimeout(timer),
    () => clearTimeout(timer),
  );
  return settled;
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

/** Rejects calls in flight after `timeoutMs`: one timeout for all keeps them in deadline order, so a tick reads only the oldest. */
class Watchdog {
  readonly #timeoutMs: number;
  readonly #tickMs: number;
  readonly #inFlight = new Set<Watch>();
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#tickMs = Math.max(1, Math.ceil(timeoutMs / 8));
  }

  /** `pending`, rejected with `timedOut()` past the timeout; `late` hears of a value that came after that. */
  watch<V>(pending: Promise<V>, timedOut: () => Error, failed: (error: unknown) => Error, late?: (value: V) => void): Promise<V> {
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
          if (settled) {
            late?.(value);
            return;
          }
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
