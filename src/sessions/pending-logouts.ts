import type { SessionStore, StoredSession } from "../types.js";
import { nowSeconds } from "../clock.js";

/** How often logouts the store refused are offered to it again. */
const RETRY_MS = 5000;
/** Logouts offered to the store in one retry, once the first has gone through. */
const RETRY_BATCH = 100;
/** Users with a logout held here at once; past it, see {@link PendingLogouts.add}. */
const MAX_USERS = 10_000;
/** Buckets of users beyond {@link MAX_USERS}: a logout there also refuses the sessions of 1/65,536 of the other users. */
const BUCKETS = 65_536;

/** Logouts the store could not record, held here and retried so their sessions stay ended (docs/security.md#limits-and-what-a-client-sees-at-each). */
export class PendingLogouts {
  /** uid → sessions of that user created before this second are ended. */
  readonly #before = new Map<string, number>();
  /** Past {@link MAX_USERS}, per bucket of uids: sessions created before this second are ended (256 KiB, made when needed). */
  #buckets: Uint32Array | undefined;
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

  /** Holds a refused logout; past the bound, for the user's bucket (a few other users' older sessions too, never the site). */
  add({ record }: StoredSession): void {
    const before = record.createdAt + 1;
    if (this.#before.has(record.uid) || this.#before.size < MAX_USERS) {
      this.#before.set(record.uid, Math.max(this.#before.get(record.uid) ?? 0, before));
      this.#retrying ??= setInterval(() => void this.#retry(), RETRY_MS);
      this.#retrying.unref();
      return;
    }
    this.#buckets ??= new Uint32Array(BUCKETS);
    const bucket = bucketOf(record.uid);
    this.#buckets[bucket] = Math.max(this.#buckets[bucket]!, before);
  }

  /** Whether a session read from the store was ended by a logout held here. */
  covers({ record }: StoredSession): boolean {
    if (this.#buckets !== undefined && record.createdAt < this.#buckets[bucketOf(record.uid)]!) return true;
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
    if (this.#before.size === 0) {
      clearInterval(this.#retrying);
      this.#retrying = undefined;
    }
  }
}

/** FNV-1a over the uid's UTF-16 code units: spread, cheap, and the same in every process. */
function bucketOf(uid: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) hash = Math.imul(hash ^ uid.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}
