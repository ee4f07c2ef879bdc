import { z } from "zod";
import { hashSessionId, isSessionIdShape } from "../sessions/session-id.js";
import type { SessionRecord } from "../types.js";
import { databaseOptionFields, type Drupal7Database, type Drupal7DatabaseOptions } from "./database.js";

/** The first `system` schema version that stores `sessions.sid` hashed (core 7.98, `system_update_7086`). */
const HASHED_SIDS_SCHEMA_VERSION = 7086;

/** Options about Drupal's `sessions` table, shared by {@link importDrupal7Sessions} and {@link drupal7SessionFallback}. */
export interface Drupal7SessionOptions extends Drupal7DatabaseOptions {
  /**
   * Whether `sessions.sid` holds `base64url(sha256(id))` (core 7.98+); `"auto"` reads the schema
   * version (7086+), not settings.php's `do_not_hash_session_ids` (say `false` then).
   * @default "auto"
   */
  hashedSids?: boolean | "auto";
  /**
   * Seconds without activity after which a session is dead (Drupal's `session.gc_maxlifetime`).
   * @default 200000
   */
  idleTimeout?: number;
  /**
   * The absolute lifetime in seconds, counted from the row's `timestamp` (Drupal keeps no creation time).
   * @default 2000000
   */
  absoluteTimeout?: number;
}

/** Zod fields of {@link Drupal7SessionOptions}. */
export const sessionOptionFields = {
  ...databaseOptionFields,
  hashedSids: z.union([z.boolean(), z.literal("auto")]).optional(),
  idleTimeout: z.number().int().positive().optional(),
  absoluteTimeout: z.number().int().positive().optional(),
};

/** A row of `sessions` joined to an active user. */
export interface SessionRow {
  sid: string;
  uid: unknown;
  hostname: unknown;
  timestamp: unknown;
}

/** Resolves the `hashedSids` option, reading the schema version for `"auto"`. */
export async function resolveHashedSids(db: Drupal7Database, setting: boolean | "auto"): Promise<boolean> {
  if (setting !== "auto") return setting;
  const rows = await db.select<{ schema_version: unknown }>(`SELECT schema_version FROM ${db.table("system")} WHERE name = ? AND type = ?`, [
    "system",
    "module",
  ]);
  const version = Number(rows[0]?.schema_version);
  if (!Number.isInteger(version)) throw new Error("Drupal 7: no schema version for the system module; set hashedSids explicitly");
  return version >= HASHED_SIDS_SCHEMA_VERSION;
}

/** The SELECT for live rows (uid > 0, active account, written after `since`); `extra` narrows it (`AND s.sid = ?`). */
export function liveSessionsSql(db: Drupal7Database, extra: string): string {
  return (
    `SELECT s.sid, s.uid, s.hostname, s.timestamp FROM ${db.table("sessions")} s ` +
    `INNER JOIN ${db.table("users")} u ON u.uid = s.uid ` +
    `WHERE s.uid > 0 AND u.status = 1 AND s.timestamp > ? ${extra}`
  );
}

/** A row's store handle (a raw sid hashed as a cookie is, a hashed one as is), or `null` for a sid that is no session id. */
export function handleFor(sid: string, hashed: boolean): string | null {
  if (!isSessionIdShape(sid)) return null;
  return hashed ? sid : hashSessionId(sid);
}

/** A row as a {@link SessionRecord}: seen at its `timestamp`, with the idle and absolute deadlines from there. */
export function toSessionRecord(row: SessionRow, idleTimeout: number, absoluteTimeout: number): SessionRecord {
  const timestamp = Number(row.timestamp);
  return {
    uid: String(row.uid),
    createdAt: timestamp,
    lastSeenAt: timestamp,
    expiresAt: timestamp + Math.min(idleTimeout, absoluteTimeout),
    ip: row.hostname === null || row.hostname === undefined ? "" : String(row.hostname),
    // Drupal never kept the user agent.
    userAgent: "",
  };
}
