import { z } from "zod";
import { parseOptions } from "../validate.js";
import type { UserStore } from "../types.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import { readNameColumn, type NameColumn } from "./name-column.js";
import { isDrupal7StoredHash } from "./drupal7-hasher.js";
import { recordsOf, usersWithRolesSql, type UserRow } from "./user-rows.js";
import { drupal7UserWrites } from "./user-writes.js";

const optionsSchema = z.strictObject({ ...databaseOptionFields, parallelRun: z.boolean().optional() });

/** Options of {@link drupal7UserStore}. */
export interface Drupal7UserStoreOptions extends Drupal7DatabaseOptions {
  /**
   * The Drupal site still serves the same users: a rehash is stored only as Drupal's `$S$`, else
   * refused (a `rehash.failed` event, old hash kept). Use `drupal7Hasher()` then (docs/running-beside-drupal-7.md).
   * @default false
   */
  parallelRun?: boolean;
}

/** A uid as Drupal writes one: a positive decimal that fits its unsigned INT column. */
const UID_PATTERN = /^[1-9]\d{0,9}$/;

/** A character outside the Basic Multilingual Plane: MySQL's 3-byte `utf8` cannot hold one. */
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;
/** MySQL's 3-byte `utf8`, by its old name or its new one. */
const THREE_BYTE_UTF8 = /^utf8(?:mb3)?$/i;

/**
 * A {@link UserStore} over Drupal 7's `users`, `users_roles` and `role` through the app's pool,
 * shaped so the login reply matches Drupal's; names match as the database compares them, and
 * `nameKey` gives the throttle the same folding. Logins write `login`/`access` and `pass`
 * (compare-and-set); the account calls create, change and delete accounts as Drupal's
 * `user_save()` and `user_delete()` do, in transactions, with permissions from `role_permission`
 * (docs/accounts.md). Differences: docs/migrating-from-drupal-7.md#6-what-changes-for-clients.
 *
 * @example
 * ```ts
 * import mysql from "mysql2/promise";
 * const userStore = drupal7UserStore({ pool: mysql.createPool(process.env.DRUPAL_DB_URL!) });
 * ```
 * @throws TypeError when the pool's dialect cannot be told or the prefix is unsafe.
 */
export function drupal7UserStore(options: Drupal7UserStoreOptions): UserStore {
  const parsed = parseOptions(optionsSchema, options, "drupal7UserStore");
  const db = drupal7Database(parsed, "drupal7UserStore");
  const parallelRun = parsed.parallelRun ?? false;
  const users = db.table("users");
  // One query whatever it finds, roles included: a name with an account costs what one without does.
  const withRoles = (from: string, where = "") => usersWithRolesSql(db, from, where);
  let nameColumn: Promise<NameColumn> | undefined;

  /** How MySQL compares `users.name`: read once, and again after a failed read. */
  function mysqlNameColumn(): Promise<NameColumn> {
    nameColumn ??= readNameColumn(db, users).catch((error: unknown) => {
      nameColumn = undefined;
      throw error;
    });
    return nameColumn;
  }

  return {
    ...drupal7UserWrites({ db, pool: parsed.pool, prefix: parsed.prefix ?? "", parallelRun }),
    async findByName(name) {
      if (name.length === 0) return null;
      if (db.dialect === "mysql") {
        // MySQL refuses to compare a 3-byte utf8 column with a character it cannot hold: no account has one.
        if (THREE_BYTE_UTF8.test((await mysqlNameColumn()).charset) && ASTRAL.test(name)) return null;
        return recordsOf(await db.select<UserRow>(withRoles(`${users} u`, "WHERE u.name = ? AND u.uid > 0"), [name]))[0] ?? null;
      }
      // PostgreSQL compares case-sensitively and its unique key does too, so two rows may differ only in case.
      // No ORDER BY inside: with one, a table without fresh statistics is read in uid order instead of by the LOWER(name) index.
      const found = recordsOf(await db.select<UserRow>(withRoles(`(SELECT * FROM ${users} WHERE LOWER(name) = LOWER(?) AND uid > 0 LIMIT 10) u`), [name]));
      const exact = found.find((user) => user.name === name);
      if (exact !== undefined) return exact;
      // Ambiguous without an exact match: refuse rather than pick an account.
      return found.length === 1 ? found[0]! : null;
    },
    async nameKey(name) {
      if (db.dialect === "postgres") {
        // The other side of findByName's comparison, computed by the same server.
        const [row] = await db.select<{ k: string }>("SELECT LOWER(?) AS k", [name]);
        return row!.k;
      }
      // The collation's own weights: equal exactly when the column's `=` says the names are equal.
      const column = await mysqlNameColumn();
      const compared = column.padSpace ? withoutTrailingSpaces(name) : name;
      const [row] = await db.select<{ k: Buffer | string | null }>(
        `SELECT WEIGHT_STRING(CONVERT(? USING ${column.charset}) COLLATE ${column.collation}) AS k`,
        [compared],
      );
      const weights = row?.k;
      return Buffer.isBuffer(weights) ? weights.toString("hex") : String(weights ?? "");
    },
    async findById(uid) {
      if (!UID_PATTERN.test(uid)) return null;
      return recordsOf(await db.select<UserRow>(withRoles(`${users} u`, "WHERE u.uid = ?"), [Number(uid)]))[0] ?? null;
    },
    async recordLogin(uid, at) {
      if (!UID_PATTERN.test(uid)) return;
      // user_login_finalize() writes login; the session write that follows moves access.
      await db.write(`UPDATE ${users} SET login = ?, access = ? WHERE uid = ?`, [at, at, Number(uid)]);
    },
    async updatePasswordHash(uid, expected, next) {
      if (!UID_PATTERN.test(uid)) return false;
      // Drupal still checks this account's password: a hash it cannot read would lock the user out of it.
      if (parallelRun && !isDrupal7StoredHash(next)) {
        throw new Error(
          "drupal7UserStore: parallelRun: refusing to store a password hash Drupal 7 cannot check; use drupal7Hasher() while Drupal serves the same users",
        );
      }
      // MySQL's usual collation ignores case, and hashes differ in case: compare bytes there.
      const same = db.dialect === "mysql" ? "pass = CAST(? AS BINARY)" : "pass = ?";
      const changed = await db.write(`UPDATE ${users} SET pass = ? WHERE uid = ? AND ${same}`, [next, Number(uid), expected]);
      return changed === 1;
    },
  };
}

/** `name` without the U+0020s at its end, which a PAD SPACE collation ignores (a loop: a regex would backtrack on inner runs). */
function withoutTrailingSpaces(name: string): string {
  let end = name.length;
  while (end > 0 && name.charCodeAt(end - 1) === 0x20) end -= 1;
  return name.slice(0, end);
}
