import { phpSerialize } from "../accounts/php-serialize.js";
import { isUsersColumn, USERS_COLUMNS } from "../accounts/users-table.js";
import type { NewUserRecord, UserChanges, UserListQuery, UserListRow, UserRecord, UserStore, UserWrite } from "../types.js";
import type { Drupal7Database, Drupal7Dialect, SqlValue } from "./database.js";
import { isDrupal7StoredHash } from "./drupal7-hasher.js";
import { inTransaction, type Drupal7Transaction } from "./transaction.js";
import { drupalString, recordsOf, usersWithRolesSql, type UserRow } from "./user-rows.js";

/** What the writes need of the store: the reading database, the app's pool, and settings.php's prefix. */
export interface UserWriteTarget {
  readonly db: Drupal7Database;
  readonly pool: unknown;
  readonly prefix: string;
  /** Drupal still checks these passwords: only its own `$S$` hashes may be written. */
  readonly parallelRun: boolean;
}

/**
 * The MySQL lock this package's account writers queue on, every instance of the app alike: their
 * locking reads would otherwise deadlock one another (each locks the gap the other inserts into).
 */
const WRITERS_LOCK = "services-session-auth account writes";

/** Drupal's `DRUPAL_ANONYMOUS_RID` and `DRUPAL_AUTHENTICATED_RID`: roles no `users_roles` row holds. */
const IMPLIED_ROLES = new Set(["1", "2"]);

/** An identifier quoted for the dialect: only columns checked against Drupal's `users` columns come here. */
function quoted(dialect: Drupal7Dialect, column: string): string {
  if (!isUsersColumn(column)) throw new TypeError(`not a users column: ${column}`);
  return dialect === "mysql" ? `\`${column}\`` : `"${column}"`;
}

/**
 * The account writes of `drupal7UserStore`, as Drupal's `user_save()` and `user_delete()` make them,
 * each in one transaction: a uid from `sequences` as `db_next_id()` gives one (never below the
 * highest uid), `users_roles` for the roles, Services' `services_user` row where the table is, and
 * uniqueness held by the database: names and mails are locked as Drupal compares them (MySQL: a
 * locking read of the column's own collation, and the unique key on `name`; PostgreSQL: advisory
 * locks on their lower case) before they are checked and written, so two writers cannot both win.
 */
export function drupal7UserWrites(
  target: UserWriteTarget,
): Required<Pick<UserStore, "findByMail" | "createUser" | "updateUser" | "deleteUser" | "listUsers" | "permissions" | "roles">> {
  const { db, pool, prefix, parallelRun } = target;
  const checkHash = (hash: string): void => {
    if (parallelRun && !isDrupal7StoredHash(hash)) {
      throw new Error(
        "drupal7UserStore: parallelRun: refusing to store a password hash Drupal 7 cannot check; use drupal7Hasher() while Drupal serves the same users",
      );
    }
  };
  const { dialect } = db;
  const table = (name: string) => `${prefix}${name}`;
  const users = table("users");
  let servicesUser: Promise<boolean> | undefined;

  /** Whether Services' `services_user` table is there: read once. */
  function hasServicesUser(): Promise<boolean> {
    servicesUser ??= (
      dialect === "mysql"
        ? db.select<{ n: unknown }>(
            "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?",
            prefix.includes(".") ? [prefix.split(".")[0]!, `${prefix.split(".")[1]!}services_user`] : [null, table("services_user")],
          )
        : db.select<{ n: unknown }>("SELECT CASE WHEN to_regclass(?) IS NULL THEN 0 ELSE 1 END AS n", [table("services_user")])
    ).then(
      ([row]) => Number(row?.n) > 0,
      (error: unknown) => {
        servicesUser = undefined;
        throw error;
      },
    );
    return servicesUser;
  }

  /** Locks a name or mail against every other writer of this store until the transaction ends. */
  async function lock(tx: Drupal7Transaction, field: "name" | "mail", value: string): Promise<void> {
    if (dialect === "postgres") {
      await tx.select("SELECT pg_advisory_xact_lock(hashtext(? || LOWER(?)))", [`services-session-auth ${field} `, value]);
      return;
    }
    // InnoDB locks the index range the value falls in (its own collation's equality), present or not.
    await tx.select(`SELECT uid FROM ${users} WHERE ${field} = ? FOR UPDATE`, [value]);
  }

  /** Whether another account than `except` holds a name or mail, as Drupal's `LIKE` compares them. */
  async function taken(tx: Drupal7Transaction, field: "name" | "mail", value: string, except: number): Promise<boolean> {
    const compare = dialect === "mysql" ? `${field} = ?` : `LOWER(${field}) = LOWER(?)`;
    return (await tx.select(`SELECT uid FROM ${users} WHERE ${compare} AND uid <> ? LIMIT 1`, [value, except])).length > 0;
  }

  /** `db_next_id(MAX(uid))` of Drupal's driver for the dialect. */
  async function nextUid(tx: Drupal7Transaction): Promise<number> {
    const [max] = await tx.select<{ m: unknown }>(`SELECT MAX(uid) AS m FROM ${users}`, []);
    const existing = Number(max?.m ?? 0);
    if (dialect === "mysql") {
      let id = (await tx.write(`INSERT INTO ${table("sequences")} () VALUES ()`, [])).insertId;
      if (existing >= id) {
        await tx.write(`INSERT INTO ${table("sequences")} (value) VALUES (?) ON DUPLICATE KEY UPDATE value = value`, [existing]);
        id = (await tx.write(`INSERT INTO ${table("sequences")} () VALUES ()`, [])).insertId;
      }
      return id;
    }
    const sequence = `${table("sequences")}_value_seq`;
    const [next] = await tx.select<{ id: unknown }>("SELECT nextval(?::regclass) AS id", [sequence]);
    let id = Number(next?.id);
    if (id > existing) return id;
    // As Drupal's PostgreSQL driver: restart the sequence above the highest uid.
    // POSTGRESQL_NEXTID_LOCK, as Drupal takes it: the two never move the sequence at once.
    await tx.select("SELECT pg_advisory_xact_lock(1000)", []);
    await tx.write(`ALTER SEQUENCE ${sequence} RESTART WITH ${existing + 1}`, []);
    const [again] = await tx.select<{ id: unknown }>("SELECT nextval(?::regclass) AS id", [sequence]);
    id = Number(again?.id);
    return id;
  }

  async function writeRoles(tx: Drupal7Transaction, uid: number, roles: Readonly<Record<string, string>>, replace: boolean): Promise<void> {
    if (replace) await tx.write(`DELETE FROM ${table("users_roles")} WHERE uid = ?`, [uid]);
    for (const rid of Object.keys(roles)) {
      if (IMPLIED_ROLES.has(rid) || !/^\d{1,10}$/.test(rid)) continue;
      await tx.write(`INSERT INTO ${table("users_roles")} (uid, rid) VALUES (?, ?)`, [uid, Number(rid)]);
    }
  }

  /** `_user_resource_update_services_user()`: Services' row of when it made and last changed the account. */
  async function touchServicesUser(tx: Drupal7Transaction, uid: number, at: number): Promise<void> {
    if (!(await hasServicesUser())) return;
    const changed = await tx.write(`UPDATE ${table("services_user")} SET changed = ? WHERE uid = ?`, [at, uid]);
    if (changed.rows === 0) await tx.write(`INSERT INTO ${table("services_user")} (uid, created, changed) VALUES (?, ?, ?)`, [uid, at, at]);
  }

  async function read(tx: Drupal7Transaction, uid: number): Promise<UserRecord | undefined> {
    return recordsOf(await tx.select<UserRow>(usersWithRolesSql(db, `${users} u`, "WHERE u.uid = ?"), [uid]))[0];
  }

  /** A value for `users.data`: PHP-serialized, as bytes on PostgreSQL's bytea. */
  function dataColumn(value: unknown): SqlValue {
    if (value === undefined || value === null) return null;
    const serialized = phpSerialize(value);
    return dialect === "postgres" ? Buffer.from(serialized, "utf8") : serialized;
  }

  return {
    async findByMail(mail) {
      const compare = dialect === "mysql" ? "mail = ?" : "LOWER(mail) = LOWER(?)";
      return recordsOf(
        await db.select<UserRow>(usersWithRolesSql(db, `(SELECT * FROM ${users} WHERE ${compare} AND uid > 0 ORDER BY uid LIMIT 10) u`), [mail]),
      );
    },
    createUser(input: NewUserRecord): Promise<UserWrite> {
      checkHash(input.passwordHash);
      return inTransaction(
        pool,
        dialect,
        async (tx) => {
          await lock(tx, "name", input.name);
          await lock(tx, "mail", input.mail);
          if (await taken(tx, "name", input.name, 0)) return { taken: "name" as const };
          if (await taken(tx, "mail", input.mail, 0)) return { taken: "mail" as const };
          const uid = await nextUid(tx);
          const fields = input.fields ?? {};
          const text = (key: string, fallback: string | null): SqlValue => (Object.hasOwn(fields, key) ? (drupalString(fields[key]) ?? null) : fallback);
          try {
            await tx.write(
              `INSERT INTO ${users} (uid, name, pass, mail, theme, signature, signature_format, created, changed, access, login, status, timezone, language, picture, init, data) ` +
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?)",
              [
                uid,
                input.name,
                input.passwordHash,
                input.mail,
                text("theme", ""),
                text("signature", ""),
                text("signature_format", null),
                input.created,
                input.created,
                input.active ? 1 : 0,
                text("timezone", null),
                text("language", ""),
                Number(fields.picture ?? 0) || 0,
                input.init,
                dataColumn(fields.data),
              ],
            );
          } catch (error) {
            // The unique key on name, where a writer this store does not know (Drupal) got there first.
            if ((error as { errno?: unknown; code?: unknown }).errno === 1062 || (error as { code?: unknown }).code === "23505")
              return { taken: "name" as const };
            throw error;
          }
          await writeRoles(tx, uid, input.roles, false);
          await touchServicesUser(tx, uid, input.created);
          return { user: (await read(tx, uid))! };
        },
        WRITERS_LOCK,
      ).finally(() => (dialect === "mysql" ? cleanSequences() : undefined));
    },
    updateUser(uidText: string, changes: UserChanges): Promise<UserWrite | null> {
      if (!/^[1-9]\d{0,9}$/.test(uidText)) return Promise.resolve(null);
      if (changes.passwordHash !== undefined) checkHash(changes.passwordHash);
      const uid = Number(uidText);
      return inTransaction(
        pool,
        dialect,
        async (tx) => {
          if (changes.name !== undefined) await lock(tx, "name", changes.name);
          if (changes.mail !== undefined) await lock(tx, "mail", changes.mail);
          const current = await tx.select(`SELECT uid FROM ${users} WHERE uid = ? FOR UPDATE`, [uid]);
          if (current.length === 0) return null;
          if (changes.name !== undefined && (await taken(tx, "name", changes.name, uid))) return { taken: "name" as const };
          if (changes.mail !== undefined && (await taken(tx, "mail", changes.mail, uid))) return { taken: "mail" as const };
          const sets: string[] = ["changed = ?"];
          const values: SqlValue[] = [changes.changed];
          const set = (column: string, value: SqlValue) => {
            sets.push(`${quoted(dialect, column)} = ?`);
            values.push(value);
          };
          if (changes.name !== undefined) set("name", changes.name);
          if (changes.mail !== undefined) set("mail", changes.mail);
          if (changes.passwordHash !== undefined) set("pass", changes.passwordHash);
          if (changes.active !== undefined) set("status", changes.active ? 1 : 0);
          for (const [column, value] of Object.entries(changes.fields ?? {})) {
            if (column === "data") set("data", dataColumn(value));
            else if (isUsersColumn(column) && !["uid", "name", "mail", "pass", "status", "created", "changed"].includes(column))
              set(column, drupalString(value));
          }
          try {
            await tx.write(`UPDATE ${users} SET ${sets.join(", ")} WHERE uid = ?`, [...values, uid]);
          } catch (error) {
            if ((error as { errno?: unknown; code?: unknown }).errno === 1062 || (error as { code?: unknown }).code === "23505")
              return { taken: "name" as const };
            throw error;
          }
          if (changes.roles !== undefined) await writeRoles(tx, uid, changes.roles, true);
          await touchServicesUser(tx, uid, changes.changed);
          return { user: (await read(tx, uid))! };
        },
        WRITERS_LOCK,
      );
    },
    async deleteUser(uidText) {
      if (!/^[1-9]\d{0,9}$/.test(uidText)) return false;
      const uid = Number(uidText);
      return inTransaction(pool, dialect, async (tx) => {
        const deleted = await tx.write(`DELETE FROM ${users} WHERE uid = ?`, [uid]);
        await tx.write(`DELETE FROM ${table("users_roles")} WHERE uid = ?`, [uid]);
        await tx.write(`DELETE FROM ${table("authmap")} WHERE uid = ?`, [uid]);
        return deleted.rows > 0;
      });
    },
    async listUsers(query: UserListQuery): Promise<UserListRow[]> {
      // Drupal's PostgreSQL driver selects the columns it orders by too (SQL-92), after those asked for.
      const fields =
        query.fields.length > 0 && dialect === "postgres" ? [...new Set([...query.fields, ...query.orderBy.map(({ column }) => column)])] : query.fields;
      const selected = fields.length === 0 ? "*" : fields.map((field) => quoted(dialect, field)).join(", ");
      const where: string[] = [];
      const values: SqlValue[] = [];
      for (const condition of query.conditions) {
        const column = quoted(dialect, condition.column);
        if (condition.operator === "IN" || condition.operator === "NOT IN") {
          where.push(`${column} ${condition.operator} (${condition.values.map(() => "?").join(", ")})`);
          values.push(...condition.values);
        } else {
          // Drupal's PostgreSQL driver makes LIKE case-insensitive, as MySQL's collation is.
          const operator = dialect === "postgres" && condition.operator.endsWith("LIKE") ? condition.operator.replace("LIKE", "ILIKE") : condition.operator;
          where.push(`${dialect === "postgres" ? `${column}::text` : column} ${operator} ?`);
          values.push(condition.values[0] ?? "");
        }
      }
      // No tie-breaker of its own: the same query as Drupal's, so ties come in the order the database gives Drupal.
      const order = query.orderBy.map(({ column, direction }) => `${quoted(dialect, column)} ${direction}`);
      const sql =
        `SELECT ${selected} FROM ${users} t${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`}${order.length === 0 ? "" : ` ORDER BY ${order.join(", ")}`} ` +
        `LIMIT ${Math.max(0, Math.floor(query.limit))} OFFSET ${Math.max(0, Math.floor(query.offset))}`;
      const rows = await db.select<Record<string, unknown>>(sql, values);
      const columns = fields.length === 0 ? USERS_COLUMNS : fields;
      // The table's columns in its order (a site may have more, at their place); PDO's PostgreSQL
      // driver hands bytea over as a stream, which Services' JSON writes as null.
      return rows.map((row) =>
        Object.fromEntries(
          [...new Set([...Object.keys(row), ...columns])]
            .filter((key) => Object.hasOwn(row, key))
            .map((key) => [key, key === "data" && dialect === "postgres" ? null : drupalString(row[key])]),
        ),
      );
    },
    async permissions(roles) {
      const rids = Object.keys(roles).filter((rid) => /^\d{1,10}$/.test(rid));
      if (rids.length === 0) return [];
      const rows = await db.select<{ permission: unknown }>(
        `SELECT DISTINCT permission FROM ${table("role_permission")} WHERE rid IN (${rids.map(() => "?").join(", ")})`,
        rids.map(Number),
      );
      return rows.map((row) => drupalString(row.permission) ?? "");
    },
    async roles() {
      const rows = await db.select<{ rid: unknown; name: unknown }>(`SELECT rid, name FROM ${table("role")} WHERE rid <> 1 ORDER BY weight, name`, []);
      return Object.fromEntries(rows.map((row) => [String(row.rid), drupalString(row.name) ?? ""]));
    },
  };

  /** `nextIdDelete()`: the sequence table keeps only its highest value. */
  async function cleanSequences(): Promise<void> {
    try {
      const [row] = await db.select<{ m: unknown }>(`SELECT MAX(value) AS m FROM ${table("sequences")}`, []);
      if (row?.m !== null && row?.m !== undefined) await db.write(`DELETE FROM ${table("sequences")} WHERE value < ?`, [Number(row.m)]);
    } catch {
      // As Drupal: the table only grows a little if this fails.
    }
  }
}
