import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { scryptHasher } from "../login/scrypt-hasher.js";
import { answeredInProcess } from "./process-local.js";
import { parseOptions } from "../validate.js";
import { queryRows, usersRowOf } from "../accounts/users-table.js";
import { ACCOUNT_PERMISSIONS } from "../accounts/permissions.js";
import type { NewUserRecord, PasswordHasher, UserChanges, UserRecord, UserStore, UserWrite } from "../types.js";

/**
 * One account given to {@link memoryUserStore}: a plain `password` (hashed at start-up) or an existing `passwordHash`.
 *
 * @example
 * ```ts
 * memoryUserStore([
 *   { name: "demo", password: "demo-password", mail: "demo@example.com" },
 *   { uid: "1", name: "admin", passwordHash: "$scrypt$…", roles: ["administrator"] },
 * ]);
 * ```
 */
export interface MemoryUserInput {
  /** @default its position in the list plus one, as a string ("1" for the first) */
  uid?: string;
  /** The account name; logins match it case-insensitively. */
  name: string;
  /** @default "" */
  mail?: string;
  /** A plain password, hashed with the store's hasher at start-up. Give this or `passwordHash`. */
  password?: string;
  /** An existing hash in a format the hasher verifies. Give this or `password`. */
  passwordHash?: string;
  /**
   * Role names, or Drupal's rid → name map. "authenticated user" (rid 2) is always added.
   * @default only "authenticated user"
   */
  roles?: readonly string[] | Readonly<Record<string, string>>;
  /** @default true */
  active?: boolean;
  /**
   * Other `users` columns with Drupal's JSON types, for the login reply.
   * @default none: Drupal's values for a plain account
   */
  fields?: Readonly<Record<string, unknown>>;
}

/** Options of {@link memoryUserStore}. */
export interface MemoryUserStoreOptions {
  /**
   * Hashes the plain passwords given. Use the same hasher as `createSessionAuthRouter`, so logins verify with it.
   * @default scryptHasher()
   */
  hasher?: PasswordHasher;
  /**
   * Drupal permissions by role name (`"administer users"`, `"access user profiles"`, …), for the
   * account calls; `"*"` grants every permission they consult.
   * @default `{ administrator: "*" }`: as Drupal's standard profile, the administrator role has every permission, others none
   */
  permissions?: Readonly<Record<string, readonly string[] | "*">>;
}

const userSchema = z
  .strictObject({
    uid: z
      .string()
      .regex(/^[1-9]\d*$/, "must be a positive decimal string")
      .optional(),
    name: z.string().min(1),
    mail: z.string().optional(),
    password: z.string().min(1).optional(),
    passwordHash: z.string().min(1).optional(),
    roles: z.union([z.array(z.string()).readonly(), z.record(z.string(), z.string())]).optional(),
    active: z.boolean().optional(),
    fields: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((user) => (user.password === undefined) !== (user.passwordHash === undefined), "needs exactly one of password or passwordHash");

const inputSchema = z.strictObject({
  users: z.array(userSchema).readonly(),
  options: z.strictObject({
    hasher: z.custom<PasswordHasher>((v) => typeof v === "object" && v !== null && "hash" in v).optional(),
    permissions: z.record(z.string(), z.union([z.literal("*"), z.array(z.string()).readonly()])).optional(),
  }),
});

/** The permission a role list of `"*"` stands for: every one. */
const EVERY_PERMISSION = "*";

// Drupal's standard profile: 1 anonymous, 2 authenticated, 3 administrator.
const KNOWN_ROLES: Readonly<Record<string, string>> = { "anonymous user": "1", "authenticated user": "2", administrator: "3" };

function roleMap(roles: MemoryUserInput["roles"], extra: Map<string, string>): Record<string, string> {
  const out: Record<string, string> = { "2": "authenticated user" };
  if (roles === undefined) return out;
  if (!Array.isArray(roles)) return { ...out, ...(roles as Record<string, string>) };
  for (const name of roles as readonly string[]) {
    let rid = KNOWN_ROLES[name] ?? extra.get(name);
    if (rid === undefined) extra.set(name, (rid = String(4 + extra.size)));
    out[rid] = name;
  }
  return out;
}

/**
 * A {@link UserStore} held in memory, with a promise for the start-up hashing.
 *
 * @example
 * ```ts
 * const userStore = memoryUserStore(users);
 * await userStore.ready; // optional: the first logins then need not wait for the hashing
 * ```
 */
export interface MemoryUserStore extends UserStore {
  /** Resolves once the plain passwords are hashed (~0.6 s each, four at a time); lookups wait, outside `storeTimeout`. */
  readonly ready: Promise<void>;
}

/**
 * An in-memory {@link UserStore} for demos, tests and small fixed lists: plain passwords are hashed
 * in the background (see `ready`), names and mails match case-insensitively as on Drupal's MySQL.
 * It writes too (the account calls: registration, edits, deletion), with uids as Drupal allocates
 * them (the highest ever given plus one), in this process only.
 *
 * @example
 * ```ts
 * const userStore = memoryUserStore([
 *   { name: "demo", password: "demo-password", mail: "demo@example.com", roles: ["authenticated user"] },
 * ]);
 * ```
 * @throws TypeError for a malformed user, a duplicate name or uid.
 */
export function memoryUserStore(users: readonly MemoryUserInput[], options: MemoryUserStoreOptions = {}): MemoryUserStore {
  const parsed = parseOptions(inputSchema, { users, options }, "memoryUserStore");
  const hasher = parsed.options.hasher ?? scryptHasher();
  const grants = parsed.options.permissions ?? { administrator: EVERY_PERMISSION };
  const byId = new Map<string, UserRecord>();
  const byName = new Map<string, string>();
  const extraRoles = new Map<string, string>();
  const created = nowSeconds();
  const pending: Promise<void>[] = [];

  parsed.users.forEach((input, index) => {
    const uid = input.uid ?? String(index + 1);
    const key = input.name.toLowerCase();
    if (byId.has(uid) || byName.has(key)) throw new TypeError(`memoryUserStore: duplicate user ${byId.has(uid) ? `uid ${uid}` : `name "${input.name}"`}`);
    const record: UserRecord = {
      uid,
      name: input.name,
      mail: input.mail ?? "",
      passwordHash: input.passwordHash ?? "",
      active: input.active ?? true,
      roles: roleMap(input.roles, extraRoles),
      created,
      access: 0,
      login: 0,
      ...(input.fields === undefined ? {} : { fields: { ...input.fields } }),
    };
    byId.set(uid, record);
    byName.set(key, uid);
    if (input.password !== undefined) {
      pending.push(hasher.hash(input.password).then((passwordHash) => void byId.set(uid, { ...byId.get(uid)!, passwordHash })));
    }
  });
  let hashed = pending.length === 0;
  const ready = Promise.all(pending).then(() => {
    hashed = true;
  });
  // db_next_id(): never below the highest uid, never one given before (a deleted account's uid stays spent).
  let lastUid = Math.max(0, ...[...byId.keys()].map(Number));
  for (const name of Object.keys(grants)) if (KNOWN_ROLES[name] === undefined && !extraRoles.has(name)) extraRoles.set(name, String(4 + extraRoles.size));

  /** The uid of another account holding a name or mail (case-insensitive, as on Drupal's MySQL), if any. */
  function holder(field: "name" | "mail", value: string, except?: string): string | undefined {
    if (field === "name") {
      const uid = byName.get(value.toLowerCase());
      return uid === except ? undefined : uid;
    }
    const wanted = value.toLowerCase();
    for (const [uid, user] of byId) if (uid !== except && user.mail.toLowerCase() === wanted) return uid;
    return undefined;
  }

  function roleTable(): Record<string, string> {
    const table: Record<string, string> = { "2": "authenticated user", "3": "administrator" };
    for (const [name, rid] of extraRoles) table[rid] = name;
    return table;
  }

  const store: MemoryUserStore = {
    ready,
    async findByName(name) {
      await ready;
      const uid = byName.get(name.toLowerCase());
      return uid === undefined ? null : (byId.get(uid) ?? null);
    },
    async nameKey(name) {
      return name.toLowerCase();
    },
    async findById(uid) {
      // Every protected request asks: once the start-up hashes are in, it costs no extra await.
      if (!hashed) await ready;
      return byId.get(uid) ?? null;
    },
    async recordLogin(uid, at) {
      const user = byId.get(uid);
      if (user !== undefined) byId.set(uid, { ...user, login: at, access: at });
    },
    async updatePasswordHash(uid, expected, next) {
      const user = byId.get(uid);
      if (user === undefined || user.passwordHash !== expected) return false;
      byId.set(uid, { ...user, passwordHash: next });
      return true;
    },
    async findByMail(mail) {
      await ready;
      const wanted = mail.toLowerCase();
      return [...byId.values()]
        .filter((user) => user.mail.toLowerCase() === wanted)
        .sort((a, b) => Number(a.uid) - Number(b.uid))
        .slice(0, 10);
    },
    async createUser(input: NewUserRecord): Promise<UserWrite> {
      await ready;
      // Checked and written in one turn of the event loop: no other write comes between.
      if (holder("name", input.name) !== undefined) return { taken: "name" };
      if (holder("mail", input.mail) !== undefined) return { taken: "mail" };
      const uid = String(++lastUid);
      const user: UserRecord = {
        uid,
        name: input.name,
        mail: input.mail,
        passwordHash: input.passwordHash,
        active: input.active,
        roles: { "2": "authenticated user", ...input.roles },
        created: input.created,
        access: 0,
        login: 0,
        fields: { ...input.fields, init: input.init, changed: String(input.created) },
      };
      byId.set(uid, user);
      byName.set(input.name.toLowerCase(), uid);
      return { user };
    },
    async updateUser(uid: string, changes: UserChanges): Promise<UserWrite | null> {
      await ready;
      const user = byId.get(uid);
      if (user === undefined) return null;
      if (changes.name !== undefined && holder("name", changes.name, uid) !== undefined) return { taken: "name" };
      if (changes.mail !== undefined && holder("mail", changes.mail, uid) !== undefined) return { taken: "mail" };
      const next: UserRecord = {
        ...user,
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.mail === undefined ? {} : { mail: changes.mail }),
        ...(changes.passwordHash === undefined ? {} : { passwordHash: changes.passwordHash }),
        ...(changes.active === undefined ? {} : { active: changes.active }),
        ...(changes.roles === undefined ? {} : { roles: { "2": "authenticated user", ...changes.roles } }),
        fields: { ...user.fields, ...changes.fields, ...(changes.mail === undefined ? {} : { mail: changes.mail }), changed: String(changes.changed) },
      };
      if (changes.name !== undefined) {
        byName.delete(user.name.toLowerCase());
        byName.set(changes.name.toLowerCase(), uid);
      }
      byId.set(uid, next);
      return { user: next };
    },
    async deleteUser(uid) {
      const user = byId.get(uid);
      if (user === undefined) return false;
      byId.delete(uid);
      byName.delete(user.name.toLowerCase());
      return true;
    },
    async listUsers(query) {
      await ready;
      return queryRows([...byId.values()].map(usersRowOf), query);
    },
    async permissions(roles) {
      const granted = new Set<string>();
      for (const name of Object.values(roles)) {
        const list = grants[name];
        for (const permission of list === EVERY_PERMISSION ? ACCOUNT_PERMISSIONS : (list ?? [])) granted.add(permission);
      }
      return [...granted];
    },
    async roles() {
      return roleTable();
    },
  };
  return answeredInProcess(store, { user: (uid) => (hashed ? (byId.get(uid) ?? null) : undefined) });
}
