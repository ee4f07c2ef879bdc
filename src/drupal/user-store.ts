import { z } from "zod";
import { parseOptions } from "../validate.js";
import type { UserRecord, UserStore } from "../types.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import { userDataField } from "./php-unserialize.js";

const optionsSchema = z.strictObject({ ...databaseOptionFields });

/**
 * Options of {@link drupal7UserStore}.
 *
 * @example
 * ```ts
 * const userStore = drupal7UserStore({ pool, prefix: "" });
 * ```
 */
export type Drupal7UserStoreOptions = Drupal7DatabaseOptions;

/** `DRUPAL_AUTHENTICATED_RID`: every account has this role, which `users_roles` never lists. */
const AUTHENTICATED_ROLE = { "2": "authenticated user" } as const;

/** Columns that have a place of their own in a {@link UserRecord} rather than in `fields`. */
const RECORD_COLUMNS = new Set(["uid", "name", "pass", "created", "access", "login", "status"]);

/** A uid as Drupal writes one: a positive decimal that fits its unsigned INT column. */
const UID_PATTERN = /^[1-9]\d{0,9}$/;

type Row = Record<string, unknown>;

/** A DB value as PDO's `ATTR_STRINGIFY_FETCHES` gives it to Drupal: a string, or null. */
function drupalString(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  return String(value);
}

function toRecord(row: Row, roles: Record<string, string>): UserRecord {
  const fields: Record<string, unknown> = {};
  // Every other column, in the table's order, typed as the login reply has it (see loginUserObject).
  for (const [column, value] of Object.entries(row)) {
    if (RECORD_COLUMNS.has(column)) continue;
    // `data` is unserialize()d; `picture` stays the raw fid string, as Drupal sends it with user pictures off.
    fields[column] = column === "data" ? userDataField(value as string | Buffer | null) : drupalString(value);
  }
  return {
    uid: String(row.uid),
    name: drupalString(row.name) ?? "",
    mail: drupalString(row.mail) ?? "",
    passwordHash: drupalString(row.pass) ?? "",
    active: Number(row.status) === 1,
    roles: { ...AUTHENTICATED_ROLE, ...roles },
    created: Number(row.created ?? 0),
    access: Number(row.access ?? 0),
    login: Number(row.login ?? 0),
    fields,
  };
}

/**
 * A {@link UserStore} over a Drupal 7 database, reading `users`, `users_roles` and `role`
 * through a pool the app passes in (mysql2 for MariaDB/MySQL, pg for PostgreSQL). The
 * records let the login reply match Drupal's: every other `users` column lands in
 * `fields` as a string (or null), `data` is unserialized (`false` when empty or not
 * readable), `picture` is the fid string, and roles are `{"2": "authenticated user"}`
 * plus the account's rows. The reply must still drop `init` for viewers without
 * `administer users`, as `services_remove_user_data()` does.
 *
 * Names match case-insensitively: through the column's collation on MySQL, as Drupal's `=`
 * does, and with `LOWER()` on PostgreSQL, where an exact-case match wins if two accounts
 * differ only in case. The anonymous row (uid 0) is never returned.
 *
 * It writes only two things: `users.login` and `users.access` on login, and `users.pass`
 * as a compare-and-set on rehash. Every value is a query parameter.
 *
 * @example
 * ```ts
 * import mysql from "mysql2/promise";
 * const userStore = drupal7UserStore({ pool: mysql.createPool(process.env.DRUPAL_DB_URL!) });
 * ```
 * @example
 * ```ts
 * import pg from "pg";
 * const userStore = drupal7UserStore({ pool: new pg.Pool({ connectionString }), prefix: "drupal_" });
 * ```
 * @throws TypeError when the pool's dialect cannot be told or the prefix is unsafe.
 */
export function drupal7UserStore(options: Drupal7UserStoreOptions): UserStore {
  const db = drupal7Database(parseOptions(optionsSchema, options, "drupal7UserStore"), "drupal7UserStore");
  const users = db.table("users");

  async function withRoles(row: Row | undefined): Promise<UserRecord | null> {
    if (row === undefined) return null;
    const rows = await db.select<{ rid: unknown; name: unknown }>(
      `SELECT r.rid, r.name FROM ${db.table("users_roles")} ur INNER JOIN ${db.table("role")} r ON r.rid = ur.rid WHERE ur.uid = ? ORDER BY r.rid`,
      [Number(row.uid)],
    );
    const roles: Record<string, string> = {};
    for (const role of rows) roles[String(role.rid)] = drupalString(role.name) ?? "";
    return toRecord(row, roles);
  }

  return {
    async findByName(name) {
      if (name.length === 0) return null;
      if (db.dialect === "mysql") {
        const rows = await db.select<Row>(`SELECT * FROM ${users} WHERE name = ? AND uid > 0 LIMIT 1`, [name]);
        return withRoles(rows[0]);
      }
      // PostgreSQL compares case-sensitively and its unique key does too, so two rows may differ only in case.
      const rows = await db.select<Row>(`SELECT * FROM ${users} WHERE LOWER(name) = LOWER(?) AND uid > 0 ORDER BY uid LIMIT 10`, [name]);
      const exact = rows.find((row) => row.name === name);
      if (exact !== undefined) return withRoles(exact);
      // Ambiguous without an exact match: refuse rather than pick an account.
      return rows.length === 1 ? withRoles(rows[0]) : null;
    },
    async findById(uid) {
      if (!UID_PATTERN.test(uid)) return null;
      const rows = await db.select<Row>(`SELECT * FROM ${users} WHERE uid = ?`, [Number(uid)]);
      return withRoles(rows[0]);
    },
    async recordLogin(uid, at) {
      if (!UID_PATTERN.test(uid)) return;
      // user_login_finalize() writes login; the session write that follows moves access.
      await db.write(`UPDATE ${users} SET login = ?, access = ? WHERE uid = ?`, [at, at, Number(uid)]);
    },
    async updatePasswordHash(uid, expected, next) {
      if (!UID_PATTERN.test(uid)) return false;
      // MySQL's usual collation ignores case, and hashes differ in case: compare bytes there.
      const same = db.dialect === "mysql" ? "pass = CAST(? AS BINARY)" : "pass = ?";
      const changed = await db.write(`UPDATE ${users} SET pass = ? WHERE uid = ? AND ${same}`, [next, Number(uid), expected]);
      return changed === 1;
    },
  };
}
