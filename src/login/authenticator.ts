import { randomBytes } from "node:crypto";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { CounterStore, PasswordHasher, SessionStoreContext, UserRecord, UserStore } from "../types.js";
import { HashAdmission } from "./admission.js";
import { HeldLogins } from "./held-logins.js";
import { addressGroup, plainAddress } from "../http-input/address.js";
import { readCookies, setCookieHeader, type CookieAttributes } from "../cookie/cookie-headers.js";
import { DeviceCookies, devicePlacement, type DeviceToken } from "./device-cookie.js";
import { loginNameHasher } from "./login-name.js";
import type { Emit } from "../events.js";
import type { LoginSettings } from "./options.js";
import type { SessionClient, Sessions } from "../sessions/sessions.js";
import { LoginThrottle, type Flood, type Reservation } from "./throttle.js";

/** A login attempt, after the body was parsed and before anything was checked. */
export interface LoginAttempt {
  readonly name: unknown;
  readonly password: unknown;
  readonly ip: string;
  readonly userAgent: string;
  readonly now: number;
  readonly requestId?: string | undefined;
  /** The request's `Cookie` header: where a device cookie (see `deviceCookies`) comes from. */
  readonly cookieHeader?: string | undefined;
  /** The session cookie's attributes, which a device cookie follows. */
  readonly cookie: CookieAttributes;
  /** What the session store is told of the request when the new session is stored. */
  readonly store?: SessionStoreContext | undefined;
}

/** A successful login: the new session's id and the user. */
export interface LoginResult {
  readonly sessid: string;
  readonly user: UserRecord;
  /** `Set-Cookie` values for the reply: a new device cookie, when device cookies are on and the password was checked here. */
  readonly setCookie: readonly string[];
}

/** The most hash cost classes kept as samples. */
const MAX_COST_CLASSES = 8;
/** The most the samples together may cost, in checks of the current class: one costly stored hash must not make every failure expensive. */
const SAMPLE_BUDGET = 3;
/** Sample work always allowed, however cheap the current hasher. */
const SAMPLE_FLOOR_MS = 50;
/** How often a held login looks again when nothing settles here: half a measured check, within these bounds. */
const HELD_POLL_MS = { min: 50, max: 1000 } as const;

/** What a password check found: whether it matched, and the new hash when the stored one is to be upgraded. */
interface Checked {
  readonly verified: boolean;
  readonly upgrade?: string;
}

/**
 * `_user_resource_login`'s decision, framework-free: flood control (before the lookup, so a refusal
 * never depends on the account), blocked check, password check, new session. Each attempt is
 * reserved before its check, checks queue fairly ({@link HashAdmission}), and every failure costs
 * one check per cost class met: docs/security.md#the-login-path-under-attack.
 */
export class Authenticator {
  readonly #sessions: Sessions;
  readonly #users: UserStore;
  readonly #options: LoginSettings;
  readonly #emit: Emit;
  readonly #hasher: PasswordHasher;
  readonly #throttle: LoginThrottle | undefined;
  readonly #admission: HashAdmission;
  readonly #hashName: (name: string) => string;
  readonly #devices: DeviceCookies | undefined;
  /** Cost class → a hash of that class and what checking it costs (ms), checked on every failed login that did not check its own. */
  readonly #samples = new Map<string, { readonly hash: string; readonly ms: number }>();
  #dummyHash: Promise<string> | undefined;
  /** What checking the current hasher's own class costs (ms), measured on the first check of it. */
  #currentMs: number | undefined;

  /**
   * @param settings - The login path's own settings.
   * @param sessions - Where a successful login's session starts.
   * @param stores - The user and counter stores, already guarded by timeouts, and whether the counter store `countsAccounts`.
   * @param emit - Where events go: stamped, to the app's listener.
   */
  constructor(
    settings: LoginSettings,
    sessions: Sessions,
    stores: { readonly users: UserStore; readonly counters: CounterStore; readonly countsAccounts?: boolean },
    emit: Emit,
  ) {
    const options = settings;
    this.#sessions = sessions;
    this.#emit = emit;
    this.#users = stores.users;
    this.#options = options;
    this.#hasher = options.hasher;
    this.#admission = new HashAdmission(options.hashing);
    const admission = this.#admission;
    const poll = () => Math.min(HELD_POLL_MS.max, Math.max(HELD_POLL_MS.min, admission.checkSeconds * 500));
    const held = new HeldLogins(options.hashing.maxQueue, poll, () => admission.retryAfter);
    this.#throttle = options.throttle === false ? undefined : new LoginThrottle(stores.counters, options.throttle, held, stores.countsAccounts === true);
    this.#hashName = loginNameHasher(options.nameKey);
    this.#devices = options.deviceCookies === false ? undefined : new DeviceCookies(options.deviceCookies.key, options.deviceCookies.maxAge);
    // Made now, so the first unknown-name login costs no more than others; outside the queue,
    // since a check holding a slot waits for it.
    this.#dummy().catch(() => undefined);
  }

  /** The current hasher's sample (a random password's hash), made once and timed: the unit of the sample budget. */
  #dummy(): Promise<string> {
    const started = performance.now();
    this.#dummyHash ??= this.#hasher
      .hash(randomBytes(32).toString("base64url"))
      .then((hash) => {
        this.#currentMs = performance.now() - started;
        this.#samples.set(this.#costClass(hash), { hash, ms: this.#currentMs });
        return hash;
      })
      .catch((error: unknown) => {
        this.#dummyHash = undefined;
        throw error;
      });
    return this.#dummyHash;
  }

  #costClass(hash: string): string {
    return this.#hasher.costClass?.(hash) ?? "";
  }

  /** Keeps `hash` as its class's sample, if none yet and all samples stay within the budget. */
  #remember(hash: string, costClass: string, ms: number): void {
    if (this.#samples.has(costClass) || this.#samples.size >= MAX_COST_CLASSES || this.#currentMs === undefined) return;
    let total = ms;
    for (const sample of this.#samples.values()) total += sample.ms;
    if (total <= Math.max(SAMPLE_BUDGET * this.#currentMs, SAMPLE_FLOOR_MS)) this.#samples.set(costClass, { hash, ms });
  }

  /** Checks `password` against `hash`, timed, and keeps the hash as its class's sample. */
  async #verify(hash: string, costClass: string, password: string): Promise<boolean> {
    const started = performance.now();
    const verified = await this.#hasher.verify(hash, password);
    this.#remember(hash, costClass, performance.now() - started);
    return verified;
  }

  /**
   * Checks credentials and opens a session.
   * @throws SessionAuthError for every refusal, in Drupal's order.
   */
  async login(attempt: LoginAttempt): Promise<LoginResult> {
    // user_is_blocked('') finds Drupal's anonymous row: an empty name is "blocked" first, nothing counted or hashed.
    if (attempt.name === "" && this.#options.blockedAccountResponse === "drupal") throw new SessionAuthError("ERR_ACCOUNT_BLOCKED", "");
    const ip = plainAddress(attempt.ip);
    const { requestId } = attempt;
    const address = addressGroup(attempt.ip, this.#options.ipv6Prefix);
    const credentials = this.#credentials(attempt);
    if (credentials === null) {
      this.#emit({ type: "login.failure", reason: "invalid-input", ip }, requestId);
      throw new SessionAuthError("ERR_INVALID_CREDENTIALS");
    }
    const { name, password, oversized } = credentials;
    // Counted and reported by a keyed hash of the store's key for the name, made before any
    // lookup: a refusal never depends on the account, and the address's never reaches the store.
    let nameHash: Promise<string> | undefined;
    const hashOf = (): Promise<string> => (nameHash ??= this.#nameHash(name));
    // A device cookie earned by this account skips the address's and account's counts; which
    // account a name reaches is the store's to say, so with one in hand the lookup comes first.
    let found: Promise<UserRecord | null> | undefined;
    const lookUp = (): Promise<UserRecord | null> => (found ??= this.#lookUp(name));
    const device = await this.#device(attempt, hashOf, lookUp);
    // The cookie's holder is counted on the cookie alone (OWASP), and checked first only where that is
    // the remedy: its address or account locked out by others; elsewhere it waits its turn like anyone.
    const first =
      device !== undefined && (await this.#throttle?.overLimit(address, async () => ({ nameHash: await hashOf() }))) === true ? device.account : undefined;
    // One wait for the whole login, however it is split between the throttle and the hashing queue.
    const deadline = performance.now() + this.#options.hashing.maxWait * 1000;
    const reservation = await this.#reserve(address, ip, hashOf, deadline, device, requestId);
    let hashed: string;
    let user: UserRecord | null;
    try {
      hashed = await hashOf();
      user = await lookUp();
    } catch (error) {
      // Nothing was checked: the attempt does not count.
      await reservation?.release();
      throw error;
    }
    // Audit events name an account by uid; a password typed into the name field is in none.
    const who = user === null ? { nameHash: hashed } : { uid: user.uid };

    // Services refuses a blocked account without hashing or counting; "generic" hides it behind the 401.
    if (user !== null && !user.active && this.#options.blockedAccountResponse === "drupal") {
      await reservation?.release();
      this.#emit({ type: "login.failure", reason: "blocked", ...who, ip }, requestId);
      throw new SessionAuthError("ERR_ACCOUNT_BLOCKED", name);
    }

    // Drupal's flood control counts failures per account: a store that keeps them counts this attempt there too.
    if (user !== null && user.active && reservation !== undefined) await this.#account(reservation, user.uid, ip, requestId);

    // Refused on the input alone, unhashed (as user_authenticate() fails an empty name, "0", a blank
    // password), so an over-long password buys no CPU; still counted, as in Drupal.
    const refused = oversized || name === "" || name === "0" || password.trim() === "";
    const checked = refused
      ? { verified: false }
      : await this.#admitted(address, ip, reservation, () => this.#check(user, password, requestId), { requestId, first, deadline });
    if (!checked.verified || user === null || !user.active) {
      await reservation?.fail();
      const reason = oversized ? "invalid-input" : user === null ? "unknown-user" : user.active ? "wrong-password" : "blocked";
      this.#emit({ type: "login.failure", reason, ...who, ip }, requestId);
      throw new SessionAuthError("ERR_INVALID_CREDENTIALS");
    }

    await reservation?.succeed();
    if (checked.upgrade !== undefined) await this.#storeUpgrade(user, checked.upgrade, requestId);
    const opened = await this.open(user, { ip, userAgent: attempt.userAgent, now: attempt.now, requestId, store: attempt.store });
    const placement = this.#placement(attempt);
    if (this.#devices === undefined || placement === undefined) return { ...opened, setCookie: [] };
    const value = this.#devices.issue(hashed, user.uid, attempt.now);
    return { ...opened, setCookie: [setCookieHeader(placement.name, value, placement.attributes, attempt.now)] };
  }

  /** Where the device cookie goes, beside the session cookie; `undefined` with device cookies off. */
  #placement(attempt: LoginAttempt): { readonly name: string; readonly attributes: CookieAttributes } | undefined {
    const devices = this.#options.deviceCookies;
    return devices === false ? undefined : devicePlacement(devices.name, attempt.cookie, devices.maxAge);
  }

  /** The attempt's device cookie if it carries one signed here, still good, for the account the store finds for this name. */
  async #device(attempt: LoginAttempt, hashOf: () => Promise<string>, lookUp: () => Promise<UserRecord | null>): Promise<DeviceToken | undefined> {
    const placement = this.#placement(attempt);
    // Every value: planted ones (a sibling subdomain sends them first, on a longer Path) must not hide the client's own.
    const values = placement === undefined ? [] : readCookies(attempt.cookieHeader, placement.name);
    if (this.#devices === undefined || values.length === 0) return undefined;
    const good = this.#devices.read(values, attempt.now);
    if (good.length === 0) return undefined;
    const hashed = await hashOf();
    const forName = good.filter((token) => token.nameHash === hashed);
    if (forName.length === 0) return undefined;
    const user = await lookUp();
    return user === null ? undefined : this.#devices.forAccount(forName, user.uid);
  }

  /** The account a login name reaches. An over-long name names none (nothing that long can be stored), nor does an empty one. */
  async #lookUp(name: string): Promise<UserRecord | null> {
    // An over-long password is looked up, so that it counts against the account like any wrong one.
    return name === "" || name.length > this.#options.maxNameLength ? null : this.#users.findByName(name);
  }

  /** Opens a session for a user checked here or by the app: records the login time (`users.login`), then a new session. */
  async open(user: UserRecord, client: SessionClient): Promise<Omit<LoginResult, "setCookie">> {
    await this.#users.recordLogin(user.uid, client.now);
    const sessid = await this.#sessions.start(user, client);
    return { sessid, user: { ...user, login: client.now } };
  }

  /** The keyed hash of the user store's key for `name` (see `UserStore.nameKey`), cut as an over-long name is. */
  async #nameHash(name: string): Promise<string> {
    const cut = name.slice(0, this.#options.maxNameLength);
    return this.#hashName(this.#users.nameKey === undefined ? cut : await this.#users.nameKey(cut));
  }

  /**
   * Counts the attempt ({@link LoginThrottle.reserve}) and refuses a flood; one held back by checks
   * in flight waits until `deadline`, then is told to retry: never counted.
   * @throws SessionAuthError `ERR_IP_THROTTLED`, `ERR_USER_THROTTLED`, `ERR_LOGIN_BUSY`.
   */
  async #reserve(
    address: string | undefined,
    ip: string,
    hashOf: () => Promise<string>,
    deadline: number,
    device: DeviceToken | undefined,
    requestId: string | undefined,
  ): Promise<Reservation | undefined> {
    if (this.#throttle === undefined) return undefined;
    let reservation: Reservation;
    try {
      reservation = await this.#throttle.reserve(address, async () => ({ nameHash: await hashOf() }), deadline, device);
    } catch (error) {
      this.#reportBusy(error, ip, requestId);
      throw error;
    }
    if (reservation.flood === null) return reservation;
    const who = reservation.flood === "user" ? { nameHash: await hashOf() } : {};
    this.#emit({ type: "login.throttled", scope: reservation.flood, ...who, ip }, requestId);
    throw new SessionAuthError(reservation.flood === "ip" ? "ERR_IP_THROTTLED" : "ERR_USER_THROTTLED");
  }

  /**
   * Counts the attempt on the account it reached ({@link Reservation.account}).
   * @throws SessionAuthError `ERR_USER_THROTTLED` when the account's recorded failures reach the limit; a store's failure after releasing the attempt.
   */
  async #account(reservation: Reservation, uid: string, ip: string, requestId: string | undefined): Promise<void> {
    let flood: Flood;
    try {
      flood = await reservation.account(uid);
    } catch (error) {
      await reservation.release();
      throw error;
    }
    if (flood === null) return;
    this.#emit({ type: "login.throttled", scope: "user", uid, ip }, requestId);
    throw new SessionAuthError("ERR_USER_THROTTLED");
  }

  /** A check through admission control within the login's wait: turned away counts for nothing, a hasher's error as a failure. */
  async #admitted(
    address: string | undefined,
    ip: string,
    reservation: Reservation | undefined,
    check: () => Promise<Checked>,
    how: { readonly requestId: string | undefined; readonly first: string | undefined; readonly deadline: number },
  ): Promise<Checked> {
    try {
      return await this.#admission.run(address, check, how.first, Math.max(0, (how.deadline - performance.now()) / 1000));
    } catch (error) {
      if (this.#reportBusy(error, ip, how.requestId)) await reservation?.release();
      else await reservation?.fail();
      throw error;
    }
  }

  /** Whether `error` turned a login away as busy (503), with its `login.busy` event. */
  #reportBusy(error: unknown, ip: string, requestId: string | undefined): boolean {
    if (!isSessionAuthError(error) || error.code !== "ERR_LOGIN_BUSY") return false;
    this.#emit({ type: "login.busy", ip, retryAfter: error.retryAfter ?? 1 }, requestId);
    return true;
  }

  /** Strings (or numbers, as PHP would take them), marked when over the length limits; anything else is no credential at all. */
  #credentials(attempt: LoginAttempt): { name: string; password: string; oversized: boolean } | null {
    const name = scalar(attempt.name);
    const password = scalar(attempt.password);
    if (name === null || password === null) return null;
    const oversized = name.length > this.#options.maxNameLength || Buffer.byteLength(password) > this.#options.maxPasswordBytes;
    return { name, password, oversized };
  }

  /** The check, with a failure's equal-cost work (also for a right password on a blocked account) and a success's upgrade. */
  async #check(user: UserRecord | null, password: string, requestId: string | undefined): Promise<Checked> {
    // Without the sample (a hasher that cannot hash), failures are equal only among the classes seen.
    if (this.#currentMs === undefined) await this.#dummy().catch(() => undefined);
    let ownClass: string | undefined;
    if (user !== null) {
      ownClass = this.#costClass(user.passwordHash);
      const verified = await this.#verify(user.passwordHash, ownClass, password);
      if (verified && user.active) {
        const upgrade = this.#upgrade(user, password, requestId);
        return { verified, upgrade: upgrade === undefined ? undefined : await upgrade };
      }
      if (verified) {
        await this.#samplesExcept(ownClass, password);
        return { verified };
      }
    }
    await this.#samplesExcept(ownClass, password);
    return { verified: false };
  }

  /** One check against each sample but the one of the class already checked. */
  async #samplesExcept(checkedClass: string | undefined, password: string): Promise<void> {
    for (const [costClass, sample] of this.#samples) {
      if (costClass !== checkedClass) await this.#hasher.verify(sample.hash, password);
    }
  }

  /** The upgraded hash of a verified password, if due; best effort, since a hasher may refuse what a legacy hash accepted. */
  #upgrade(user: UserRecord, password: string, requestId: string | undefined): Promise<string | undefined> | undefined {
    let stale: boolean;
    try {
      stale = this.#hasher.needsRehash(user.passwordHash);
    } catch (error) {
      this.#emit({ type: "rehash.failed", uid: user.uid, err: error }, requestId);
      return undefined;
    }
    // A current hash, as on nearly every login: nothing to wait for.
    return stale ? this.#rehash(user, password, requestId) : undefined;
  }

  /** The new hash of a verified password, or none when the hasher cannot make one (reported, see above). */
  async #rehash(user: UserRecord, password: string, requestId: string | undefined): Promise<string | undefined> {
    try {
      return await this.#hasher.hash(password);
    } catch (error) {
      this.#emit({ type: "rehash.failed", uid: user.uid, err: error }, requestId);
      return undefined;
    }
  }

  /** Writes an upgraded hash by compare-and-set (a password change that raced this login wins); a failed write is reported, not fatal. */
  async #storeUpgrade(user: UserRecord, next: string, requestId: string | undefined): Promise<void> {
    try {
      await this.#users.updatePasswordHash(user.uid, user.passwordHash, next);
    } catch (error) {
      this.#emit({ type: "rehash.failed", uid: user.uid, err: error }, requestId);
    }
  }
}

function scalar(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}
