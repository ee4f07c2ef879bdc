import type { SessionRecord, StoredSession, UserRecord } from "../types.js";

/** The `users` columns in schema order, with Drupal's values for a plain account. */
const COLUMN_DEFAULTS: ReadonlyArray<readonly [string, unknown]> = [
  ["theme", ""],
  ["signature", ""],
  ["signature_format", null],
  ["created", undefined],
  ["changed", undefined],
  ["access", undefined],
  ["login", undefined],
  ["status", undefined],
  ["timezone", null],
  ["language", ""],
  ["picture", null],
  ["init", undefined],
  ["data", false],
];
const COLUMNS = new Set(["uid", "name", "mail", "pass", ...COLUMN_DEFAULTS.map(([key]) => key)]);

/** The anonymous role, as Drupal's `drupal_anonymous_user()` has it. */
export const ANONYMOUS_ROLES: Readonly<Record<string, string>> = Object.freeze({ "1": "anonymous user" });

function column(user: UserRecord, key: string, fallback: unknown): unknown {
  return user.fields !== undefined && Object.hasOwn(user.fields, key) ? user.fields[key] : fallback;
}

/** The login reply's `user` as `_user_resource_login` sent it (PDO strings, `roles` by rid, no `pass`, admin-only `init`). */
export function loginUserObject(user: UserRecord, loginAt: number, isAdmin: boolean): Record<string, unknown> {
  // A NULL users.mail stays null, as Drupal sends it; the record's mail is "" then.
  const out: Record<string, unknown> = { uid: user.uid, name: user.name, mail: column(user, "mail", user.mail) };
  for (const [key, fallback] of COLUMN_DEFAULTS) {
    switch (key) {
      case "created":
        out.created = String(column(user, key, user.created));
        break;
      case "changed": {
        // Core 7.83+ has the column and sets it to `created` when an account is made; a
        // store that does not know it gives that value.
        const changed = column(user, key, String(user.created));
        // PDO fetches every column as a string; a store's number is one too.
        out.changed = typeof changed === "number" ? String(changed) : changed;
        break;
      }
      case "access":
        out.access = String(user.access);
        break;
      case "login":
        out.login = loginAt;
        break;
      case "status":
        out.status = user.active ? "1" : "0";
        break;
      case "init":
        if (isAdmin) out.init = column(user, "init", user.mail);
        break;
      default:
        out[key] = column(user, key, fallback);
    }
  }
  out.roles = { ...user.roles };
  // Field API values and hook_user_load additions (field_*, rdf_mapping) follow the roles.
  for (const [key, value] of Object.entries(user.fields ?? {})) if (!COLUMNS.has(key)) out[key] = value;
  return out;
}

function asDbString(value: unknown): unknown {
  if (value === null || typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return value;
}

/** `system/connect`'s `user`: the row `_drupal_session_read()` joins, all strings; `ssid` the `sid` over HTTPS, else `""`. */
export function connectUserObject(user: UserRecord, session: StoredSession, isAdmin: boolean, secure: boolean): Record<string, unknown> {
  const login = loginUserObject(user, user.login, isAdmin);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(login)) {
    if (key === "roles" || !COLUMNS.has(key)) continue;
    if (key === "data") out.data = value;
    else if (key === "picture") out.picture = pictureFid(value);
    else out[key] = asDbString(value);
  }
  const record: SessionRecord = session.record;
  out.sid = session.handle;
  out.ssid = secure ? session.handle : "";
  out.hostname = record.ip;
  out.timestamp = String(record.lastSeenAt);
  out.cache = "0";
  out.session = "";
  out.roles = { ...user.roles };
  return out;
}

function pictureFid(value: unknown): string {
  if (value === null || value === undefined) return "0";
  if (typeof value === "object" && "fid" in value) return String((value as { fid: unknown }).fid);
  return String(value);
}

/** The `user` of an anonymous `system/connect`: Services' swapped-in anonymous user, numbers and all. */
export function anonymousUserObject(ip: string, now: number): Record<string, unknown> {
  return { uid: 0, hostname: ip, roles: { ...ANONYMOUS_ROLES }, cache: 0, timestamp: now };
}

/** The body of `user/logout` at API 1.1: `drupal_anonymous_user()`, a fresh object, so no `timestamp`. */
export function logoutUserObject(ip: string): Record<string, unknown> {
  return { uid: 0, hostname: ip, roles: { ...ANONYMOUS_ROLES }, cache: 0 };
}
