import type { Drupal7Database, SqlValue } from "./database.js";
import { sidEquals } from "./session-rows.js";
import { ADDED_COLUMN_PREFIX, usersWithRolesSql } from "./user-rows.js";

/**
 * The SQL of `drupal7SessionStore`, once per dialect: each statement names one row by `sid` (the
 * primary key, compared as bytes) or a user's rows by `uid` (Drupal's index); values as parameters.
 *
 * @module
 */

/** The session columns the read adds to a `users` row, named so the user's own columns never clash with them. */
export const SESSION_COLUMNS = {
  sid: `${ADDED_COLUMN_PREFIX}sid`,
  ssid: `${ADDED_COLUMN_PREFIX}ssid`,
  uid: `${ADDED_COLUMN_PREFIX}uid`,
  hostname: `${ADDED_COLUMN_PREFIX}hostname`,
  timestamp: `${ADDED_COLUMN_PREFIX}timestamp`,
  session: `${ADDED_COLUMN_PREFIX}session`,
  login: `${ADDED_COLUMN_PREFIX}login`,
} as const;

/** The statements, for one database and one choice of joining `users`. */
export interface SessionStatements {
  /** One session by `sid`, joined to its account and roles (one row per role) as `_drupal_session_read()` joins `users`. Parameter: sid. */
  readonly read: string;
  /** A user's sessions, with the account's `login`. Parameter: uid. */
  readonly list: string;
  /** Parameters: uid, sid, ssid, hostname, timestamp, session. */
  readonly insert: string;
  /** Moves `timestamp` (never back), and the account's `access` as Drupal's session write does. */
  touch(time: number, sid: string): [sql: string, values: SqlValue[]];
  /** `$_SESSION` of one row, for a compare-and-set. Parameter: sid. */
  readonly data: string;
  /** Replaces `$_SESSION` only if it is still what was read. Parameters: new data, sid, data read. */
  readonly swapData: string;
  /** Whether the row is an anonymous visitor's (uid 0), Drupal's alone. Parameter: sid. */
  readonly anonymous: string;
  /** Parameter: sid. */
  readonly delete: string;
  /** Parameter: uid. */
  readonly deleteByUser: string;
  /** The `sid` whose `drupal_hash_base64()` is a handle, for a site that keeps raw ids (a scan). Parameter: handle. */
  readonly sidOfHandle: string;
}

/** Builds the statements. `joinUsers`: whether accounts come from this database's `users` table. */
export function sessionStatements(db: Drupal7Database, joinUsers: boolean): SessionStatements {
  const sessions = db.table("sessions");
  const users = db.table("users");
  const c = SESSION_COLUMNS;
  const sessionColumns =
    `s.sid AS ${c.sid}, s.ssid AS ${c.ssid}, s.uid AS ${c.uid}, s.hostname AS ${c.hostname}, ` + `s.timestamp AS ${c.timestamp}, s.session AS ${c.session}`;
  const bySid = `WHERE ${sidEquals(db, "s.sid")}`;
  const mysql = db.dialect === "mysql";
  // An empty or NULL $_SESSION compares as the empty value read for it.
  const dataIs = mysql ? "COALESCE(session, '') = ?" : "COALESCE(session, ''::bytea) = ?";
  return {
    read: joinUsers
      ? usersWithRolesSql(db, `${sessions} s LEFT JOIN ${users} u ON u.uid = s.uid AND s.uid > 0`, bySid, `${sessionColumns}, `)
      : `SELECT ${sessionColumns} FROM ${sessions} s ${bySid}`,
    list: joinUsers
      ? `SELECT ${sessionColumns}, u.login AS ${c.login} FROM ${sessions} s LEFT JOIN ${users} u ON u.uid = s.uid WHERE s.uid = ?`
      : `SELECT ${sessionColumns} FROM ${sessions} s WHERE s.uid = ?`,
    insert: `INSERT INTO ${sessions} (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (?, ?, ?, ?, ?, 0, ?)`,
    touch: touchStatement(db, joinUsers, bySid),
    data: `SELECT session, timestamp, hostname FROM ${sessions} s ${bySid}`,
    swapData: `UPDATE ${sessions} SET session = ? WHERE ${sidEquals(db, "sid")} AND ${dataIs}`,
    anonymous: `SELECT 1 AS anonymous FROM ${sessions} s ${bySid} AND s.uid = 0`,
    delete: `DELETE FROM ${sessions} WHERE ${sidEquals(db, "sid")}`,
    deleteByUser: `DELETE FROM ${sessions} WHERE uid = ?`,
    sidOfHandle: mysql
      ? `SELECT sid FROM ${sessions} WHERE REPLACE(REPLACE(TRIM(TRAILING '=' FROM TO_BASE64(UNHEX(SHA2(sid, 256)))), '+', '-'), '/', '_') = CAST(? AS BINARY) LIMIT 1`
      : `SELECT sid FROM ${sessions} WHERE RTRIM(TRANSLATE(ENCODE(SHA256(CONVERT_TO(sid, 'UTF8')), 'base64'), '+/', '-_'), '=') = ? LIMIT 1`,
  };
}

/** {@link SessionStatements.touch}: one statement whichever the dialect, the account's row included. */
function touchStatement(db: Drupal7Database, joinUsers: boolean, bySid: string): SessionStatements["touch"] {
  const sessions = db.table("sessions");
  const users = db.table("users");
  if (!joinUsers) {
    const sql = `UPDATE ${sessions} s SET timestamp = GREATEST(s.timestamp, ?) ${bySid}`;
    return (time, sid) => [sql, [time, sid]];
  }
  if (db.dialect === "mysql") {
    // A multi-table UPDATE: an account that is gone (no row joined) leaves nothing to update on its side.
    const sql = `UPDATE ${sessions} s LEFT JOIN ${users} u ON u.uid = s.uid AND s.uid > 0 SET s.timestamp = GREATEST(s.timestamp, ?), u.access = GREATEST(u.access, ?) ${bySid}`;
    return (time, sid) => [sql, [time, time, sid]];
  }
  const sql =
    `WITH s AS (UPDATE ${sessions} s SET timestamp = GREATEST(s.timestamp, ?) ${bySid} RETURNING s.uid, s.timestamp) ` +
    `UPDATE ${users} u SET access = GREATEST(u.access, s.timestamp) FROM s WHERE u.uid = s.uid AND s.uid > 0`;
  return (time, sid) => [sql, [time, sid]];
}
