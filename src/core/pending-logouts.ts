import type { SessionStore, StoredSession } from "../types.js";
import { nowSeconds } from "./clock.js";

/** How often logouts the store refused are offered to it again. */
const RETRY_MS = 5000;
/** Logouts offered to the store in one retry, once the first has gone through. */
const RETRY_BATCH = 100;
/** Users with a logout held here at once; past it, see {@link PendingLogouts.add}. */
const MAX_USERS = 10_000;

/**
 * Logouts that the session store could not record (it was full, or down), held in this
 * process so that the sessions they ended stay ended here, and offered to the store again
 * every few seconds until it takes them, as `destroyByUser`. A logout must never leave
 * its session working: holding it here is the last way left to refuse it.
 *
 * One entry per user, whatever the number of logouts: it covers every session of the
 * user created up to the second the logged-out one was, and it is dropped once the store
 * has taken it, or once nothing it covers can still be live (`absoluteTimeout` later).
 */
export class PendingLogouts {
  /** uid → sessions of that user created before this second are ended. */
  readonly #before = new Map<string, number>();
  /** When more users than {@link MAX_USERS} were held: every session created before this second is ended. */
  #allBefore = 0;
  #retrying: ReturnType<typeof setInterval> | undefined;
  #running = false;
  readonly #sessions: SessionStore;
  readonly #maxAge: number;

  constructor(sessions: SessionStore, absoluteTimeout: number) {
    this.#sessions = sessions;
    this.#maxAge = absoluteTimeout;
  }

  get size(): number {
    return this.#before.size;
  }

  /**
   * Holds a logout the store refused. Should more users than the bound have one held at
   * once, every session created until now is refused instead: never a logout forgotten.
   */
  add({ record }: StoredSession): void {
    const before = record.createdAt + 1;
    if (!this.#before.has(record.uid) && this.#before.size >= MAX_USERS) this.#allBefore = Math.max(this.#allBefore, nowSeconds() + 1);
    else this.#before.set(record.uid, Math.max(this.#before.get(record.uid) ?? 0, before));
    this.#retrying ??= setInterval(() => void this.#retry(), RETRY_MS);
    this.#retrying.unref();
  }

  /** Whether a session read from the store was ended by a logout held here. */
  covers({ record }: StoredSession): boolean {
    if (record.createdAt < this.#allBefore) return true;
    const before = this.#before.get(record.uid);
    return before !== undefined && record.createdAt < before;
  }

  async #retry(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      await this.#offer();
    } finally {
      this.#running = false;
    }
  }

  async #offer(): Promise<void> {
    const now = nowSeconds();
    if (this.#allBefore !== 0 && this.#allBefore + this.#maxAge <= now) this.#allBefore = 0;
    let offered = 0;
    for (const [uid, before] of this.#before) {
      if (before + this.#maxAge <= now) {
        this.#before.delete(uid);
        continue;
      }
      if (offered++ === RETRY_BATCH) break;
      try {
        await this.#sessions.destroyByUser(uid);
      } catch {
        // Still failing: the rest waits for the next retry.
        break;
      }
      // A logout that arrived meanwhile may have moved the entry on; it needs its own turn.
      if (this.#before.get(uid) === before) this.#before.delete(uid);
    }
    if (this.#before.size === 0 && this.#allBefore === 0) {
      clearInterval(this.#retrying);
      this.#retrying = undefined;
    }
  }
}

const registry = new WeakMap<SessionStore, PendingLogouts>();

/**
 * The pending logouts of one session store, shared by every router and guard built on it,
 * so that a logout refused through one is honoured by all.
 */
export function pendingLogouts(store: SessionStore, guarded: SessionStore, absoluteTimeout: number): PendingLogouts {
  let pending = registry.get(store);
  if (pending === undefined) {
    pending = new PendingLogouts(guarded, absoluteTimeout);
    registry.set(store, pending);
  }
  return pending;
}
