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

/**
 * Options of {@link memorySessionStore}.
 *
 * @example
 * ```ts
 * const sessionStore = memorySessionStore({ maxSessions: 10_000, sweepIntervalSeconds: 60 });
 * ```
 */
export interface MemorySessionStoreOptions {
  /**
   * The most sessions kept at once, so the map cannot grow without bound. When full (and
   * no session has expired), a new session is refused: `create` rejects with a
   * {@link SessionAuthError} `ERR_STORE_FULL`, answered with a 503 and a
   * `store.full` event. No one's session is ended to make room: one account logging in
   * again and again must not log other users out. The `maxSessionsPerUser` option keeps
   * any one user to a small share.
   * @default 100000
   */
  maxSessions?: number;
  /**
   * How often expired sessions are swept, in seconds. The sweep walks the map in slices
   * and yields to the event loop between them, so it never blocks for long.
   * @default 60
   */
  sweepIntervalSeconds?: number;
}

/**
 * A {@link SessionStore} that also lets tests and shutdown code stop its sweep timer.
 *
 * @example
 * ```ts
 * const sessionStore = memorySessionStore();
 * process.once("SIGTERM", () => sessionStore.close()); // stops the sweep timer
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

// Sessions looked at between yields: about 2-3 ms of work on a slow core.
const SWEEP_SLICE = 1000;
const INTERN_LIMIT = 1024;

/**
 * An in-process session store: a `Map` keyed by the hashed session id, with a per-user
 * index for logout-everywhere and session lists. For one process only: sessions vanish on
 * restart and are not shared between instances (use the Redis store for that).
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
  // Most users hold one session: the index keeps its handle itself, and a small array (far
  // lighter than a Set) only from the second on. Removal scans that user's sessions only.
  const byUser = new Map<string, string | string[]>();
  // Many sessions share an address or a user agent; one copy of each saves heap. Two
  // tables, so that addresses, which are often all different, never push the user agents out.
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
    // Keys, not entries: no [key, value] pair allocated per session, so the sweep adds no garbage.
    for (const handle of sessions.keys()) {
      const record = sessions.get(handle);
      if (record !== undefined && record.expiresAt <= now && remove(handle)) removed += 1;
      if (++seen % SWEEP_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return removed;
  }

  // While full with nothing expired, no scan can free a slot before the soonest expiry:
  // until then a new session is refused without walking every session again.
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
  return answeredInProcess(store);
}

/**
 * A record as the store keeps it: the six fields in one fixed order, so every record shares
 * one hidden class and no caller's extra properties are kept.
 */
function stored(record: SessionRecord, lastSeenAt: number, expiresAt: number, ip: string, userAgent: string): SessionRecord {
  return { uid: record.uid, createdAt: record.createdAt, lastSeenAt, expiresAt, ip, userAgent };
}

/** The longest value the intern tables hold: a user agent as the lifecycle cuts it. */
const INTERN_MAX_LENGTH = 256;

/**
 * A bounded table of strings that hands back the copy it already holds of an equal string,
 * so equal values share one copy in the heap. Two generations of at most `limit` each: when
 * the newer one fills it becomes the older and the oldest is dropped, and a value met again in
 * the older one moves to the newer, so values in steady use survive a stream of one-offs
 * instead of being dropped with them and copied afresh. A value met for the first time is
 * kept as a copy of its own, see {@link ownCopy}.
 */
function internTable(limit: number): (value: string) => string {
  let recent = new Map<string, string>();
  let older = new Map<string, string>();
  return (value) => {
    // A long value (a forged X-Forwarded-For address behind a trusted proxy) is not shared
    // and must not stay after its session: kept as the session's own copy only.
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

/**
 * An equal string that shares no memory with another. A user agent cut to 256 characters with
 * `slice` is, in V8, a view into the whole header it was cut from: kept as it is, a session
 * would hold up to a 16 KB header instead of 256 characters. The JSON round trip is lossless
 * (a lone surrogate is escaped and read back) and runs only for values not already held.
 */
function ownCopy(value: string): string {
  return JSON.parse(JSON.stringify(value)) as string;
}
