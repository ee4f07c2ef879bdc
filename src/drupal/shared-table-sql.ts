import { createHash } from "node:crypto";
import { sidEquals, type Drupal7Database, type SqlValue } from "./database.js";
import type { EntryPlan } from "./php-session-data.js";
import { ADDED_COLUMN_PREFIX, usersWithRolesSql } from "./user-rows.js";

/**
 * The SQL of `drupal7SessionStore`, once per dialect: a session read by the column Drupal reads
 * for the request's scheme (`sid` over HTTP, `ssid` over HTTPS, each indexed), a row written by its
 * primary key `(sid, ssid)`, a user's rows by `uid`; ids compared as bytes, values as parameters.
 * `$_SESSION` is read in full only when the package's entry is not in its first bytes, and
 * written by splicing the entry in, so a large `$_SESSION` never crosses the wire twice.
 *
 * @module
 */

/** Bytes of `$_SESSION` a read brings: the package's entry, which it writes first, fits in them. */
export const SESSION_HEAD_BYTES = 2048;

/** The session columns a read adds to a `users` row, named so the user's own columns never clash with them. */
export const SESSION_COLUMNS = {
  sid: `${ADDED_COLUMN_PREFIX}sid`,
  ssid: `${ADDED_COLUMN_PREFIX}ssid`,
  uid: `${ADDED_COLUMN_PREFIX}uid`,
  hostname: `${ADDED_COLUMN_PREFIX}hostname`,
  timestamp: `${ADDED_COLUMN_PREFIX}timestamp`,
  head: `${ADDED_COLUMN_PREFIX}session_head`,
  length: `${ADDED_COLUMN_PREFIX}session_length`,
  login: `${ADDED_COLUMN_PREFIX}login`,
} as const;

/** A row's key: `sessions`' primary key, as read. */
export interface RowKey {
  readonly sid: string;
  readonly ssid: string;
}

/** The column a session is found by: Drupal's `$is_https` reads `ssid`, plain HTTP `sid`; `either` serves calls without a request. */
export type SessionColumn = "sid" | "ssid" | "either";

/** The statements, for one database and one choice of joining `users`. */
export interface SessionStatements {
  /** One session (every row keyed by the id in `column`), with its account and roles as `_drupal_session_read()` joins them. Parameter: the id. */
  read(column: SessionColumn): string;
  /** A user's sessions, with the account's `login`. Parameter: uid. */
  readonly list: string;
  /** Parameters: uid, sid, ssid, hostname, timestamp, session. */
  readonly insert: string;
  /** Moves `timestamp` (never back) and, given an address, `hostname`; the account's `access` as Drupal's session write does. */
  touch(column: SessionColumn, id: string, time: number, ip: string | undefined): [sql: string, values: SqlValue[]];
  /** The whole `$_SESSION` of one row. Parameters: sid, ssid. */
  readonly data: string;
  /** The first bytes of `$_SESSION` and its length, of every row keyed by the id in `column`. Parameter: the id. */
  head(column: SessionColumn): string;
  /** Sets the package's entry by `plan`, only while `$_SESSION` is as it was read; with `rekey`, the row's key, account and address too. */
  entry(key: RowKey, plan: EntryPlan, read: Buffer, rekey?: Rekey): [sql: string, values: SqlValue[]];
  /** An anonymous visitor's row (uid 0) by the id in `column`: its key and `timestamp`. Parameter: the id. */
  anonymous(column: SessionColumn): string;
  /** Moves an anonymous row's `timestamp` and `hostname` (NULL: kept), as Drupal's write does once per interval. Parameters: time, hostname, sid, ssid, time - interval. */
  readonly refresh: string;
  /** Every row keyed by the id in either column. Parameters: the id, twice. */
  readonly delete: string;
  /** Parameter: uid. */
  readonly deleteByUser: string;
  /** Deletes at most `limit` rows last written before a time. Parameters: time, limit. */
  readonly collect: string;
  /** The `sid` or `ssid` whose `drupal_hash_base64()` is a handle, for a site that keeps raw ids (a scan). Parameter: handle, twice. */
  readonly idOfHandle: string;
}

/** What a login over an anonymous row writes into it besides `$_SESSION`, as `drupal_session_regenerate()` and the write after it do. */
export interface Rekey {
  readonly sid: string;
  readonly ssid: string;
  readonly uid: number;
  readonly hostname: string;
  readonly timestamp: number;
}

/** Builds the statements. `joinUsers`: whether accounts come from this database's `users` table. */
export function sessionStatements(db: Drupal7Database, joinUsers: boolean): SessionStatements {
  const sessions = db.table("sessions");
  const users = db.table("users");
  const c = SESSION_COLUMNS;
  const mysql = db.dialect === "mysql";
  const head = mysql ? `SUBSTRING(s.session, 1, ${SESSION_HEAD_BYTES})` : `substring(s.session from 1 for ${SESSION_HEAD_BYTES})`;
  const length = mysql ? "LENGTH(s.session)" : "octet_length(s.session)";
  const sessionColumns =
    `s.sid AS ${c.sid}, s.ssid AS ${c.ssid}, s.uid AS ${c.uid}, s.hostname AS ${c.hostname}, ` +
    `s.timestamp AS ${c.timestamp}, ${head} AS ${c.head}, ${length} AS ${c.length}`;
  const by = (column: SessionColumn, alias: string) => keyedBy(db, column, alias);
  return {
    read: (column) =>
      joinUsers
        ? usersWithRolesSql(db, `${sessions} s LEFT JOIN ${users} u ON u.uid = s.uid AND s.uid > 0`, `WHERE ${by(column, "s.")}`, `${sessionColumns}, `)
        : `SELECT ${sessionColumns} FROM ${sessions} s WHERE ${by(column, "s.")}`,
    list: joinUsers
      ? `SELECT ${sessionColumns}, u.login AS ${c.login} FROM ${sessions} s LEFT JOIN ${users} u ON u.uid = s.uid WHERE s.uid = ?`
      : `SELECT ${sessionColumns} FROM ${sessions} s WHERE s.uid = ?`,
    insert: `INSERT INTO ${sessions} (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (?, ?, ?, ?, ?, 0, ?)`,
    touch: touchStatement(db, joinUsers),
    data: `SELECT session FROM ${sessions} WHERE ${sidEquals(db, "sid")} AND ${sidEquals(db, "ssid")}`,
    head: (column) =>
      `SELECT s.sid AS ${c.sid}, s.ssid AS ${c.ssid}, ${head} AS ${c.head}, ${length} AS ${c.length} FROM ${sessions} s WHERE ${by(column, "s.")}`,
    entry: entryStatement(db),
    anonymous: (column) => `SELECT s.sid, s.ssid, s.timestamp FROM ${sessions} s WHERE ${by(column, "s.")} AND s.uid = 0`,
    refresh: `UPDATE ${sessions} SET timestamp = ?, hostname = COALESCE(?, hostname) WHERE ${sidEquals(db, "sid")} AND ${sidEquals(db, "ssid")} AND uid = 0 AND timestamp < ?`,
    delete: `DELETE FROM ${sessions} WHERE ${by("either", "")}`,
    deleteByUser: `DELETE FROM ${sessions} WHERE uid = ?`,
    // Bounded, and on PostgreSQL by row address with locked rows skipped: instances sweeping at once, and Drupal's own GC, never wait on each other long.
    collect: mysql
      ? `DELETE FROM ${sessions} WHERE timestamp < ? LIMIT ?`
      : `DELETE FROM ${sessions} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${sessions} WHERE timestamp < ? LIMIT ? FOR UPDATE SKIP LOCKED))`,
    idOfHandle: mysql
      ? `SELECT sid AS id FROM ${sessions} WHERE ${hashedMysql("sid")} = CAST(? AS BINARY) UNION ALL SELECT ssid FROM ${sessions} WHERE ssid <> '' AND ${hashedMysql("ssid")} = CAST(? AS BINARY) LIMIT 1`
      : `SELECT sid AS id FROM ${sessions} WHERE ${hashedPostgres("sid")} = ? UNION ALL SELECT ssid FROM ${sessions} WHERE ssid <> '' AND ${hashedPostgres("ssid")} = ? LIMIT 1`,
  };
}

/** `drupal_hash_base64(column)` in MySQL. */
function hashedMysql(column: string): string {
  return `REPLACE(REPLACE(TRIM(TRAILING '=' FROM TO_BASE64(UNHEX(SHA2(${column}, 256)))), '+', '-'), '/', '_')`;
}

/** `drupal_hash_base64(column)` in PostgreSQL. */
function hashedPostgres(column: string): string {
  return `RTRIM(TRANSLATE(ENCODE(SHA256(CONVERT_TO(${column}, 'UTF8')), 'base64'), '+/', '-_'), '=')`;
}

/** The condition naming rows by an id in `column` (one parameter), or in either column (two). */
function keyedBy(db: Drupal7Database, column: SessionColumn, alias: string): string {
  if (column !== "either") return sidEquals(db, `${alias}${column}`);
  return `(${sidEquals(db, `${alias}sid`)} OR ${sidEquals(db, `${alias}ssid`)})`;
}

/** The parameters of {@link keyedBy}. */
function keyValues(column: SessionColumn, id: string): string[] {
  return column === "either" ? [id, id] : [id];
}

/** {@link SessionStatements.touch}: one statement whichever the dialect, the account's row included. */
function touchStatement(db: Drupal7Database, joinUsers: boolean): SessionStatements["touch"] {
  const sessions = db.table("sessions");
  const users = db.table("users");
  return (column, id, time, ip) => {
    const where = keyedBy(db, column, "s.");
    const ids = keyValues(column, id);
    // _drupal_session_write() writes ip_address() each time it writes the row.
    const hostname = ip === undefined ? "" : ", hostname = ?";
    const address = ip === undefined ? [] : [ip.slice(0, 128)];
    if (!joinUsers) return [`UPDATE ${sessions} s SET timestamp = GREATEST(s.timestamp, ?)${hostname} WHERE ${where}`, [time, ...address, ...ids]];
    if (db.dialect === "mysql") {
      // A multi-table UPDATE: an account that is gone (no row joined) leaves nothing to update on its side.
      return [
        `UPDATE ${sessions} s LEFT JOIN ${users} u ON u.uid = s.uid AND s.uid > 0 SET s.timestamp = GREATEST(s.timestamp, ?)${hostname.replace("hostname", "s.hostname")}, u.access = GREATEST(u.access, ?) WHERE ${where}`,
        [time, ...address, time, ...ids],
      ];
    }
    return [
      `WITH s AS (UPDATE ${sessions} s SET timestamp = GREATEST(s.timestamp, ?)${hostname} WHERE ${where} RETURNING s.uid, s.timestamp) ` +
        `UPDATE ${users} u SET access = GREATEST(u.access, s.timestamp) FROM s WHERE u.uid = s.uid AND s.uid > 0`,
      [time, ...address, ...ids],
    ];
  };
}

/** {@link SessionStatements.entry}: the entry spliced in on the server, the rest of `$_SESSION` never sent (except a rewrite's). */
function entryStatement(db: Drupal7Database): SessionStatements["entry"] {
  const sessions = db.table("sessions");
  const mysql = db.dialect === "mysql";
  const data = mysql ? "COALESCE(session, '')" : "COALESCE(session, ''::bytea)";
  const concat = (...parts: string[]) => (mysql ? `CONCAT(${parts.join(", ")})` : parts.join(" || "));
  const slice = (from: string, count?: string) =>
    mysql
      ? `SUBSTRING(${data}, ${from}${count === undefined ? "" : `, ${count}`})`
      : `substring(${data} from ${from}${count === undefined ? "" : ` for ${count}`})`;
  // The witness that $_SESSION is what was read: its SHA-256, computed where it lies.
  const digest = mysql ? `SHA2(${data}, 256) = ?` : `encode(sha256(${data}), 'hex') = ?`;
  const key = `${sidEquals(db, "sid")} AND ${sidEquals(db, "ssid")}`;
  return (row, plan, read, rekey) => {
    let value: string;
    let values: SqlValue[];
    let witness: string;
    let witnessValues: SqlValue[];
    switch (plan.kind) {
      case "replace":
        // Only while the old entry is still where it was: whatever Drupal wrote around it is kept.
        value = concat(slice("1", "?"), "?", slice("?"));
        values = [plan.start, plan.entry, plan.end + 1];
        witness = `${slice("?", "?")} = ?`;
        witnessValues = [plan.start + 1, plan.end - plan.start, read.subarray(plan.start, plan.end)];
        break;
      case "prepend":
      case "append":
        value = plan.kind === "prepend" ? concat("?", data) : concat(data, "?");
        values = [plan.entry];
        witness = digest;
        witnessValues = [sha256Hex(read)];
        break;
      case "rewrite":
        value = "?";
        values = [plan.data];
        witness = digest;
        witnessValues = [sha256Hex(read)];
        break;
    }
    if (rekey === undefined) return [`UPDATE ${sessions} SET session = ${value} WHERE ${key} AND ${witness}`, [...values, row.sid, row.ssid, ...witnessValues]];
    return [
      `UPDATE ${sessions} SET session = ${value}, sid = ?, ssid = ?, uid = ?, hostname = ?, timestamp = ? WHERE ${key} AND uid = 0 AND ${witness}`,
      [...values, rekey.sid, rekey.ssid, rekey.uid, rekey.hostname, rekey.timestamp, row.sid, row.ssid, ...witnessValues],
    ];
  };
}

/** The SHA-256 of bytes in hex, as `SHA2(…, 256)` and `encode(sha256(…), 'hex')` give it. */
function sha256Hex(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
