import type { Pool } from "pg";
import type { UserRecord, UserStore } from "services-session-auth";

/** A row of the team's own table (see schema.sql): nothing in it was made for Drupal. */
interface AppUserRow {
  id: number;
  username: string;
  email: string;
  password_hash: string;
  disabled: boolean;
  is_admin: boolean;
  created_at: Date;
  last_login_at: Date | null;
}

const COLUMNS = "id, username, email, password_hash, disabled, is_admin, created_at, last_login_at";
const seconds = (date: Date | null) => (date === null ? 0 : Math.floor(date.getTime() / 1000));

/** The account as the package reads it: a decimal-string uid, Drupal's role map, Unix seconds. */
function toUserRecord(row: AppUserRow): UserRecord {
  return {
    uid: String(row.id), // never "0": serial ids start at 1
    name: row.username,
    mail: row.email,
    passwordHash: row.password_hash,
    active: !row.disabled, // a disabled account cannot log in, and its sessions stop working
    roles: row.is_admin ? { "2": "authenticated user", "3": "administrator" } : { "2": "authenticated user" },
    created: seconds(row.created_at),
    access: seconds(row.last_login_at),
    login: seconds(row.last_login_at),
  };
}

/** A UserStore over the team's `app_users` table in PostgreSQL, through the app's own `pg` pool. */
export function appUserStore(pool: Pool): UserStore {
  return {
    async findByName(name) {
      const { rows } = await pool.query<AppUserRow>(`SELECT ${COLUMNS} FROM app_users WHERE lower(username) = lower($1)`, [name]);
      return rows[0] === undefined ? null : toUserRecord(rows[0]);
    },
    // The key findByName compares by, computed by the same database: the login throttle counts
    // every spelling of one account ("Ana", "ANA") as one.
    async nameKey(name) {
      const { rows } = await pool.query<{ key: string }>("SELECT lower($1) AS key", [name]);
      return rows[0]!.key;
    },
    async findById(uid) {
      if (!/^[1-9]\d{0,9}$/.test(uid)) return null; // a uid this table cannot hold is no account
      const { rows } = await pool.query<AppUserRow>(`SELECT ${COLUMNS} FROM app_users WHERE id = $1`, [uid]);
      return rows[0] === undefined ? null : toUserRecord(rows[0]);
    },
    async recordLogin(uid, at) {
      await pool.query("UPDATE app_users SET last_login_at = to_timestamp($2) WHERE id = $1", [uid, at]);
    },
    // Compare-and-set: a rehash after login never overwrites a password changed meanwhile.
    async updatePasswordHash(uid, expected, next) {
      const result = await pool.query("UPDATE app_users SET password_hash = $3 WHERE id = $1 AND password_hash = $2", [uid, expected, next]);
      return result.rowCount === 1;
    },
  };
}
