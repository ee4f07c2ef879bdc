import type { SessionStore, StoredSession } from "../types.js";
import { nowSeconds } from "../clock.js";

/** How often logouts the store refused are offered to it again. */
const RETRY_MS = 5000;
/** Users whose held logouts are offered in one retry, once the first has gone through. */
const RETRY_BATCH = 100;
/** Users with a logout held here at once; past it, see {@link PendingLogouts.add}. */
const MAX_USERS = 10_000;
/** Sessions held by handle per user; past it, the user's sessions up to the newest held are covered by age. */
const MAX_HANDLES = 32;
/** Buckets of users beyond {@link MAX_USERS}: a logout there also refuses the sessions of 1/65,536 of the other users. */
const BUCKETS = 65_536;

/** One user's held logouts: the sessions by handle, and past {@link MAX_HANDLES}, every session created before a second. */
interface HeldUser {
  readonly handles: Set<string>;
  /** Sessions created before this second are covered too (0: none by age). */
  olderThan: number;
  /** When the last of them would have expired anyway: then nothing is left to hold. */
  expiresAt: number;
}

/**
 * Logouts the store could not record, held here and retried so their sessions stay ended
 * (docs/security.md#limits-and-what-a-client-sees-at-each). A retry ends exactly the sessions held,
 * never one opened since: a user who logs in again once the store is back keeps that session.
 */
export class PendingLogouts {
  readonly #held = new Map<string, HeldUser>();
  /** Past {@link MAX_USERS}, per bucket of uids: sessions created before this second are ended (256 KiB, made when needed). */
  #buckets: Uint32Array | undefined;
  #retrying: ReturnType<typeof setInterval> | undefined;
  #running = false;
  readonly #sessions: SessionStore;

  constructor(sessions: SessionStore) {
    this.#sessions = sessions;
  }

  /** Users with a logout held now. */
  get size(): number {
    return this.#held.size;
  }

  /** Holds a refused logout; past the bound, for the user's bucket (a few other users' older sessions too, never the site). */
  add({ handle, record }: StoredSession): void {
    let held = this.#held.get(record.uid);
    if (held === undefined && this.#held.size < MAX_USERS) this.#held.set(record.uid, (held = { handles: new Set(), olderThan: 0, expiresAt: 0 }));
    if (held === undefined) {
      this.#buckets ??= new Uint32Array(BUCKETS);
      const bucket = bucketOf(record.uid);
      this.#buckets[bucket] = Math.max(this.#buckets[bucket]!, record.createdAt + 1);
      return;
    }
    if (held.handles.size < MAX_HANDLES) held.handles.add(handle);
    else held.olderThan = Math.max(held.olderThan, record.createdAt + 1);
    held.expiresAt = Math.max(held.expiresAt, record.expiresAt);
    this.#retrying ??= setInterval(() => void this.#retry(), RETRY_MS);
    this.#retrying.unref();
  }

  /** Whether a session read from the store was ended by a logout held here. */
  covers({ handle, record }: StoredSession): boolean {
    if (this.#buckets !== undefined && record.createdAt < this.#buckets[bucketOf(record.uid)]!) return true;
    const held = this.#held.get(record.uid);
    return held !== undefined && (held.handles.has(handle) || record.createdAt < held.olderThan);
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
    let offered = 0;
    for (const [uid, held] of this.#held) {
      if (held.expiresAt <= now) {
        this.#held.delete(uid);
        continue;
      }
      if (offered++ === RETRY_BATCH) break;
      try {
        await this.#end(uid, held);
      } catch {
        // Still failing: the rest waits for the next retry.
        break;
      }
      if (held.handles.size === 0 && held.olderThan === 0) this.#held.delete(uid);
    }
    if (this.#held.size === 0) {
      clearInterval(this.#retrying);
      this.#retrying = undefined;
    }
  }

  /** Ends what is held for a user, and nothing else: each session by handle, then those older than the cut by listing. */
  async #end(uid: string, held: HeldUser): Promise<void> {
    for (const handle of held.handles) {
      await this.#sessions.destroy(handle);
      held.handles.delete(handle);
    }
    if (held.olderThan === 0) return;
    const olderThan = held.olderThan;
    for (const session of await this.#sessions.listByUser(uid)) {
      if (session.record.createdAt < olderThan) await this.#sessions.destroy(session.handle);
    }
    // A logout held meanwhile may have moved the cut on; it needs its own turn.
    if (held.olderThan === olderThan) held.olderThan = 0;
  }
}

/** FNV-1a over the uid's UTF-16 code units: spread, cheap, and the same in every process. */
function bucketOf(uid: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) hash = Math.imul(hash ^ uid.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}
