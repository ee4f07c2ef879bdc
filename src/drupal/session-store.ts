import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { EXPIRY_GRACE } from "../sessions/sessions.js";
import { createSessionId, hashSessionId, isSessionIdShape } from "../sessions/session-id.js";
import { parseOptions } from "../validate.js";
import type { SessionRecord, SessionStore, StoredSession, UserRecord } from "../types.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import { hasMixedModeRows, isMixedModeRow, MIXED_MODE_REFUSED, readSessionFacts } from "./session-facts.js";
import { newSessionData, readMeta, tagOf, withMeta, type SessionMeta } from "./session-meta.js";
import { SESSION_COLUMNS, sessionStatements } from "./session-statements.js";
import { recordsOf, type UserRow } from "./user-rows.js";

const optionsSchema = z.strictObject({
  ...databaseOptionFields,
  scheme: z.enum(["https", "http", "mixed"]).refine((value) => value !== "mixed", { message: MIXED_MODE_REFUSED }),
  hashedSids: z.union([z.boolean(), z.literal("auto")]).optional(),
  gcMaxLifetime: z.number().int().positive().optional(),
  joinUsers: z.boolean().optional(),
});

/** A uid as Drupal writes one: a positive decimal that fits its unsigned INT column. */
const UID_PATTERN = /^[1-9]\d{0,9}$/;

/** Handles whose `sid` and last known span this process remembers: enough for every session in use, bounded. */
const REMEMBERED = 10_000;

/** Options of {@link drupal7SessionStore}. */
export interface Drupal7SessionStoreOptions extends Drupal7DatabaseOptions {
  /** How Drupal serves logged-in users (`$is_https`): rows of the wrong scheme are invisible to Drupal; `"mixed"` is refused. */
  scheme: "https" | "http" | "mixed";
  /**
   * Whether `sessions.sid` holds `drupal_hash_base64(id)` (core 7.98+); `"auto"` reads the
   * `variable` table, which cannot see settings.php's `do_not_hash_session_ids` (say `false` then).
   * @default "auto"
   */
  hashedSids?: boolean | "auto";
  /**
   * PHP's `session.gc_maxlifetime` on the Drupal site: a session is forgotten when Drupal's GC
   * may delete it. Keep `idleTimeout` at most this.
   * @default 200000
   */
  gcMaxLifetime?: number;
  /**
   * Whether the account is read in the same query from this database's `users` (moving its
   * `access` as Drupal does); off when accounts come from elsewhere.
   * @default true
   */
  joinUsers?: boolean;
}

/** A {@link SessionStore} whose every operation can be awaited to have read Drupal's settings. */
export interface Drupal7SessionStore extends SessionStore {
  /** Settles once Drupal's settings are read and no mixed-mode row is found; a database failure is retried, a refusal is final. */
  readonly ready: Promise<void>;
}

/** The session row of a read, in the columns the statements name. */
type ReadRow = Record<string, unknown>;

/** A blob column as bytes: `bytea` and BLOB both come back as a Buffer; NULL is empty. */
function bytesOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  return typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.alloc(0);
}

function text(value: unknown): string {
  return value === null || value === undefined ? "" : Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
}

/** An error that no retry can mend: the site is configured in a way the store refuses. */
class Refused extends Error {}

/**
 * A {@link SessionStore} over Drupal 7's own `sessions` table, so Drupal and the app share one
 * set of sessions (ids, rows, CSRF tokens) during a gradual move. The row layout, timestamps and
 * cost (one query per protected GET): docs/running-beside-drupal-7.md#what-each-side-keeps-in-the-row.
 *
 * @example
 * ```ts
 * const sessionStore = drupal7SessionStore({ pool, scheme: "https" });
 * await sessionStore.ready; // fails fast on a mixed-mode site or an unreachable database
 * ```
 * @throws TypeError when an option is invalid (`scheme: "mixed"` among them) or the pool's dialect cannot be told.
 */
export function drupal7SessionStore(options: Drupal7SessionStoreOptions): Drupal7SessionStore {
  const parsed = parseOptions(optionsSchema, options, "drupal7SessionStore");
  const { scheme, hashedSids: setting = "auto", gcMaxLifetime = 200_000, joinUsers = true } = parsed;
  const db = drupal7Database(parsed, "drupal7SessionStore");
  const sql = sessionStatements(db, joinUsers);
  // How long after `timestamp` a session may still be read: Drupal's GC horizon, and the grace in which the lifecycle reports an expiry.
  const horizon = gcMaxLifetime + EXPIRY_GRACE;
  /** Per handle: its `sid` (a raw-id site cannot compute it) and the span last read or written. */
  const remembered = new Map<string, { readonly sid: string; readonly span: number | undefined }>();
  const remember = (handle: string, sid: string, span: number | undefined) => {
    remembered.delete(handle);
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(handle, { sid, span });
  };
  /** Per handle `get` just found no session for: whether its row was an anonymous visitor's, so `heldElsewhere` sends no second query. */
  const unserved = new Map<string, boolean>();
  const noted = (handle: string, anonymous: boolean): null => {
    if (unserved.size >= REMEMBERED) unserved.clear();
    unserved.set(handle, anonymous);
    return null;
  };

  let settled: Promise<boolean> | undefined;
  /** Whether sids are hashed, read once (with the refusal checks); a failed read is tried again by the next call. */
  function hashedSids(): Promise<boolean> {
    settled ??= (async () => {
      const facts = await readSessionFacts(db);
      if (facts.mixedModeHttps) throw new Refused(`drupal7SessionStore: the variable https is TRUE: ${MIXED_MODE_REFUSED}`);
      if (await hasMixedModeRows(db)) throw new Refused(`drupal7SessionStore: sessions has rows written under mixed-mode HTTPS: ${MIXED_MODE_REFUSED}`);
      return setting === "auto" ? facts.hashedSids : setting;
    })().catch((error: unknown) => {
      if (!(error instanceof Refused)) settled = undefined;
      throw error;
    });
    return settled;
  }
  const ready = hashedSids().then(() => undefined);
  // The app may never await it: its failure must not be an unhandled rejection (every call reports it again).
  ready.catch(() => undefined);

  /** The `sid` of a handle: the handle itself on a hashed-id site; else the one remembered, or found by a scan. */
  async function sidOf(handle: string): Promise<string | null> {
    if (!isSessionIdShape(handle)) return null;
    if (await hashedSids()) return handle;
    const known = remembered.get(handle);
    if (known !== undefined) return known.sid;
    const [row] = await db.select<{ sid: unknown }>(sql.sidOfHandle, [handle]);
    return row === undefined ? null : text(row.sid);
  }

  /** The record of a row, with what the entry adds; `null` for a row that is no session of this store. */
  function toStored(row: ReadRow, handle: string, now: number, login: number): { stored: StoredSession; meta: SessionMeta | null; data: Buffer } | null {
    const c = SESSION_COLUMNS;
    const sid = text(row[c.sid]);
    if (isMixedModeRow(sid, text(row[c.ssid])))
      throw new Refused(`drupal7SessionStore: a session row was written under mixed-mode HTTPS: ${MIXED_MODE_REFUSED}`);
    const uid = text(row[c.uid]);
    // An anonymous visitor's session (a cart, a message for the next page) is Drupal's alone.
    if (!UID_PATTERN.test(uid)) return null;
    const timestamp = Number(row[c.timestamp]);
    const data = bytesOf(row[c.session]);
    const meta = readMeta(data, handle);
    const expiresAt = timestamp + Math.min(meta?.span ?? horizon, horizon);
    if (!Number.isSafeInteger(timestamp) || expiresAt <= now) return null;
    const record: SessionRecord = {
      uid,
      // Drupal keeps no creation time: a session it started is as old as its last login, at most.
      createdAt: meta?.createdAt ?? (login > 0 ? Math.min(timestamp, login) : timestamp),
      lastSeenAt: timestamp,
      expiresAt,
      ip: meta?.ip ?? text(row[c.hostname]),
      userAgent: meta?.userAgent ?? "",
    };
    return { stored: { handle, record }, meta, data };
  }

  /** Gives a session Drupal started the entry, once: compare-and-set, so `$_SESSION` written meanwhile by Drupal is never lost. */
  async function adopt(handle: string, sid: string, data: Buffer, meta: SessionMeta): Promise<void> {
    const next = withMeta(data, meta);
    if (next !== null && (await db.write(sql.swapData, [next, sid, data])) > 0) remember(handle, sid, meta.span);
  }

  async function rewriteSpan(handle: string, sid: string, span: number): Promise<void> {
    // Two tries: a Drupal request that wrote $_SESSION in between is read again, never overwritten.
    for (let attempt = 0; attempt < 2; attempt++) {
      const [row] = await db.select<Record<string, unknown>>(sql.data, [sid]);
      if (row === undefined) return;
      const data = bytesOf(row.session);
      const meta = readMeta(data, handle) ?? { tag: tagOf(handle), createdAt: Number(row.timestamp), span, userAgent: "", ip: text(row.hostname) };
      const next = withMeta(data, { ...meta, span });
      if (next === null) return;
      if ((await db.write(sql.swapData, [next, sid, data])) > 0) {
        remember(handle, sid, span);
        return;
      }
    }
  }

  async function destroy(handle: string): Promise<void> {
    const sid = await sidOf(handle);
    remembered.delete(handle);
    if (sid !== null) await db.write(sql.delete, [sid]);
  }

  return {
    ready,
    async create(record) {
      if (!UID_PATTERN.test(record.uid))
        throw new TypeError(`drupal7SessionStore: a session's uid must be a Drupal uid above 0, not ${JSON.stringify(record.uid)}`);
      const hashed = await hashedSids();
      // drupal_random_key()'s shape: Drupal accepts the id as one of its own.
      const sessid = createSessionId();
      const handle = hashSessionId(sessid);
      const sid = hashed ? handle : sessid;
      const span = record.expiresAt - record.lastSeenAt;
      const data = newSessionData({ tag: tagOf(handle), createdAt: record.createdAt, span, userAgent: record.userAgent, ip: record.ip });
      // _drupal_session_write(): ssid is the id too over HTTPS, empty over HTTP.
      await db.write(sql.insert, [Number(record.uid), sid, scheme === "https" ? sid : "", record.ip.slice(0, 128), record.lastSeenAt, data]);
      remember(handle, sid, span);
      return sessid;
    },
    async get(sessid) {
      if (!isSessionIdShape(sessid)) return null;
      const handle = hashSessionId(sessid);
      const sid = (await hashedSids()) ? handle : sessid;
      const rows = await db.select<ReadRow>(sql.read, [sid]);
      const first = rows[0];
      if (first === undefined) return noted(handle, false);
      const user: UserRecord | null | undefined = joinUsers ? (recordsOf(rows as UserRow[])[0] ?? null) : undefined;
      const found = toStored(first, handle, nowSeconds(), user?.login ?? 0);
      if (found === null) return noted(handle, !UID_PATTERN.test(text(first[SESSION_COLUMNS.uid])));
      const { stored, meta, data } = found;
      remember(handle, sid, meta?.span);
      if (meta === null && (user === undefined || user?.active === true)) {
        await adopt(handle, sid, data, { tag: tagOf(handle), createdAt: stored.record.createdAt, span: horizon, userAgent: "", ip: stored.record.ip });
      }
      return user === undefined ? stored : { ...stored, user };
    },
    async touch(handle, lastSeenAt, expiresAt) {
      if (expiresAt <= nowSeconds()) return destroy(handle);
      const sid = await sidOf(handle);
      if (sid === null) return;
      const span = expiresAt - lastSeenAt;
      // The span changes only near the absolute deadline: most touches write the timestamp alone.
      if (remembered.get(handle)?.span !== span) await rewriteSpan(handle, sid, span);
      await db.write(...sql.touch(lastSeenAt, sid));
    },
    destroy,
    // An anonymous visitor's session (a cart) is Drupal's: its cookie is not the app's to delete.
    async heldElsewhere(sessid) {
      if (!isSessionIdShape(sessid)) return false;
      const handle = hashSessionId(sessid);
      const known = unserved.get(handle);
      unserved.delete(handle);
      return known ?? (await db.select(sql.anonymous, [(await hashedSids()) ? handle : sessid])).length > 0;
    },
    async listByUser(uid) {
      if (!UID_PATTERN.test(uid)) return [];
      const hashed = await hashedSids();
      const now = nowSeconds();
      const listed: StoredSession[] = [];
      for (const row of await db.select<ReadRow>(sql.list, [Number(uid)])) {
        const sid = text(row[SESSION_COLUMNS.sid]);
        if (!isSessionIdShape(sid)) continue;
        const handle = hashed ? sid : hashSessionId(sid);
        const found = toStored(row, handle, now, Number(row[SESSION_COLUMNS.login] ?? 0));
        if (found === null) continue;
        remember(handle, sid, found.meta?.span);
        listed.push(found.stored);
      }
      return listed.sort((a, b) => a.record.createdAt - b.record.createdAt);
    },
    async destroyByUser(uid) {
      if (!UID_PATTERN.test(uid)) return 0;
      await hashedSids();
      // drupal_session_destroy_uid().
      return db.write(sql.deleteByUser, [Number(uid)]);
    },
  };
}
