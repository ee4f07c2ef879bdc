import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { hashSessionId, isSessionIdShape } from "../sessions/session-id.js";
import { parseOptions } from "../validate.js";
import type { SessionStore, StoredSession } from "../types.js";
import { drupal7Database, sidEquals } from "./database.js";
import {
  handleFor,
  liveSessionsSql,
  resolveHashedSids,
  sessionOptionFields,
  toSessionRecord,
  type Drupal7SessionOptions,
  type SessionRow,
} from "./carry-over-rows.js";

const optionsSchema = z.strictObject({ ...sessionOptionFields });

/** Options of {@link drupal7SessionFallback}. */
export type Drupal7SessionFallbackOptions = Drupal7SessionOptions;

/**
 * Wraps a store so an unknown cookie is looked up once in Drupal 7's `sessions`: a live row is
 * adopted and **deleted from Drupal's table** (else a logout here could be undone by re-adoption;
 * `destroyByUser` deletes there too). See docs/migrating-from-drupal-7.md#3-carry-the-sessions-over.
 *
 * @example
 * ```ts
 * const sessionStore = drupal7SessionFallback(memorySessionStore(), { pool, hashedSids: true });
 * createSessionAuthRouter({ userStore, sessionStore, secret, csrfToken });
 * ```
 * @throws TypeError when an option is invalid or the store cannot `adopt`.
 */
export function drupal7SessionFallback(store: SessionStore, options: Drupal7SessionFallbackOptions): SessionStore {
  const parsed = parseOptions(optionsSchema, options, "drupal7SessionFallback");
  if (typeof store.adopt !== "function") throw new TypeError("drupal7SessionFallback: the store cannot adopt sessions");
  const adopt = store.adopt.bind(store);
  const { hashedSids: setting = "auto", idleTimeout = 200_000, absoluteTimeout = 2_000_000 } = parsed;
  const db = drupal7Database(parsed, "drupal7SessionFallback");
  const sql = liveSessionsSql(db, `AND ${sidEquals(db, "s.sid")}`);
  const sessions = db.table("sessions");
  // Resolved on first use and kept: a failed lookup (DB down) is retried next time.
  let hashed: Promise<boolean> | null = null;

  async function fromDrupal(sessid: string): Promise<StoredSession | null> {
    hashed ??= resolveHashedSids(db, setting).catch((error: unknown) => {
      hashed = null;
      throw error;
    });
    const isHashed = await hashed;
    const sid = isHashed ? hashSessionId(sessid) : sessid;
    const rows = await db.select<SessionRow>(sql, [nowSeconds() - idleTimeout, sid]);
    const row = rows[0];
    const handle = row === undefined ? null : handleFor(String(row.sid), isHashed);
    if (row === undefined || handle === null) return null;
    const record = toSessionRecord(row, idleTimeout, absoluteTimeout);
    // Adopt before deleting: concurrent first requests of one app then all succeed.
    await adopt(handle, record);
    try {
      await db.write(`DELETE FROM ${sessions} WHERE ${sidEquals(db, "sid")}`, [String(row.sid)]);
    } catch (error) {
      // A row left behind could be adopted again after a logout: undo, and let the caller retry.
      await store.destroy(handle);
      throw error;
    }
    return { handle, record };
  }

  return {
    create: (record) => store.create(record),
    async get(sessid) {
      const found = await store.get(sessid);
      if (found !== null || !isSessionIdShape(sessid)) return found;
      return fromDrupal(sessid);
    },
    touch: (handle, lastSeenAt, expiresAt) => store.touch(handle, lastSeenAt, expiresAt),
    destroy: (handle) => store.destroy(handle),
    listByUser: (uid) => store.listByUser(uid),
    async destroyByUser(uid) {
      // "Log out everywhere" must also end the sessions not yet carried over.
      const left = /^[1-9]\d{0,9}$/.test(uid) ? await db.write(`DELETE FROM ${sessions} WHERE uid = ?`, [Number(uid)]) : 0;
      return left + (await store.destroyByUser(uid));
    },
    adopt,
  };
}
