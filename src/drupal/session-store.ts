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

/**
 * Options of {@link drupal7SessionStore}.
 *
 * @example
 * ```ts
 * const sessionStore = drupal7SessionStore({ pool, scheme: "https", prefix: "" });
 * ```
 */
export interface Drupal7SessionStoreOptions extends Drupal7DatabaseOptions {
  /**
   * How the Drupal site is served to its logged-in users, as Drupal sees it (`$is_https`):
   * `"https"` (the `SSESS…` cookie; behind a TLS proxy, settings.php sets `$_SERVER['HTTPS']`)
   * or `"http"`. Drupal keys an HTTPS session on `ssid` as well as `sid`, so a row written
   * for the wrong scheme is not found by Drupal. `"mixed"`, Drupal's `$conf['https'] = TRUE`,
   * is refused.
   */
  scheme: "https" | "http" | "mixed";
  /**
   * Whether `sessions.sid` holds `drupal_hash_base64(id)` (core 7.98 and later) or the raw
   * id. `"auto"` asks the `variable` table as `drupal_session_id()` does
   * (`hashed_session_ids_supported`, `do_not_hash_session_ids`); settings.php is out of its
   * sight, so a site with `$conf['do_not_hash_session_ids'] = TRUE` there must say `false`.
   * @default "auto"
   */
  hashedSids?: boolean | "auto";
  /**
   * PHP's `session.gc_maxlifetime` on the Drupal site (settings.php sets 200000): Drupal's
   * garbage collection deletes a row this long after its `timestamp`. The store forgets a
   * session then too (plus the ten-minute expiry grace), so Node never serves what Drupal may
   * delete at any moment. Keep `idleTimeout` at most this.
   * @default 200000
   */
  gcMaxLifetime?: number;
  /**
   * Whether the session's account is read in the same query, from this database's `users`
   * table (and its `access` moved on each timestamp write, as Drupal's session write does).
   * Leave it on when the user store is `drupal7UserStore` over the same database; turn it off
   * when accounts come from somewhere else.
   * @default true
   */
  joinUsers?: boolean;
}

/**
 * A {@link SessionStore} whose every operation can be awaited to have read Drupal's settings.
 *
 * @example
 * ```ts
 * const sessionStore = drupal7SessionStore({ pool, scheme: "https" });
 * await sessionStore.ready; // fails fast on a mixed-mode site or an unreachable database
 * ```
 */
export interface Drupal7SessionStore extends SessionStore {
  /**
   * Settles once the store has read the site's session settings (one query, started by the
   * factory) and found the sessions table free of mixed-mode rows. Await it at start-up:
   * a rejection says what is wrong. A failure to reach the database is retried by the next
   * call; a refusal (mixed-mode HTTPS) fails every call until the process restarts.
   */
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
 * A {@link SessionStore} over Drupal 7's own `sessions` table, so that a Drupal site and an app
 * on this package share one set of sessions during a gradual move (docs/running-beside-drupal-7.md):
 * a session started on either side is one row that both read, a logout on either side deletes it,
 * and the ids are Drupal's own shape (43 base64url characters, 256 bits), so Drupal's CSRF
 * tokens (`drupal7CsrfToken`) are valid on both.
 *
 * A session started here is the row Drupal's session handler writes: `sid` (hashed as
 * `drupal_session_id()` does), `ssid` for an HTTPS site, `uid`, `hostname`, `timestamp`,
 * `cache` 0, and a `$_SESSION` holding one entry, `services_session_auth`, where the store
 * keeps what Drupal has no column for (creation time, user agent, login address). Drupal
 * reads that entry and writes it back with the rest of `$_SESSION`. `timestamp` is the
 * record's `lastSeenAt`, which a request on either side moves; the session's idle and
 * absolute timeouts apply on top of Drupal's garbage collection, and a session Drupal
 * started gets the entry (its creation time taken as its first sign of life) the first time
 * it is read here.
 *
 * A protected GET costs one query (the session row joined to its account and roles) and no
 * write until `touchInterval` has passed; a touch is one UPDATE of the row (and the
 * account's `access`). Rows of anonymous visitors (uid 0) are no session here.
 *
 * @example
 * ```ts
 * import mysql from "mysql2/promise";
 * import { drupal7CsrfToken, drupal7Hasher, drupal7SessionStore, drupal7UserStore, readDrupal7PrivateKey } from "services-session-auth/drupal";
 *
 * const pool = mysql.createPool(process.env.DRUPAL_DB_URL!);
 * const sessionStore = drupal7SessionStore({ pool, scheme: "https" });
 * await sessionStore.ready;
 * createSessionAuthRouter({
 *   userStore: drupal7UserStore({ pool, parallelRun: true }),
 *   sessionStore,
 *   hasher: drupal7Hasher(),
 *   csrfToken: drupal7CsrfToken({ privateKey: await readDrupal7PrivateKey({ pool }), hashSalt: process.env.DRUPAL_HASH_SALT! }),
 *   secret: process.env.SESSION_SECRET!,
 * });
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
      if (first === undefined) return null;
      const user: UserRecord | null | undefined = joinUsers ? (recordsOf(rows as UserRow[])[0] ?? null) : undefined;
      const found = toStored(first, handle, nowSeconds(), user?.login ?? 0);
      if (found === null) return null;
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
