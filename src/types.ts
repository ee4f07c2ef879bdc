/**
 * The public contracts of services-session-auth: plain records and the promise-only
 * interfaces that stores, user sources and password hashers implement.
 *
 * Every time in a record is a whole number of Unix seconds, as Drupal keeps them.
 *
 * @module
 */

/**
 * One logged-in session, as a store keeps it. A plain, JSON-safe object: stores may
 * serialise it as they like, and must hand back an equal object.
 *
 * @example
 * ```ts
 * const record: SessionRecord = { uid: "14", createdAt: now, lastSeenAt: now, expiresAt: now + 200_000 + 600, ip: "203.0.113.7", userAgent: "jDrupal" };
 * const sessid = await sessionStore.create(record);
 * ```
 */
export interface SessionRecord {
  /** The user's id, a decimal string as Drupal's `users.uid` (never `"0"`). */
  readonly uid: string;
  /** When the session was created (login), in Unix seconds. */
  readonly createdAt: number;
  /** When the session was last seen (written at most once per touch interval), in Unix seconds. */
  readonly lastSeenAt: number;
  /**
   * When the store may forget the session, in Unix seconds: the earlier of its idle and
   * absolute deadlines plus a ten-minute grace, in which the session is already refused
   * but its expiry can still be recognised and reported. Stores forget records at this
   * instant; they never compute it, and never enforce the deadlines themselves.
   */
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
  /**
   * The store's stable name for the session, never the raw session id: for the
   * hashing stores it is `base64url(sha256(sessid))`, the form Drupal 7.98+ keeps in
   * `sessions.sid`. Safe to log and to show in a "your devices" list.
   */
  readonly handle: string;
  readonly record: SessionRecord;
  /**
   * The session's account, for a store that reads it in the same query as the session (as
   * Drupal joins `sessions` to `users`): `null` when there is none. Left out, the lifecycle
   * looks the account up with `UserStore.findById`.
   */
  readonly user?: UserRecord | null;
}

/**
 * Where sessions live. Every method returns a promise; a store rejects only when its
 * backend fails (the caller turns that into a 503), never for an unknown or bad id.
 *
 * Implementations in this package: {@link memorySessionStore}, the Redis store
 * (`services-session-auth/redis`) and the sealed-cookie store
 * (`services-session-auth/sealed-cookie`). All pass the same contract suite.
 *
 * @example
 * ```ts
 * const sessionStore: SessionStore = memorySessionStore(); // or redisSessionStore({ client }), or your own
 * await sessionStore.destroyByUser("14"); // log user 14 out everywhere
 * ```
 */
export interface SessionStore {
  /**
   * Stores a new session and returns its id (the `sessid` and cookie value): at least
   * 256 bits from a CSPRNG, as 43 or more base64url characters.
   */
  create(record: SessionRecord): Promise<string>;
  /**
   * Reads a session by the id a client sent. Resolves `null` for an unknown, malformed,
   * tampered or expired (`expiresAt <= now`) id.
   */
  get(sessid: string): Promise<StoredSession | null>;
  /** Moves a session's `lastSeenAt` and `expiresAt` forward. A missing handle is not an error. */
  touch(handle: string, lastSeenAt: number, expiresAt: number): Promise<void>;
  /** Ends one session. A missing handle is not an error. */
  destroy(handle: string): Promise<void>;
  /**
   * The stored sessions of one user, oldest first. Costs O(sessions of that user). A
   * session in its expiry grace (see {@link SessionRecord.expiresAt}) is still listed.
   */
  listByUser(uid: string): Promise<StoredSession[]>;
  /** Ends every session of one user ("log out everywhere"); resolves how many ended. */
  destroyByUser(uid: string): Promise<number>;
  /**
   * Stores a session issued elsewhere under a known handle: the cut-over from Drupal 7,
   * whose `sessions.sid` is already `base64url(sha256(sessid))` on core 7.98+. Only the
   * migration kit calls it, with rows read from the Drupal database; a client can never
   * choose its own id. Stateless stores cannot adopt and leave it out.
   */
  adopt?(handle: string, record: SessionRecord): Promise<void>;
  /**
   * {@link SessionStore.adopt} for many sessions at once, for the bulk import at the cut-over:
   * the same result as adopting each, in far fewer round trips. Not atomic as a whole: when
   * it rejects, some of the sessions may be stored (adopting again is harmless). Stores
   * without it are filled by concurrent `adopt` calls.
   */
  adoptMany?(sessions: readonly StoredSession[]): Promise<void>;
  /**
   * Declared by a store whose data lives in this process's memory alone (gone on restart,
   * unseen by other instances), with a random `generation` that names this instance of it: a
   * new instance (after a restart, say) has another. The session lifecycle then ends a logout
   * at once (no other instance can still read the session), and the sealed-cookie store voids
   * seals made under another generation of its revocation store. Leave it out for a store
   * that is shared or durable: that is the assumption when it is absent.
   */
  readonly processLocal?: ProcessLocal;
  /**
   * Declared by a store that cannot keep a session longer than this many seconds (the
   * sealed-cookie store's seals expire after `maxAgeSeconds`): the router refuses an
   * `absoluteTimeout` longer than it at start-up, rather than let sessions end early.
   */
  readonly maxLifetime?: number;
}

/** What a store held in this process's memory declares of itself (see {@link SessionStore.processLocal}). */
export interface ProcessLocal {
  /** A random name for this instance of the store, that no other instance shares. */
  readonly generation: string;
}

/**
 * A user account as the login flow needs it. `fields` carries the rest of a Drupal
 * `users` row, already typed as Drupal's JSON has it, so the login reply can be exact.
 *
 * @example
 * ```ts
 * const user: UserRecord = {
 *   uid: "14", name: "demo", mail: "demo@example.com", passwordHash, active: true,
 *   roles: { "2": "authenticated user" }, created: 1700000000, access: 0, login: 0,
 * };
 * ```
 */
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
  /**
   * Other `users` columns (`theme`, `signature`, `timezone`, `language`, `picture`,
   * `init`, `data`, …) with the JSON types Drupal sends. Keys here override the defaults
   * in the login reply's `user` object.
   */
  readonly fields?: Readonly<Record<string, unknown>>;
}

/**
 * Where user accounts come from. Implementations in this package:
 * {@link memoryUserStore}, and `drupal7UserStore` over a Drupal 7 database.
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
   * The canonical key under which this store compares login names, for a name found or not:
   * two names get the same key whenever `findByName` would match them to one account (it may
   * also give one key to names it tells apart). Login throttling counts failures per key,
   * before any lookup, so every spelling that reaches an account shares its count and a name
   * with no account is counted as one with an account would be. It must cost the same for
   * every name, found or not, and is never sent anywhere: only a keyed hash of it is kept.
   *
   * Without it, names are keyed as MySQL's `utf8_general_ci` roughly compares them (case,
   * accents and trailing spaces ignored): a store that matches more loosely than that lets
   * each spelling it folds and that one does not buy fresh guesses.
   */
  nameKey?(name: string): Promise<string>;
  /** Finds an account by uid. */
  findById(uid: string): Promise<UserRecord | null>;
  /** Writes the login time after a successful login (Drupal's `users.login`). */
  recordLogin(uid: string, at: number): Promise<void>;
  /**
   * Replaces a password hash only if the stored one is still `expected`
   * (compare-and-set), so a password change racing a login rehash is never undone.
   * Resolves whether the write happened.
   */
  updatePasswordHash(uid: string, expected: string, next: string): Promise<boolean>;
  /**
   * Settles when the store can answer, for a store that prepares itself after it is made
   * (`memoryUserStore` hashes its plain passwords). Calls made before then wait for it, and
   * that wait is not counted against `storeTimeout`: logins right after start-up are slow,
   * never refused. A rejection fails every call with a 503, and so does a `ready` that has
   * not settled after 30 s, until it does.
   */
  readonly ready?: Promise<void>;
}

/**
 * Hashes and checks passwords. The default is {@link scryptHasher}; Drupal 7 hashes are
 * verified by the hasher from `services-session-auth/drupal`.
 *
 * @example
 * ```ts
 * const hasher: PasswordHasher = scryptHasher();
 * const hash = await hasher.hash("correct horse");
 * await hasher.verify(hash, "correct horse"); // true
 * ```
 */
export interface PasswordHasher {
  /** Hashes a password with the current algorithm and parameters. */
  hash(password: string): Promise<string>;
  /** Checks a password against a stored hash. Resolves `false` (never rejects) for a malformed hash. */
  verify(hash: string, password: string): Promise<boolean>;
  /** Whether a stored hash should be replaced by {@link PasswordHasher.hash} after a successful login. */
  needsRehash(hash: string): boolean;
  /**
   * The cost class of a stored hash: two hashes of one class take the same work to verify
   * (the algorithm and its cost parameters, e.g. `scrypt:17:8:1` or Drupal's `$S$D`). The
   * login flow uses it so that a failed login costs the same whatever the account's hash
   * format (see "The login path under attack" in docs/security.md). Cheap, no hashing; a
   * malformed hash may get any class. Hashers without it put every hash in one class.
   * @default every hash in one class
   */
  costClass?(hash: string): string;
}

/**
 * Atomic counters with a time to live: the login throttle's failure counts (and the
 * sealed-cookie store's revocation epochs). The TTL is set when a key is created and is
 * not extended by later increments, so a window is fixed from its first event.
 *
 * `increment` is the throttle's reservation: it counts and answers the new count in one
 * atomic step, so of N concurrent increments exactly one sees each count from 1 to N, on
 * one process or on many sharing one backend. `decrement` gives a reservation back.
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
  /**
   * Takes one back from a key: never below zero, never creating the key, and leaving its
   * TTL as it was. Atomic with respect to `increment`.
   */
  decrement(key: string): Promise<void>;
  /** The current count of a key (0 if absent or expired). */
  get(key: string): Promise<number>;
  /** Removes a key. A missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Declared by a store held in this process's memory alone (see {@link SessionStore.processLocal}). */
  readonly processLocal?: ProcessLocal;
  /**
   * Declared (`true`) by a store that may drop unexpired keys when it is full, so that a
   * consumer that must never lose one (the sealed-cookie store's revocations) can refuse it.
   */
  readonly evictsWhenFull?: boolean;
}
