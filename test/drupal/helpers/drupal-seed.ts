/**
 * Accounts, roles and settings of a small Drupal 7 site, with real Drupal hashes of every
 * form. The hashes are the published vectors (node-drupal-hash's tests, checked against
 * Drupal's includes/password.inc) and vectors from test/fixtures/drupal7/make-hash-vectors.py.
 */
import { createHmac } from "node:crypto";
import type { TestDrupalDb } from "./drupal-db.js";

export interface SeedUser {
  uid: number;
  name: string;
  pass: string;
  /** The plain password that `pass` was made from. */
  password: string;
  mail: string | null;
  status: number;
  signature_format: string | null;
  timezone: string | null;
  init: string | null;
  data: string | null;
  created: number;
  changed: number;
  access: number;
  login: number;
  picture: number;
  roles: number[];
}

const base = { mail: null, signature_format: null, timezone: null, init: "", data: null, changed: 1435764274, access: 0, login: 0, picture: 0, roles: [] };

export const SEED_USERS = {
  anonymous: { ...base, uid: 0, name: "", pass: "", password: "", mail: "", status: 0, created: 0, changed: 0 },
  admin: {
    ...base,
    uid: 1,
    name: "admin",
    pass: "$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI",
    password: "password1234",
    mail: "admin@example.com",
    status: 1,
    signature_format: "filtered_html",
    timezone: "Europe/Paris",
    init: "admin@example.com",
    data: 'a:1:{s:7:"overlay";i:1;}',
    created: 1435764274,
    changed: 1435764280,
    access: 1435764290,
    login: 1435764295,
    picture: 7,
    roles: [3, 4],
  },
  phpass: {
    ...base,
    uid: 14,
    name: "Joe Phpass",
    pass: "$P$DxTIL/YfZCdJtFYNh1Ef9ERbMBkuQ91",
    password: "derpalicious",
    mail: "joe@example.com",
    status: 1,
    data: "b:0;",
    created: 1435764274,
  },
  phpbb: {
    ...base,
    uid: 15,
    name: "phpbb",
    pass: "$H$5HHHHHHHH2eciXtFOOyuRkDEBY/8XG1",
    password: "phpbb3 user",
    mail: "phpbb@example.com",
    status: 1,
    created: 1435764275,
  },
  d6: {
    ...base,
    uid: 16,
    name: "d6user",
    pass: "U$S$9abcdefghaWREx4nSgjMWvJjDfjbr/hWyd5GnT.Y27ylRbujarsi",
    password: "derpalicious",
    mail: "d6@example.com",
    status: 1,
    data: "",
    created: 1235764275,
  },
  blocked: {
    ...base,
    uid: 17,
    name: "blocked",
    pass: "$S$DeIZ1KTE.VzRvudZ5.xgOakipuMFrVyPmRdWTjAdYieWj27NMglI",
    password: "password1234",
    mail: "blocked@example.com",
    status: 0,
    created: 1435764276,
    roles: [4],
  },
  unicode: {
    ...base,
    uid: 18,
    name: "Zoë Ünïcode",
    pass: "$S$8Uni0codeWGpQvMdt2E6cZeTtFIV6ji/EL0h5ZATkI6pey/LLqkt",
    password: "pässwörd ✓",
    mail: "zoe@example.com",
    status: 1,
    data: 'a:2:{s:7:"contact";i:0;s:5:"block";a:1:{s:6:"system";a:0:{}}}',
    created: 1435764277,
  },
} satisfies Record<string, SeedUser>;

export const SEED_ROLES: ReadonlyArray<[number, string]> = [
  [1, "anonymous user"],
  [2, "authenticated user"],
  [3, "administrator"],
  [4, "editor"],
];

/** The `drupal_private_key` stored in `variable`, PHP-serialized as Drupal keeps it. */
export const SEED_PRIVATE_KEY = "k3JqPZ0cT9wYbXfL2mHs8vRnA4dG6eU1iO5aQ7zW-_x";

/** settings.php's `$drupal_hash_salt` of the seeded site, for `drupal7CsrfToken`. */
export const SEED_HASH_SALT = "oQ4y3m1Zr7XcVb8nL2kJ5hG9fD0sA6pW";

export async function seedUsers(db: TestDrupalDb, users: readonly SeedUser[] = Object.values(SEED_USERS)): Promise<void> {
  const blob = (value: string | null) => (value === null ? null : Buffer.from(value, "utf8"));
  for (const user of users) {
    await db.run(
      `INSERT INTO ${db.table("users")} (uid, name, pass, mail, theme, signature, signature_format, created, changed, access, login, status, timezone, language, picture, init, data)
       VALUES (?, ?, ?, ?, '', '', ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?)`,
      [
        user.uid,
        user.name,
        user.pass,
        user.mail,
        user.signature_format,
        user.created,
        user.changed,
        user.access,
        user.login,
        user.status,
        user.timezone,
        user.picture,
        user.init,
        blob(user.data),
      ],
    );
    for (const rid of user.roles) await db.run(`INSERT INTO ${db.table("users_roles")} (uid, rid) VALUES (?, ?)`, [user.uid, rid]);
  }
}

export async function seedSite(db: TestDrupalDb, options: { schemaVersion?: number } = {}): Promise<void> {
  for (const [rid, name] of SEED_ROLES) await db.run(`INSERT INTO ${db.table("role")} (rid, name, weight) VALUES (?, ?, ?)`, [rid, name, rid]);
  await seedUsers(db);
  await db.run(`INSERT INTO ${db.table("system")} (filename, name, type, status, schema_version) VALUES (?, ?, ?, 1, ?)`, [
    "modules/system/system.module",
    "system",
    "module",
    options.schemaVersion ?? 7086,
  ]);
  await db.run(`INSERT INTO ${db.table("variable")} (name, value) VALUES (?, ?)`, [
    "drupal_private_key",
    Buffer.from(`s:${SEED_PRIVATE_KEY.length}:"${SEED_PRIVATE_KEY}";`),
  ]);
}

export async function setSchemaVersion(db: TestDrupalDb, version: number): Promise<void> {
  await db.run(`UPDATE ${db.table("system")} SET schema_version = ? WHERE name = ?`, [version, "system"]);
}

export interface SeedSession {
  uid: number;
  sid: string;
  hostname?: string;
  timestamp: number;
}

export async function insertSessions(db: TestDrupalDb, sessions: readonly SeedSession[]): Promise<void> {
  for (const s of sessions) {
    await db.run(`INSERT INTO ${db.table("sessions")} (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (?, ?, '', ?, ?, 0, ?)`, [
      s.uid,
      s.sid,
      s.hostname ?? "203.0.113.7",
      s.timestamp,
      Buffer.from("messages|a:0:{}"),
    ]);
  }
}

export async function clearSessions(db: TestDrupalDb): Promise<void> {
  await db.run(`DELETE FROM ${db.table("sessions")}`);
}

/** What a Drupal-era app cached: its cookie and the token Drupal derived for it (drupal_get_token() in includes/common.inc), computed here independently. */
export function drupalClient(sessid: string, sessionName: string): { cookie: string; token: string } {
  const token = createHmac("sha256", sessid + SEED_PRIVATE_KEY + SEED_HASH_SALT)
    .update("services")
    .digest("base64url");
  return { cookie: `${sessionName}=${sessid}`, token };
}
