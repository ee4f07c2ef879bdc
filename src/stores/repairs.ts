import type { SessionStore } from "../types.js";

/**
 * What a store's watchdog mends after an outage, so that no call answered as failed leaves
 * anything behind: a call that succeeds after its request was answered is undone (`late`), and a
 * give-back the store refused is offered again until it takes it (`retried`).
 */
export interface Repairs {
  /** Per method: what undoes a call that succeeded after its caller was told it failed (`value` is what it resolved). */
  readonly late?: Readonly<Record<string, (store: RepairTarget, args: readonly unknown[], value: unknown) => Promise<unknown>>>;
  /**
   * Per method: what undoes a call that failed after it may have been sent (a timeout, a connection lost with it unanswered),
   * so it may have landed; a call refused before it was sent needs nothing.
   */
  readonly unsure?: Readonly<Record<string, (store: RepairTarget, args: readonly unknown[]) => Promise<unknown>>>;
  /** Methods whose failure is tried again (every 1 s, for an hour) until the store takes it: give-backs and deletions. */
  readonly retried?: readonly string[];
}

/** The guarded store a repair calls through: bounded like every other call. */
export type RepairTarget = Record<string, (...args: unknown[]) => Promise<unknown>>;

/**
 * The counter store's: an increment that landed after its login was answered 503 is given back
 * (else the count holds an attempt nobody is making, and the throttle a lockout for the rest of its
 * window); a give-back or deletion the store refused is sent again.
 */
export const COUNTER_REPAIRS: Repairs = {
  late: { increment: (store, [key]) => store.decrement!(key) },
  // A count that may have landed is given back: at worst one attempt more in the window than the limit, never a lockout.
  unsure: { increment: (store, [key]) => store.decrement!(key) },
  retried: ["decrement", "delete"],
};

/** The session store's: a session created after its login was answered 503 is ended (nobody holds its id, and it counts toward the user's cap). */
export const SESSION_REPAIRS: Repairs = {
  late: {
    // Read back with the create's own request context: a store may keep a session by the scheme it came over (Drupal's sid or ssid).
    create: async (store, [, context], sessid) => {
      const found = (await store.get!(sessid, context)) as Awaited<ReturnType<SessionStore["get"]>>;
      if (found !== null) await store.destroy!(found.handle);
    },
  },
};

/** How often repairs the store refused are tried again. */
const RETRY_MS = 1000;
/** Repairs tried in one round, so a store coming back is not met by a flood. */
const RETRY_BATCH = 100;
/** Repairs held at once; past it the oldest is dropped (a count that outlives its window is harmless). */
const MAX_HELD = 10_000;
/** How long a repair is tried: past the longest throttle window nothing it would mend is left. */
const GIVE_UP_MS = 6 * 3600 * 1000;

/** A repair waiting for its store. */
export interface Held {
  readonly run: () => Promise<unknown>;
  readonly since: number;
  /** Set when the call it stands for turned out to have landed after all. */
  cancelled: boolean;
}

/** Repairs waiting for a store to take them, tried again every second, oldest first. */
export class RepairQueue {
  readonly #held: Held[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #running = false;

  /** Repairs waiting now: for tests and health checks. */
  get size(): number {
    return this.#held.length;
  }

  /** Runs `run` at the next round (within a second), and every second after until it succeeds. */
  add(run: () => Promise<unknown>): void {
    this.hold({ run, since: Date.now(), cancelled: false });
  }

  /** Holds a repair until it succeeds or is `cancelled`. */
  hold(held: Held): void {
    if (this.#held.length >= MAX_HELD) this.#held.shift();
    this.#held.push(held);
    // Unref'd: a repair must never keep a stopping process alive.
    this.#timer ??= setInterval(() => void this.#retry(), RETRY_MS);
    this.#timer.unref?.();
  }

  async #retry(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      const now = Date.now();
      for (let tried = 0; tried < RETRY_BATCH && this.#held.length > 0; tried++) {
        const held = this.#held[0]!;
        if (held.cancelled || now - held.since > GIVE_UP_MS) {
          this.#held.shift();
          continue;
        }
        try {
          await held.run();
        } catch {
          // The store still refuses: the rest waits for the next round.
          break;
        }
        if (this.#held[0] === held) this.#held.shift();
      }
    } finally {
      this.#running = false;
      if (this.#held.length === 0) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    }
  }
}

/**
 * Whether a failed call was refused before it reached the backend, so it cannot have landed: this
 * package's own refusals, and the clients' offline and closed errors (node-redis; ioredis with its
 * offline queue off).
 */
export function neverSent(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === "StoreRefusal" || name === "ClientOfflineError" || name === "ClientClosedError") return true;
  return typeof message === "string" && message.includes("enableOfflineQueue options is false");
}
