import type { SessionRecord } from "../types.js";
import type { Drupal7Database } from "./database.js";
import { applyEntryPlan } from "./php-session-data.js";
import { META_KEY, metaPlan, serializedMeta, type SessionMeta } from "./shared-table-own-entry.js";
import type { RowKey, SessionColumn, SessionStatements } from "./shared-table-sql.js";

/**
 * The writes of `drupal7SessionStore` that touch `$_SESSION`: its entry set or put back by
 * compare-and-set on the server (a Drupal request that wrote in between is read again, never
 * overwritten), and a login over an anonymous visitor's row, which re-keys it as
 * `drupal_session_regenerate()` does.
 *
 * @module
 */

/** A blob column as bytes: `bytea` and BLOB both come back as a Buffer; NULL is empty. */
export function bytesOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  return typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.alloc(0);
}

/** A column as text; NULL is empty. */
export function text(value: unknown): string {
  return value === null || value === undefined ? "" : Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
}

/** Where a login's new session may take its `$_SESSION` from: the anonymous rows its cookies name, as stored ids. */
export interface CarriedFrom {
  /** The column the request's scheme reads, and the id its session cookie holds. */
  readonly column: SessionColumn;
  readonly replacing: string;
  /** Over HTTPS, the id of the plain-HTTP twin cookie, whose anonymous row Drupal reads when the secure cookie names none. */
  readonly twin: string | undefined;
}

/** The entry writes over one database. */
export function sessionEntryWrites(db: Drupal7Database, sql: SessionStatements) {
  /** `$_SESSION` of one row, whole. */
  async function dataOf(key: RowKey): Promise<Buffer | undefined> {
    const [row] = await db.select<{ session: unknown }>(sql.data, [key.sid, key.ssid]);
    return row === undefined ? undefined : bytesOf(row.session);
  }

  /** Sets the entry in a row's `$_SESSION` (read whole as `data`, or read here), twice at most; resolves whether it did. */
  async function writeMeta(key: RowKey, data: Buffer | undefined, meta: SessionMeta): Promise<boolean> {
    let current = data;
    for (let attempt = 0; attempt < 2; attempt++) {
      current ??= await dataOf(key);
      if (current === undefined) return false;
      const plan = metaPlan(current, meta);
      // $_SESSION another serializer wrote, or one the entry cannot join without moving a reference: served without an entry.
      if (plan === null) return false;
      if ((await db.write(...sql.entry(key, plan, current))) > 0) return true;
      current = undefined;
    }
    return false;
  }

  /** Replaces the entry that opens a long `$_SESSION` (ending at `end` of its first bytes) without reading the rest; a retry reads it whole. */
  async function spliceAtHead(key: RowKey, head: Buffer, end: number, meta: SessionMeta): Promise<boolean> {
    const plan = { kind: "replace" as const, start: 0, end, entry: Buffer.from(`${META_KEY}|${serializedMeta(meta)}`, "utf8") };
    if ((await db.write(...sql.entry(key, plan, head))) > 0) return true;
    return writeMeta(key, undefined, meta);
  }

  /**
   * Carries an anonymous visitor's row into a login's new session (`key`, `meta`, `record`): the
   * row the cookie names becomes the session, re-keyed, its `$_SESSION` kept; over HTTPS with no
   * such row, the twin's `$_SESSION` is copied. Resolves `true` when a row was re-keyed, the
   * `$_SESSION` to insert when one is copied, `undefined` for a fresh session.
   */
  async function carryOver(from: CarriedFrom, key: RowKey, meta: SessionMeta, record: SessionRecord): Promise<true | Buffer | undefined> {
    const rekey = { ...key, uid: Number(record.uid), hostname: record.ip.slice(0, 128), timestamp: record.lastSeenAt };
    for (let attempt = 0; attempt < 2; attempt++) {
      const [row] = await db.select<{ sid: unknown; ssid: unknown }>(sql.anonymous(from.column), [from.replacing]);
      if (row === undefined) break;
      const old = { sid: text(row.sid), ssid: text(row.ssid) };
      const data = await dataOf(old);
      const plan = data === undefined ? null : metaPlan(data, meta);
      if (plan === null) break;
      if ((await db.write(...sql.entry(old, plan, data!, rekey))) > 0) return true;
    }
    if (from.twin === undefined) return undefined;
    const [row] = await db.select<{ sid: unknown; ssid: unknown }>(sql.anonymous("sid"), [from.twin]);
    const data = row === undefined ? undefined : await dataOf({ sid: text(row.sid), ssid: text(row.ssid) });
    const plan = data === undefined ? null : metaPlan(data, meta);
    return plan === null ? undefined : applyEntryPlan(data!, plan);
  }

  return { dataOf, writeMeta, spliceAtHead, carryOver };
}
