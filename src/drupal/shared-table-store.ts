import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { EXPIRY_GRACE } from "../sessions/sessions.js";
import { createSessionId, hashSessionId } from "../sessions/session-id.js";
import { parseOptions } from "../validate.js";
import type { SessionRecord, SessionStore, SessionStoreContext, StoredSession, UserRecord } from "../types.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import { readSessionVariables } from "./session-variables.js";
import { sweeper, sweepInBatches, type Sweeper } from "./sweeper.js";
import { metaAtHead, metaIn, newSessionData, tagOf, type SessionMeta } from "./shared-table-own-entry.js";
import { bytesOf, sessionEntryWrites, text, type CarriedFrom } from "./shared-table-data-writes.js";
import { SESSION_COLUMNS, sessionStatements, type RowKey, type SessionColumn } from "./shared-table-sql.js";
import { recordsOf, type UserRow } from "./user-rows.js";

const optionsSchema = z.strictObject({
  ...databaseOptionFields,
  scheme: z
    .enum(["https", "http", "mixed"])
    .refine((value) => value !== "mixed", { message: "mixed-mode HTTPS needs no setting: each request's own scheme decides, as Drupal's $is_https does" })
    .optional(),
  hashedSids: z.union([z.boolean(), z.literal("auto")]).optional(),
  gcMaxLifetime: z.number().int().positive().optional(),
  joinUsers: z.boolean().optional(),
  gcInterval: z.number().nonnegative().optional(),
  gcBatch: z.number().int().positive().max(100_000).optional(),
});

/** A uid as Drupal writes one: a positive decimal that fits its unsigned INT column. */
const UID_PATTERN = /^[1-9]\d{0,9}$/;

/** A session id PHP and Drupal may have kept: a cookie value of session-id characters (base64url, and PHP's `,`). */
const PHP_SESSION_ID = /^[\w,-]{1,256}$/;

/** Handles whose `sid` and last known span this process remembers: enough for every session in use, bounded. */
const REMEMBERED = 10_000;

/** Options of {@link drupal7SessionStore}. */
export interface Drupal7SessionStoreOptions extends Drupal7DatabaseOptions {
  /**
   * The scheme of calls that carry no request (a script's own `get` or `create`); a request's own
   * scheme decides otherwise, as Drupal's `$is_https` does: over HTTPS rows are read by `ssid`
   * and written with `ssid = sid`, over HTTP read by `sid` and written with `ssid = ''`.
   * @default "https" (a row Drupal reads over both schemes)
   */
  scheme?: "https" | "http";
  /**
   * Whether `sessions.sid` holds `drupal_hash_base64(id)` (core 7.98+); `"auto"` reads the
   * `variable` table, which cannot see settings.php's `do_not_hash_session_ids` (say `false` then).
   * @default "auto"
   */
  hashedSids?: boolean | "auto";
  /**
   * PHP's `session.gc_maxlifetime` on the Drupal site: a session is forgotten when Drupal's GC
   * may delete it, and the store's own garbage collection deletes rows this long unused. Keep `idleTimeout` at most this.
   * @default 200000
   */
  gcMaxLifetime?: number;
  /**
   * Whether the account is read in the same query from this database's `users` (moving its
   * `access` as Drupal does); off when accounts come from elsewhere.
   * @default true
   */
  joinUsers?: boolean;
  /**
   * Seconds between two sweeps of the store's garbage collection (each instance at a random
   * offset, the first within a minute of the start), which deletes rows unused for
   * `gcMaxLifetime` as Drupal's does; `0` turns it off.
   * @default 900
   */
  gcInterval?: number;
  /**
   * The most rows one statement of a sweep deletes (a sweep runs at most ten).
   * @default 1000
   */
  gcBatch?: number;
}

/** A {@link SessionStore} over Drupal's `sessions`, with what it adds. */
export interface Drupal7SessionStore extends SessionStore {
  /** Settles once Drupal's settings are read; a database that does not answer is asked again (it never rejects). */
  readonly ready: Promise<void>;
  /** Deletes rows unused for `gcMaxLifetime`, at most ten batches of `gcBatch`; resolves how many. What each sweep runs. */
  collectGarbage(): Promise<number>;
  /** Stops the periodic garbage collection (an app that ends, a test). */
  close(): void;
}

/** The session row of a read, in the columns the statements name. */
type ReadRow = Record<string, unknown>;

/** What `get` learnt of a handle it found no session for, so `heldElsewhere` sends no second query. */
type Unserved =
  | { readonly kind: "none" }
  | { readonly kind: "anonymous"; readonly key: RowKey; readonly timestamp: number }
  | { readonly kind: "unserved"; readonly reason: string };

const NONE: Unserved = { kind: "none" };

/** The rows of one session among those a read found: the first of the form Drupal writes for the scheme (`ssid` empty over HTTP, the id over HTTPS). */
function oneSession(rows: readonly ReadRow[], column: SessionColumn): ReadRow[] {
  const c = SESSION_COLUMNS;
  const keyOf = (row: ReadRow) => `${text(row[c.sid])}\u0000${text(row[c.ssid])}`;
  const own = (row: ReadRow) => (column === "ssid" ? text(row[c.sid]) === text(row[c.ssid]) : text(row[c.ssid]) === "");
  const chosen = rows.find(own) ?? rows[0];
  return chosen === undefined ? [] : rows.filter((row) => keyOf(row) === keyOf(chosen));
}

/**
 * A {@link SessionStore} over Drupal 7's own `sessions` table, so Drupal and the app share one
 * set of sessions (ids, rows, CSRF tokens) during a gradual move: each request reads and writes
 * rows by Drupal's rules for its scheme, an anonymous visitor's row is left to Drupal (and
 * carried into the session a login over it starts), and rows unused past `gcMaxLifetime` are
 * collected. The row layout and cost (one query per protected GET):
 * docs/running-beside-drupal-7.md#what-each-side-keeps-in-the-row.
 *
 * @example
 * ```ts
 * const sessionStore = drupal7SessionStore({ pool, gcMaxLifetime: 200_000 });
 * await sessionStore.ready; // Drupal's settings read (hashed ids, the write interval)
 * ```
 * @throws TypeError when an option is invalid or the pool's dialect cannot be told.
 */
export function drupal7SessionStore(options: Drupal7SessionStoreOptions): Drupal7SessionStore {
  const parsed = parseOptions(optionsSchema, options, "drupal7SessionStore");
  const { scheme = "https", hashedSids: setting = "auto", gcMaxLifetime = 200_000, joinUsers = true, gcInterval = 900, gcBatch = 1000 } = parsed;
  const db = drupal7Database(parsed, "drupal7SessionStore");
  const sql = sessionStatements(db, joinUsers);
  const c = SESSION_COLUMNS;
  const { dataOf, writeMeta, spliceAtHead, carryOver } = sessionEntryWrites(db, sql);
  // How long after `timestamp` a session may still be read: Drupal's GC horizon, and the grace in which the lifecycle reports an expiry.
  const horizon = gcMaxLifetime + EXPIRY_GRACE;
  /** Per handle: the id its rows are keyed by (a raw-id site cannot compute it) and the span last read or written. */
  const remembered = new Map<string, { readonly id: string; readonly span: number | undefined }>();
  const remember = (handle: string, id: string, span: number | undefined) => {
    remembered.delete(handle);
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(handle, { id, span });
  };
  const unserved = new Map<string, Unserved>();
  const noted = (handle: string, note: Unserved): null => {
    if (unserved.size >= REMEMBERED) unserved.clear();
    unserved.set(handle, note);
    return null;
  };

  /** Drupal's settings, read once; a failed read is tried again by the next call. */
  let settled: Promise<{ hashed: boolean; writeInterval: number }> | undefined;
  function settings(): Promise<{ hashed: boolean; writeInterval: number }> {
    settled ??= readSessionVariables(db).then(
      (facts) => ({ hashed: setting === "auto" ? facts.hashedSids : setting, writeInterval: facts.sessionWriteInterval }),
      (error: unknown) => {
        settled = undefined;
        throw error;
      },
    );
    return settled;
  }
  const ready = whenRead(settings);

  /** The column a request's session is found by: Drupal's `$is_https` reads `ssid`. */
  const columnOf = (context: SessionStoreContext | undefined): SessionColumn => ((context?.secure ?? scheme === "https") ? "ssid" : "sid");
  /** The value an id is kept as in `sid` and `ssid`. */
  const stored = (hashed: boolean, sessid: string) => (hashed ? hashSessionId(sessid) : sessid);
  const ids = (column: SessionColumn, id: string) => (column === "either" ? [id, id] : [id]);
  /** What a login's request says a new session may carry, as stored ids (see {@link CarriedFrom}); none without a cookie that named no session. */
  const carriedFrom = (context: SessionStoreContext | undefined, hashed: boolean): CarriedFrom | undefined => {
    const replacing = context?.replacing;
    if (context === undefined || replacing === undefined || !PHP_SESSION_ID.test(replacing)) return undefined;
    const twin = context.insecureSessid;
    const secureTwin = context.secure && twin !== undefined && PHP_SESSION_ID.test(twin) ? stored(hashed, twin) : undefined;
    return { column: columnOf(context), replacing: stored(hashed, replacing), twin: secureTwin };
  };

  /** The tags an entry of this row may carry: of the id in `sid`, and in `ssid` (the other scheme's key of one session). */
  function tagsOf(row: ReadRow, hashed: boolean): string[] {
    return [text(row[c.sid]), text(row[c.ssid])].filter((id) => id !== "").map((id) => tagOf(hashed ? id : hashSessionId(id)));
  }

  /** The record of a row and its entry; `null` for a row past the horizon, which Drupal's GC may delete. */
  function recordOf(row: ReadRow, meta: SessionMeta | null, now: number, login: number): SessionRecord | null {
    const timestamp = Number(row[c.timestamp]);
    const expiresAt = timestamp + Math.min(meta?.span ?? horizon, horizon);
    if (!Number.isSafeInteger(timestamp) || expiresAt <= now) return null;
    return {
      uid: text(row[c.uid]),
      // Drupal keeps no creation time: a session it started is as old as its last login, at most.
      createdAt: meta?.createdAt ?? (login > 0 ? Math.min(timestamp, login) : timestamp),
      lastSeenAt: timestamp,
      expiresAt,
      ip: meta?.ip ?? text(row[c.hostname]),
      userAgent: meta?.userAgent ?? "",
    };
  }

  async function idOf(handle: string): Promise<string | null> {
    if (!PHP_SESSION_ID.test(handle)) return null;
    if ((await settings()).hashed) return handle;
    const known = remembered.get(handle);
    if (known !== undefined) return known.id;
    const [row] = await db.select<{ id: unknown }>(sql.idOfHandle, [handle, handle]);
    return row === undefined ? null : text(row.id);
  }

  /** A read session with what was found of its row, or why it is no session here. */
  function interpret(
    rows: readonly ReadRow[],
    handle: string,
    hashed: boolean,
  ): { stored: StoredSession; key: RowKey; meta: SessionMeta | null; head: Buffer; length: number; user: UserRecord | null | undefined } | Unserved {
    const first = rows[0]!;
    const key = { sid: text(first[c.sid]), ssid: text(first[c.ssid]) };
    const uid = text(first[c.uid]);
    // An anonymous visitor's session (a cart, a message for the next page) is Drupal's alone.
    if (!UID_PATTERN.test(uid))
      return uid === "0" ? { kind: "anonymous", key, timestamp: Number(first[c.timestamp]) } : { kind: "unserved", reason: `uid ${uid}` };
    const user: UserRecord | null | undefined = joinUsers ? (recordsOf(rows as UserRow[])[0] ?? null) : undefined;
    const head = bytesOf(first[c.head]);
    const length = Number(first[c.length] ?? 0);
    const meta = metaAtHead(head, tagsOf(first, hashed))?.meta ?? null;
    const record = recordOf(first, meta, nowSeconds(), user?.login ?? 0);
    if (record === null) return NONE;
    return { stored: { handle, record, ...(user === undefined ? {} : { user }), startedElsewhere: meta?.origin !== "here" }, key, meta, head, length, user };
  }

  async function destroy(handle: string): Promise<void> {
    const id = await idOf(handle);
    remembered.delete(handle);
    // Every row keyed by the id, whichever scheme wrote it: over HTTP Drupal deletes by sid, over HTTPS by ssid.
    if (id !== null) await db.write(sql.delete, [id, id]);
  }

  const collectGarbage = () => sweepInBatches(() => db.write(sql.collect, [nowSeconds() - gcMaxLifetime, gcBatch]), gcBatch);
  const sweeping: Sweeper | undefined = gcInterval > 0 ? sweeper(collectGarbage, gcInterval) : undefined;

  return {
    ready,
    collectGarbage,
    close: () => sweeping?.stop(),
    async create(record, context) {
      if (!UID_PATTERN.test(record.uid))
        throw new TypeError(`drupal7SessionStore: a session's uid must be a Drupal uid above 0, not ${JSON.stringify(record.uid)}`);
      const { hashed } = await settings();
      // drupal_random_key()'s shape: Drupal accepts the id as one of its own.
      const sessid = createSessionId();
      const handle = hashSessionId(sessid);
      const id = hashed ? handle : sessid;
      const span = record.expiresAt - record.lastSeenAt;
      // _drupal_session_write(): ssid is the id too over HTTPS, empty over HTTP.
      const key = { sid: id, ssid: columnOf(context) === "ssid" ? id : "" };
      const meta: SessionMeta = { origin: "here", tag: tagOf(handle), createdAt: record.createdAt, span, userAgent: record.userAgent, ip: record.ip };
      const from = carriedFrom(context, hashed);
      const carried = from === undefined ? undefined : await carryOver(from, key, meta, record);
      if (carried !== true) {
        const data = carried ?? newSessionData(meta);
        await db.write(sql.insert, [Number(record.uid), key.sid, key.ssid, record.ip.slice(0, 128), record.lastSeenAt, data]);
      }
      remember(handle, id, span);
      return sessid;
    },
    async get(sessid, context) {
      if (!PHP_SESSION_ID.test(sessid)) return null;
      const handle = hashSessionId(sessid);
      const { hashed } = await settings();
      const id = hashed ? handle : sessid;
      const column = columnOf(context);
      const rows = oneSession(await db.select<ReadRow>(sql.read(column), ids(column, id)), column);
      if (rows.length === 0) return noted(handle, NONE);
      let found: ReturnType<typeof interpret>;
      try {
        found = interpret(rows, handle, hashed);
      } catch (error) {
        // A row no rule here can read is left to Drupal: no session, its cookie kept, the reason reported.
        return noted(handle, { kind: "unserved", reason: `unreadable row: ${(error as Error).message}` });
      }
      if ("kind" in found) return noted(handle, found);
      const { stored: session, key, head, length, user } = found;
      let { meta } = found;
      if (meta === null && (user === undefined || user?.active === true)) {
        // The entry is not first (or not there): the whole $_SESSION is read, once, and the entry found or given.
        const data = length > head.length ? await dataOf(key) : head;
        meta = data === undefined ? null : metaIn(data, tagsOf(rows[0]!, hashed));
        if (meta === null && data !== undefined) {
          const given: SessionMeta = {
            origin: "drupal",
            tag: tagOf(handle),
            createdAt: session.record.createdAt,
            span: horizon,
            userAgent: "",
            ip: session.record.ip,
          };
          if (await writeMeta(key, data, given)) meta = given;
        } else if (meta !== null) {
          const record = recordOf(rows[0]!, meta, nowSeconds(), user?.login ?? 0);
          if (record === null) return noted(handle, NONE);
          remember(handle, id, meta.span);
          return { ...session, record, startedElsewhere: meta.origin !== "here" };
        }
      }
      remember(handle, id, meta?.span);
      return session;
    },
    async touch(handle, lastSeenAt, expiresAt, context) {
      if (expiresAt <= nowSeconds()) return destroy(handle);
      const id = await idOf(handle);
      if (id === null) return;
      const column: SessionColumn = context === undefined ? "either" : columnOf(context);
      const span = expiresAt - lastSeenAt;
      // The span changes only near the absolute deadline: most touches write the timestamp alone.
      if (remembered.get(handle)?.span !== span) await rewriteSpan(handle, id, column, span);
      // An address the binding could not tell ("") leaves the last one written.
      await db.write(...sql.touch(column, id, lastSeenAt, context?.ip === "" ? undefined : context?.ip));
    },
    destroy,
    async heldElsewhere(sessid, context) {
      if (!PHP_SESSION_ID.test(sessid)) return false;
      const handle = hashSessionId(sessid);
      let note = unserved.get(handle);
      unserved.delete(handle);
      const { hashed, writeInterval } = await settings();
      if (note === undefined) {
        const [row] = await db.select<{ sid: unknown; ssid: unknown; timestamp: unknown }>(sql.anonymous(columnOf(context)), [stored(hashed, sessid)]);
        note = row === undefined ? NONE : { kind: "anonymous", key: { sid: text(row.sid), ssid: text(row.ssid) }, timestamp: Number(row.timestamp) };
      }
      if (note.kind === "unserved") return note.reason;
      if (note.kind === "anonymous") {
        // Drupal writes an anonymous row read by a request once per write interval: a visitor whose calls all come here keeps the cart.
        const now = nowSeconds();
        const ip = context?.ip === undefined || context.ip === "" ? null : context.ip.slice(0, 128);
        if (now - note.timestamp > writeInterval) await db.write(sql.refresh, [now, ip, note.key.sid, note.key.ssid, now - writeInterval]);
        return true;
      }
      // Over HTTPS, Drupal carries the plain-HTTP twin's anonymous row into the secure cookie's session: the cookie is not stale there.
      const twin = context?.insecureSessid;
      if (context?.secure !== true || twin === undefined || !PHP_SESSION_ID.test(twin)) return false;
      return (await db.select(sql.anonymous("sid"), [stored(hashed, twin)])).length > 0;
    },
    async listByUser(uid) {
      if (!UID_PATTERN.test(uid)) return [];
      const { hashed } = await settings();
      const now = nowSeconds();
      const listed: StoredSession[] = [];
      for (const row of await db.select<ReadRow>(sql.list, [Number(uid)])) {
        const sid = text(row[c.sid]);
        if (!PHP_SESSION_ID.test(sid)) continue;
        const handle = hashed ? sid : hashSessionId(sid);
        // The first bytes only: a session whose entry is not first counts as Drupal's, never one the cap ends.
        const meta = metaAtHead(bytesOf(row[c.head]), tagsOf(row, hashed))?.meta ?? null;
        const record = recordOf(row, meta, now, Number(row[c.login] ?? 0));
        if (record === null) continue;
        remember(handle, sid, meta?.span);
        listed.push({ handle, record, startedElsewhere: meta?.origin !== "here" });
      }
      return listed.sort((a, b) => a.record.createdAt - b.record.createdAt);
    },
    async destroyByUser(uid) {
      if (!UID_PATTERN.test(uid)) return 0;
      await settings();
      // drupal_session_destroy_uid().
      return db.write(sql.deleteByUser, [Number(uid)]);
    },
  };

  /** Writes a new span into the entry of every row keyed by the id (normally one), read from its first bytes where it is. */
  async function rewriteSpan(handle: string, id: string, column: SessionColumn, span: number): Promise<void> {
    const { hashed } = await settings();
    for (const row of await db.select<ReadRow>(sql.head(column), ids(column, id))) {
      const key = { sid: text(row[c.sid]), ssid: text(row[c.ssid]) };
      const head = bytesOf(row[c.head]);
      const tags = tagsOf(row, hashed);
      const whole = Number(row[c.length] ?? 0) <= head.length;
      const at = metaAtHead(head, tags);
      const data = at !== null || whole ? head : await dataOf(key);
      const meta = at?.meta ?? (data === undefined ? null : metaIn(data, tags));
      // No entry yet: the next read gives the session one.
      if (meta === null) continue;
      const next: SessionMeta = { ...meta, span };
      // Put back in place from the first bytes alone: the rest of $_SESSION is never read or sent.
      if (at !== null && !whole ? await spliceAtHead(key, head, at.end, next) : await writeMeta(key, data, next)) remember(handle, id, span);
    }
  }
}

/** A promise that resolves once `read` has succeeded, asking again after a failure (1 s, doubling to 30 s); it never rejects. */
function whenRead(read: () => Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    let wait = 1000;
    const attempt = () => {
      read().then(
        () => resolve(),
        () => {
          setTimeout(attempt, wait).unref?.();
          wait = Math.min(wait * 2, 30_000);
        },
      );
    };
    attempt();
  });
}
