import type { UserRecord } from "../types.js";
import type { Drupal7Database } from "./database.js";
import { userDataField } from "./php-unserialize.js";

/** `DRUPAL_AUTHENTICATED_RID`: every account has this role, which `users_roles` never lists. */
const AUTHENTICATED_ROLE = { "2": "authenticated user" } as const;

/** Columns that have a place of their own in a {@link UserRecord} rather than in `fields`. */
const RECORD_COLUMNS = new Set(["uid", "name", "pass", "created", "access", "login", "status"]);

/** The prefix of every column a query adds to a `users` row, so none clashes; such columns never reach `fields`. */
export const ADDED_COLUMN_PREFIX = "ssa_";

/** The role columns the lookup query adds to each `users` row. */
const ROLE_RID = `${ADDED_COLUMN_PREFIX}role_rid`;
const ROLE_NAME = `${ADDED_COLUMN_PREFIX}role_name`;

/** A row of the lookup query: `users.*` and the added columns. */
export type UserRow = Record<string, unknown>;

/** A DB value as PDO's `ATTR_STRINGIFY_FETCHES` gives it to Drupal: a string, or null. */
export function drupalString(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  return String(value);
}

function toRecord(row: UserRow, roles: Record<string, string>): UserRecord {
  const fields: Record<string, unknown> = {};
  // Every other column, in the table's order, typed as the login reply has it (see loginUserObject).
  for (const [column, value] of Object.entries(row)) {
    if (RECORD_COLUMNS.has(column) || column.startsWith(ADDED_COLUMN_PREFIX)) continue;
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

/** The accounts of the lookup's rows (one per role, or one with null roles), in order; a null `uid` (LEFT JOIN miss) is none. */
export function recordsOf(rows: readonly UserRow[]): UserRecord[] {
  const byUid = new Map<string, { row: UserRow; roles: Record<string, string> }>();
  for (const row of rows) {
    if (row.uid === null || row.uid === undefined) continue;
    const uid = String(row.uid);
    let account = byUid.get(uid);
    if (account === undefined) byUid.set(uid, (account = { row, roles: {} }));
    if (row[ROLE_RID] !== null && row[ROLE_RID] !== undefined) account.roles[String(row[ROLE_RID])] = drupalString(row[ROLE_NAME]) ?? "";
  }
  return [...byUid.values()].map(({ row, roles }) => toRecord(row, roles));
}

/** `SELECT u.*` with roles, one row per role, from `from` (naming `users` as `u`); `columns` adds joined ones, prefixed. */
export function usersWithRolesSql(db: Drupal7Database, from: string, where = "", columns = ""): string {
  return (
    `SELECT ${columns}u.*, r.rid AS ${ROLE_RID}, r.name AS ${ROLE_NAME} FROM ${from} ` +
    `LEFT JOIN (${db.table("users_roles")} ur INNER JOIN ${db.table("role")} r ON r.rid = ur.rid) ON ur.uid = u.uid ${where} ORDER BY u.uid, r.rid`
  );
}
