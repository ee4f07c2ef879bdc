import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { scryptHasher } from "../login/scrypt-hasher.js";
import { answeredInProcess } from "./process-local.js";
import { parseOptions } from "../validate.js";
import type { PasswordHasher, UserRecord, UserStore } from "../types.js";

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
  options: z.strictObject({ hasher: z.custom<PasswordHasher>((v) => typeof v === "object" && v !== null && "hash" in v).optional() }),
});

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
 * in the background (see `ready`), names match case-insensitively as on Drupal's MySQL.
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
  };
  return answeredInProcess(store);
}
