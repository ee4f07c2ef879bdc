import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { answeredInProcess, processLocal } from "./process-local.js";
import { createSessionId, hashSessionId, isSessionIdShape } from "../sessions/session-id.js";
import { parseOptions } from "../validate.js";
import { SessionAuthError } from "../errors.js";
import type { SessionRecord, SessionStore, StoredSession } from "../types.js";

const optionsSchema = z.strictObject({
  maxSessions: z.number().int().positive().optional(),
  sweepIntervalSeconds: z.number().positive().optional(),
});

/** Options of {@link memorySessionStore}. */
export interface MemorySessionStoreOptions {
  /**
   * The most sessions kept at once: when full, a new one is refused (`ERR_STORE_FULL`, a 503),
   * never made room for by ending another's (docs/writing-a-store.md).
   * @default 100000
   */
  maxSessions?: number;
  /**
   * How often expired sessions are swept, in seconds (in slices, yielding between them).
   * @default 60
   */
  sweepIntervalSeconds?: number;
}

/**
 * A {@link SessionStore} whose sweep timer tests and shutdown code can stop.
 *
 * @example
 * ```ts
 * const sessionStore = memorySessionStore();
 * process.once("SIGTERM", () => sessionStore.close());
 * ```
 */
export interface MemorySessionStore extends SessionStore {
  /** How many sessions are held now (expired ones included until swept). */
  readonly size: number;
  /** Removes every expired session now; resolves how many were removed. */
  sweep(): Promise<number>;
  /** Stops the sweep timer. The store still works; expired records are then dropped only when read. */
  close(): void;
}

// Sessions looked at between yields: about 2-3 ms on a slow core.
const SWEEP_SLICE = 1000;
const INTERN_LIMIT = 1024;

/**
 * An in-process session store: a `Map` by hashed id with a per-user index. One process only:
 * sessions vanish on restart and are not shared (use Redis for that). Heap: docs/performance.md#the-memory-session-stores-heap.
 *
 * @example
 * ```ts
 * const sessionStore = memorySessionStore({ maxSessions: 50_000 });
 * ```
 * @throws TypeError when an option is out of range.
 */
export function memorySessionStore(options: MemorySessionStoreOptions = {}): MemorySessionStore {
  const { maxSessions = 100_000, sweepIntervalSeconds = 60 } = parseOptions(optionsSchema, options, "memorySessionStore");
  const sessions = new Map<string, SessionRecord>();
  // A lone handle per user, an array from the second on (docs/performance.md#the-memory-session-stores-heap).
  const byUser = new Map<string, string | string[]>();
  // Shared copies of addresses and agents, in separate tables so addresses never push agents out.
  const internAddress = internTable(INTERN_LIMIT);
  const internUserAgent = internTable(INTERN_LIMIT);

  function handlesOf(uid: string): readonly string[] {
    const handles = byUser.get(uid);
    return handles === undefined ? [] : typeof handles === "string" ? [handles] : [...handles];
  }

  function index(uid: string, handle: string): void {
    const handles = byUser.get(uid);
    if (handles === undefined) byUser.set(uid, handle);
    else if (typeof handles === "string") byUser.set(uid, [handles, handle]);
    else handles.push(handle);
  }

  function unindex(uid: string, handle: string): void {
    const handles = byUser.get(uid);
    if (handles === handle) byUser.delete(uid);
    else if (typeof handles === "object") {
      const at = handles.indexOf(handle);
      if (at !== -1) handles.splice(at, 1);
      if (handles.length === 1) byUser.set(uid, handles[0]!);
    }
  }

  function remove(handle: string): boolean {
    const record = sessions.get(handle);
    if (record === undefined) return false;
    sessions.delete(handle);
    unindex(record.uid, handle);
    return true;
  }

  async function sweep(): Promise<number> {
    const now = nowSeconds();
    let removed = 0;
    let seen = 0;
    // Keys, not entries: no pair allocated per session.
    for (const handle of sessions.keys()) {
      const record = sessions.get(handle);
      if (record !== undefined && record.expiresAt <= now && remove(handle)) removed += 1;
      if (++seen % SWEEP_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return removed;
  }

  // Full with nothing expired: nothing frees before the soonest expiry, so refuse without rescanning.
  let fullUntil = 0;

  function makeRoom(): void {
    if (sessions.size < maxSessions) return;
    const now = nowSeconds();
    if (now < fullUntil) throw full();
    let soonest = Infinity;
    for (const handle of sessions.keys()) {
      const { expiresAt } = sessions.get(handle)!;
      if (expiresAt <= now) remove(handle);
      else soonest = Math.min(soonest, expiresAt);
    }
    if (sessions.size < maxSessions) return;
    fullUntil = soonest;
    throw full();
  }

  function full(): SessionAuthError {
    return new SessionAuthError("ERR_STORE_FULL", `memorySessionStore holds its maxSessions (${maxSessions})`);
  }

  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void sweep().finally(() => {
      sweeping = false;
    });
  }, sweepIntervalSeconds * 1000);
  timer.unref();

  function live(handle: string, now = nowSeconds()): StoredSession | null {
    const record = sessions.get(handle);
    if (record === undefined) return null;
    if (record.expiresAt <= now) {
      remove(handle);
      return null;
    }
    return { handle, record };
  }

  /** `get` itself: the live session a cookie value names; junk is refused before any hashing. */
  function read(sessid: string, now = nowSeconds()): StoredSession | null {
    return isSessionIdShape(sessid) ? live(hashSessionId(sessid), now) : null;
  }

  function insert(handle: string, record: SessionRecord): void {
    remove(handle);
    makeRoom();
    sessions.set(handle, stored(record, record.lastSeenAt, record.expiresAt, internAddress(record.ip), internUserAgent(record.userAgent)));
    index(record.uid, handle);
  }

  const store: MemorySessionStore = {
    // Seen by this process only: a logout held here when the store fails is ended everywhere.
    processLocal: processLocal(),
    get size() {
      return sessions.size;
    },
    async create(record) {
      const sessid = createSessionId();
      insert(hashSessionId(sessid), record);
      return sessid;
    },
    async get(sessid) {
      return read(sessid);
    },
    async touch(handle, lastSeenAt, expiresAt) {
      const record = sessions.get(handle);
      if (record !== undefined) sessions.set(handle, stored(record, lastSeenAt, expiresAt, record.ip, record.userAgent));
    },
    async destroy(handle) {
      remove(handle);
    },
    async listByUser(uid) {
      const found: StoredSession[] = [];
      for (const handle of handlesOf(uid)) {
        const session = live(handle);
        if (session !== null) found.push(session);
      }
      return found.sort((a, b) => a.record.createdAt - b.record.createdAt);
    },
    async destroyByUser(uid) {
      let ended = 0;
      for (const handle of handlesOf(uid)) if (live(handle) !== null && remove(handle)) ended += 1;
      byUser.delete(uid);
      return ended;
    },
    async adopt(handle, record) {
      insert(handle, record);
    },
    sweep,
    close() {
      clearInterval(timer);
    },
  };
  return answeredInProcess(store, { session: (sessid) => read(sessid) });
}

/** A record in one fixed field order (one hidden class), without a caller's extra properties. */
function stored(record: SessionRecord, lastSeenAt: number, expiresAt: number, ip: string, userAgent: string): SessionRecord {
  return { uid: record.uid, createdAt: record.createdAt, lastSeenAt, expiresAt, ip, userAgent };
}

/** The longest value the intern tables hold: a user agent as the lifecycle cuts it. */
const INTERN_MAX_LENGTH = 256;

/** A bounded two-generation intern table: equal strings share one copy; first-seen ones are copied ({@link ownCopy}). */
function internTable(limit: number): (value: string) => string {
  let recent = new Map<string, string>();
  let older = new Map<string, string>();
  return (value) => {
    // A long value (a forged X-Forwarded-For) is not shared: the session's own copy only.
    if (value.length > INTERN_MAX_LENGTH) return ownCopy(value);
    const held = recent.get(value);
    if (held !== undefined) return held;
    const kept = older.get(value) ?? ownCopy(value);
    if (recent.size >= limit) {
      older = recent;
      recent = new Map();
    }
    recent.set(kept, kept);
    return kept;
  };
}

/** An equal string sharing no memory: a V8 `slice` of a 16 KB header would keep the header alive. */
function ownCopy(value: string): string {
  return JSON.parse(JSON.stringify(value)) as string;
}
