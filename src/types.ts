/**
 * The public contracts: plain records and the promise-only interfaces that stores, user
 * sources and hashers implement. Times are whole Unix seconds, as Drupal keeps them.
 *
 * @module
 */

/** One logged-in session as a store keeps it: plain, JSON-safe, handed back equal (docs/writing-a-store.md). */
export interface SessionRecord {
  /** The user's id, a decimal string as Drupal's `users.uid` (never `"0"`). */
  readonly uid: string;
  /** When the session was created (login), in Unix seconds. */
  readonly createdAt: number;
  /** When the session was last seen (written at most once per touch interval), in Unix seconds. */
  readonly lastSeenAt: number;
  /** When the store may forget it: the earlier deadline plus ten minutes' grace; stores never compute or enforce it. */
  readonly expiresAt: number;
  /** The client's IP address at login (Express's `req.ip`). */
  readonly ip: string;
  /** The client's `User-Agent` at login, cut to 256 characters. */
  readonly userAgent: string;
}

/**
 * A session as read back from a store: its record and the store's handle for it.
 *
 * @example
 * ```ts
 * const mine = await sessionStore.listByUser(req.auth!.user.uid);
 * res.json(mine.map(({ handle, record }) => ({ id: handle, lastSeenAt: record.lastSeenAt })));
 * ```
 */
export interface StoredSession {
  /** The store's stable name for the session, never the raw id (`base64url(sha256(sessid))` when hashed): safe to log. */
  readonly handle: string;
  readonly record: SessionRecord;
  /** The account, for a store that reads it with the session (`null`: none); left out, `UserStore.findById` is asked. */
  readonly user?: UserRecord | null;
  /** Set by a store shared with another system (Drupal) for a session that began there: the per-user cap never ends it. */
  readonly startedElsewhere?: boolean;
}

/**
 * What a store may learn of the request a call serves; optional, and ignored by a store that
 * keeps sessions by id alone. `drupal7SessionStore` reads and writes rows by Drupal's rules for
 * the request's scheme (`$is_https`) with it.
 *
 * @example
 * ```ts
 * const found = await sessionStore.get(sessid, { secure: true });
 * ```
 */
export interface SessionStoreContext {
  /** The request came over HTTPS. */
  readonly secure: boolean;
  /** The client's address, for a store that records it on every write (Drupal's `sessions.hostname`). */
  readonly ip?: string | undefined;
  /** Over HTTPS, the value of the session cookie's plain-HTTP twin (`SESS…` beside `SSESS…`), if the request sent one. */
  readonly insecureSessid?: string | undefined;
  /** On `create`: the id the request's cookie held without naming a live session (an anonymous visitor's), for a store that carries its data over. */
  readonly replacing?: string | undefined;
}

/** Where sessions live; a store rejects only when its backend fails, never for a bad id (docs/writing-a-store.md). */
export interface SessionStore {
  /** Stores a new session and returns its id (the `sessid`): ≥ 256 CSPRNG bits, base64url. `context`: the login's request. */
  create(record: SessionRecord, context?: SessionStoreContext): Promise<string>;
  /** Reads a session by the id a client sent; `null` for an unknown, malformed, tampered or expired id. `context`: the request's. */
  get(sessid: string, context?: SessionStoreContext): Promise<StoredSession | null>;
  /** Moves a session's `lastSeenAt` and `expiresAt` forward. A missing handle is not an error. `context`: the request's. */
  touch(handle: string, lastSeenAt: number, expiresAt: number, context?: SessionStoreContext): Promise<void>;
  /** Ends one session. A missing handle is not an error. */
  destroy(handle: string): Promise<void>;
  /** One user's sessions, oldest first, in O(that user's sessions); includes those in their expiry grace. */
  listByUser(uid: string): Promise<StoredSession[]>;
  /** Ends every session of one user ("log out everywhere"); resolves how many ended. */
  destroyByUser(uid: string): Promise<number>;
  /** Stores a session issued elsewhere under a known handle: the migration kit's Drupal cut-over only. Optional. */
  adopt?(handle: string, record: SessionRecord): Promise<void>;
  /** {@link SessionStore.adopt} for many sessions in few round trips; not atomic (adopting again is harmless). */
  adoptMany?(sessions: readonly StoredSession[]): Promise<void>;
  /**
   * Whether an id `get` found no session for names one another system keeps (Drupal's anonymous
   * visitors, for `drupal7SessionStore`): its cookie is then left alone, never deleted. A string
   * says so and why: a row the store cannot serve (the `session.unserved` event carries it). Optional.
   */
  heldElsewhere?(sessid: string, context?: SessionStoreContext): Promise<boolean | string>;
  /** Declared by a store held in this process's memory alone (a logout is final at once); absent means shared or durable. */
  readonly processLocal?: ProcessLocal;
  /** The longest a store can keep a session, in seconds (sealed cookies): a longer `absoluteTimeout` is refused at start-up. */
  readonly maxLifetime?: number;
}

/** What a store held in this process's memory declares of itself (see {@link SessionStore.processLocal}). */
export interface ProcessLocal {
  /** A random name for this instance of the store, that no other instance shares. */
  readonly generation: string;
}

/** A user account as the login flow needs it; `fields` carries the rest of Drupal's `users` row for an exact reply. */
export interface UserRecord {
  /** Decimal string, as Drupal's `users.uid`. Never `"0"` (that is the anonymous user). */
  readonly uid: string;
  readonly name: string;
  readonly mail: string;
  /** The stored password hash; never sent to a client. */
  readonly passwordHash: string;
  /** Drupal's `users.status = 1`. A blocked account cannot log in and its sessions are void. */
  readonly active: boolean;
  /** Role id → role name, as Drupal's `$user->roles`, e.g. `{ "2": "authenticated user" }`. */
  readonly roles: Readonly<Record<string, string>>;
  /** Account creation time, in Unix seconds. */
  readonly created: number;
  /** Last access time, in Unix seconds (0 if never). */
  readonly access: number;
  /** Last login time, in Unix seconds (0 if never). */
  readonly login: number;
  /** Other `users` columns (`theme`, `init`, `data`, …) with Drupal's JSON types; they override the reply's defaults. */
  readonly fields?: Readonly<Record<string, unknown>>;
}

/**
 * Where user accounts come from: {@link memoryUserStore}, or `drupal7UserStore` over a Drupal 7
 * database.
 *
 * @example
 * ```ts
 * const userStore: UserStore = {
 *   findByName: (name) => db.oneOrNone("select … where lower(name) = lower($1)", [name]),
 *   // The same comparison's key, for the login throttle: every spelling of a name counts as one.
 *   nameKey: async (name) => (await db.one("select lower($1) as k", [name])).k,
 *   findById: (uid) => db.oneOrNone("select … where uid = $1", [uid]),
 *   recordLogin: async (uid, at) => void (await db.none("update users set login = $2 where uid = $1", [uid, at])),
 *   updatePasswordHash: async (uid, expected, next) =>
 *     (await db.result("update users set pass = $3 where uid = $1 and pass = $2", [uid, expected, next])).rowCount === 1,
 * };
 * ```
 */
export interface UserStore {
  /** Finds an account by name, matching as Drupal's MySQL collation does (case-insensitive). */
  findByName(name: string): Promise<UserRecord | null>;
  /**
   * The key under which this store compares login names (same key whenever `findByName` would
   * match one account), for the login throttle; same cost for every name. Without it, names
   * fold roughly as MySQL's `utf8_general_ci`. See docs/security.md#the-login-path-under-attack.
   */
  nameKey?(name: string): Promise<string>;
  /** Finds an account by uid. */
  findById(uid: string): Promise<UserRecord | null>;
  /** Writes the login time after a successful login (Drupal's `users.login`). */
  recordLogin(uid: string, at: number): Promise<void>;
  /** Replaces a password hash only if the stored one is still `expected` (compare-and-set); resolves whether it did. */
  updatePasswordHash(uid: string, expected: string, next: string): Promise<boolean>;
  /** Settles when a self-preparing store can answer; calls wait (outside `storeTimeout`), then 503s after 30 s or a rejection. */
  readonly ready?: Promise<void>;
  /**
   * Accounts whose mail matches `mail` as Drupal compares mails (case-insensitively), lowest uid
   * first, at most 10. Optional: without it the account calls that need it are not served.
   */
  findByMail?(mail: string): Promise<UserRecord[]>;
  /**
   * Creates an account as Drupal's `user_save()` does (a uid as Drupal allocates one, `changed` =
   * `created`, login and access 0), atomically: a name or mail another account holds (as the store
   * compares them) is `{ taken }`, never a second account. Optional, with `updateUser` and `deleteUser`.
   */
  createUser?(user: NewUserRecord): Promise<UserWrite>;
  /** Changes an account atomically (uniqueness as in `createUser`); `null` when there is no such account. */
  updateUser?(uid: string, changes: UserChanges): Promise<UserWrite | null>;
  /** Deletes an account and its roles; resolves whether there was one. */
  deleteUser?(uid: string): Promise<boolean>;
  /** Rows of Drupal's `users` table as PDO reads them (every value a string or null), for the user index. */
  listUsers?(query: UserListQuery): Promise<UserListRow[]>;
  /** The permissions of a set of roles (rid → name), as Drupal's `role_permission` grants them; uid 1 has every one anyway. */
  permissions?(roles: Readonly<Record<string, string>>): Promise<readonly string[]>;
  /** Every role but the anonymous one (rid → name, "authenticated user" included), as Drupal's `user_roles(TRUE)`: the roles an admin may grant. */
  roles?(): Promise<Readonly<Record<string, string>>>;
}

/**
 * A new account, as Drupal's registration form builds it for `UserStore.createUser`.
 *
 * @example
 * ```ts
 * const write = await userStore.createUser!({
 *   name: "ana", mail: "ana@example.com", init: "ana@example.com", passwordHash: await scryptHasher().hash("s3cret"),
 *   active: true, roles: {}, created: Math.floor(Date.now() / 1000), fields: { timezone: "UTC" },
 * });
 * if ("taken" in write) console.log(`the ${write.taken} is taken`);
 * ```
 */
export interface NewUserRecord {
  readonly name: string;
  readonly mail: string;
  /** `users.init`: the mail the account was made with. */
  readonly init: string;
  readonly passwordHash: string;
  /** `users.status = 1`. */
  readonly active: boolean;
  /** Role id → name of the roles besides "authenticated user" (which every account has). */
  readonly roles: Readonly<Record<string, string>>;
  /** `users.created`, in Unix seconds. */
  readonly created: number;
  /** Other `users` columns with Drupal's values (`timezone`, `signature_format`, `language`, `data`). */
  readonly fields?: Readonly<Record<string, unknown>>;
}

/** What `UserStore.updateUser` changes; absent keys stay as they are. */
export interface UserChanges {
  readonly name?: string;
  readonly mail?: string;
  readonly passwordHash?: string;
  readonly active?: boolean;
  /** The whole new set of roles besides "authenticated user" (rid → name). */
  readonly roles?: Readonly<Record<string, string>>;
  /** Other `users` columns to write (`timezone`, `data` as Drupal's unserialized value). */
  readonly fields?: Readonly<Record<string, unknown>>;
  /** `users.changed`, in Unix seconds. */
  readonly changed: number;
}

/** What a write resolves: the account as stored, or which of its unique values another account holds. */
export type UserWrite = { readonly user: UserRecord } | { readonly taken: "name" | "mail" };

/** A condition of the user index (Services' `parameters`): a `users` column compared with the values given. */
export interface UserListCondition {
  readonly column: string;
  /** `IN` by default; the comparisons Services allows that this package serves. */
  readonly operator: "IN" | "NOT IN" | "=" | "<>" | "<" | "<=" | ">" | ">=" | "LIKE" | "NOT LIKE";
  readonly values: readonly string[];
}

/** The user index's query, its column names already checked against Drupal's `users` columns. */
export interface UserListQuery {
  /** The columns to return, in the order asked (`[]`: all, in the table's order). */
  readonly fields: readonly string[];
  readonly conditions: readonly UserListCondition[];
  readonly orderBy: ReadonlyArray<{ readonly column: string; readonly direction: "ASC" | "DESC" }>;
  readonly offset: number;
  readonly limit: number;
}

/** A `users` row as Drupal's PDO reads it: column → string or null, `data` still serialized. */
export type UserListRow = Readonly<Record<string, string | null>>;

/** Hashes and checks passwords: {@link scryptHasher} by default, Drupal 7's from `services-session-auth/drupal`. */
export interface PasswordHasher {
  /** Hashes a password with the current algorithm and parameters. */
  hash(password: string): Promise<string>;
  /** Checks a password against a stored hash. Resolves `false` (never rejects) for a malformed hash. */
  verify(hash: string, password: string): Promise<boolean>;
  /** Whether a stored hash should be replaced by {@link PasswordHasher.hash} after a successful login. */
  needsRehash(hash: string): boolean;
  /**
   * The cost class of a hash (algorithm and parameters, e.g. `scrypt:17:8:1`, `$S$D`), so a
   * failed login costs the same whatever the account's hash: docs/security.md#the-login-path-under-attack.
   * @default every hash in one class
   */
  costClass?(hash: string): string;
}

/**
 * Atomic counters with a TTL fixed at a key's creation (the throttle's counts, the sealed-cookie
 * store's revocations). `increment` counts and answers in one atomic step; `decrement` gives one back.
 *
 * @example
 * ```ts
 * const counterStore: CounterStore = memoryCounterStore(); // or redisCounterStore({ client })
 * await counterStore.increment("ip:203.0.113.7", 3600); // 1, then 2, … for an hour
 * ```
 */
export interface CounterStore {
  /** Adds one to a key, creating it with the TTL if absent; resolves the new count. Atomic. */
  increment(key: string, ttlSeconds: number): Promise<number>;
  /** Takes one back: never below zero, never creating the key, TTL unchanged. Atomic with `increment`. */
  decrement(key: string): Promise<void>;
  /** The current count of a key (0 if absent or expired). */
  get(key: string): Promise<number>;
  /** Removes a key. A missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Declared by a store held in this process's memory alone (see {@link SessionStore.processLocal}). */
  readonly processLocal?: ProcessLocal;
  /** `true` for a store that may drop unexpired keys when full; revocations refuse such a store. */
  readonly evictsWhenFull?: boolean;
  /**
   * `true` for a store that keeps failures per account, as Drupal's flood table does: the login
   * throttle then also counts an attempt under `account:<uid>` (or `account:<uid>-<address>`)
   * once its name is found to be an active account's, and refuses it when that account's recorded
   * failures reach the limit.
   */
  readonly countsAccounts?: boolean;
}
