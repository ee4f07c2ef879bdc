import { randomBytes } from "node:crypto";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { PasswordHasher, SessionRecord, UserRecord } from "../types.js";
import { HashAdmission } from "./admission.js";
import { addressGroup, plainAddress } from "./client-address.js";
import { loginNameHasher } from "./login-name.js";
import type { ResolvedRouterOptions } from "./options.js";
import type { SessionManager } from "./session-manager.js";
import { hashSessionId } from "./session-id.js";
import { guardStore } from "./store-guard.js";
import { LoginThrottle, type LoginSubject, type Reservation } from "./throttle.js";

/** A login attempt, after the body was parsed and before anything was checked. */
export interface LoginAttempt {
  readonly name: unknown;
  readonly password: unknown;
  readonly ip: string;
  readonly userAgent: string;
  readonly now: number;
}

/** A successful login: the new session's id and the user. */
export interface LoginResult {
  readonly sessid: string;
  readonly user: UserRecord;
}

/** The most cost classes of hash kept as samples (see {@link Authenticator}); a hostile table cannot make every failure check more. */
const MAX_COST_CLASSES = 8;

/** What a password check found: whether it matched, and the new hash when the stored one is to be upgraded. */
interface Checked {
  readonly verified: boolean;
  readonly upgrade?: string;
}

/**
 * The login decision of `_user_resource_login` (services 7.x-3.x), framework-free: blocked
 * check, flood control, password check, then a new session.
 *
 * Under concurrency: an attempt is counted (reserved) before its password is checked, and
 * refused at once when over a limit, so a burst costs no more checks than the limits allow.
 * Checks then wait their turn in a bounded, per-address fair queue ({@link HashAdmission}).
 *
 * Equal cost: every failed login that reaches a check does the same work whatever the
 * account: one verification against a hash of each cost class seen (the hasher's
 * `costClass`; the current hasher's own class from the start, through a hash of a random
 * password), the account's own hash standing in for its class. So an unknown name, an account
 * still on a Drupal hash and one already on scrypt cost the same, and no sequence of earlier
 * attempts changes that; only the first attempt that meets a new class costs more than those
 * before it.
 */
export class Authenticator {
  readonly #manager: SessionManager;
  readonly #options: ResolvedRouterOptions;
  readonly #hasher: PasswordHasher;
  readonly #throttle: LoginThrottle | undefined;
  readonly #admission: HashAdmission;
  readonly #hashName: (name: string) => string;
  /** Cost class → a hash of that class, checked on every failed login that did not check its own. */
  readonly #samples = new Map<string, string>();
  #dummyHash: Promise<string> | undefined;

  constructor(manager: SessionManager, options: ResolvedRouterOptions) {
    this.#manager = manager;
    this.#options = options;
    this.#hasher = options.hasher;
    const counters = guardStore(options.counterStore, "counterStore", options.storeTimeout, options.onEvent);
    this.#throttle = options.throttle === false ? undefined : new LoginThrottle(counters, options.throttle);
    this.#admission = new HashAdmission(options.hashing);
    this.#hashName = loginNameHasher(options.nameKey);
    // Made now, so the first unknown-name login costs no more than any other. Not through
    // the queue: a check that holds a slot waits for it.
    this.#dummy().catch(() => undefined);
  }

  /** The current hasher's sample: a hash of a random password, made once. */
  #dummy(): Promise<string> {
    this.#dummyHash ??= this.#hasher
      .hash(randomBytes(32).toString("base64url"))
      .then((hash) => {
        this.#remember(hash, this.#costClass(hash));
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

  #remember(hash: string, costClass: string): void {
    if (!this.#samples.has(costClass) && this.#samples.size < MAX_COST_CLASSES) this.#samples.set(costClass, hash);
  }

  /**
   * Checks credentials and opens a session.
   * @throws SessionAuthError for every refusal, in Drupal's order.
   */
  async login(attempt: LoginAttempt): Promise<LoginResult> {
    const ip = plainAddress(attempt.ip);
    const address = addressGroup(attempt.ip, this.#options.ipv6Prefix);
    const credentials = this.#credentials(attempt);
    if (credentials === null) {
      this.#manager.emit({ type: "login.failure", reason: "invalid-input", ip });
      throw new SessionAuthError("ERR_INVALID_CREDENTIALS");
    }
    const { name, password, oversized } = credentials;
    // An over-long name names no account (nothing that long can be stored); an over-long
    // password is looked up, so that it counts against the account like any wrong one.
    const user = name === "" || name.length > this.#options.maxNameLength ? null : await this.#manager.users.findByName(name);
    // Audit events and counters name an account by uid, and anything else by a keyed hash:
    // a password typed into the name field must not land in a log or a store.
    const subject: LoginSubject = user === null ? { nameHash: this.#hashName(name.slice(0, this.#options.maxNameLength)) } : { uid: user.uid };

    // Services refuses a blocked account before flood control and without hashing. The 403
    // tells the caller the account exists; "generic" hides that behind the usual 401.
    if (user !== null && !user.active && this.#options.blockedAccountResponse === "drupal") {
      this.#manager.emit({ type: "login.failure", reason: "blocked", ...subject, ip });
      throw new SessionAuthError("ERR_ACCOUNT_BLOCKED", name);
    }

    const reservation = await this.#throttle?.reserve(address, subject);
    if (reservation !== undefined && reservation.flood !== null) {
      this.#manager.emit({ type: "login.throttled", scope: reservation.flood, ...subject, ip });
      throw new SessionAuthError(reservation.flood === "ip" ? "ERR_IP_THROTTLED" : "ERR_USER_THROTTLED");
    }

    // Over the limits, no hashing at all: a huge password cannot buy CPU time. It is still a
    // failure that counts, as Drupal counts a password over its 512-byte limit.
    const checked = oversized ? { verified: false } : await this.#admitted(address, ip, reservation, () => this.#check(user, name, password));
    if (!checked.verified || user === null || !user.active) {
      const reason = oversized ? "invalid-input" : user === null ? "unknown-user" : user.active ? "wrong-password" : "blocked";
      this.#manager.emit({ type: "login.failure", reason, ...subject, ip });
      throw new SessionAuthError("ERR_INVALID_CREDENTIALS");
    }

    await reservation?.succeed();
    if (checked.upgrade !== undefined) await this.#storeUpgrade(user, checked.upgrade);
    await this.#manager.users.recordLogin(user.uid, attempt.now);
    return this.#open({ ...user, login: attempt.now }, attempt);
  }

  /** Runs a password check through admission control; a login turned away there was never checked, so it does not count. */
  async #admitted(address: string, ip: string, reservation: Reservation | undefined, check: () => Promise<Checked>): Promise<Checked> {
    try {
      return await this.#admission.run(address, check);
    } catch (error) {
      if (isSessionAuthError(error) && error.code === "ERR_LOGIN_BUSY") {
        await reservation?.release();
        this.#manager.emit({ type: "login.busy", ip, retryAfter: error.retryAfter ?? 1 });
      }
      throw error;
    }
  }

  /** Strings (or numbers, as PHP would take them), marked when over the length limits; anything else is no credential at all. */
  #credentials(attempt: LoginAttempt): { name: string; password: string; oversized: boolean } | null {
    const name = scalar(attempt.name);
    const password = scalar(attempt.password);
    if (name === null || password === null) return null;
    const oversized = name.length > this.#options.maxNameLength || Buffer.byteLength(password) > this.#options.maxPasswordBytes;
    return { name, password, oversized };
  }

  /** The password check, with the equal-cost work of a failure and the hash upgrade of a success. */
  async #check(user: UserRecord | null, name: string, password: string): Promise<Checked> {
    // user_authenticate() fails at once for an empty name, "0", or a blank password; that
    // depends on the input only, never on whether the account exists.
    if (name === "" || name === "0" || password.trim() === "") return { verified: false };
    // A hasher that cannot hash a random password still checks the ones it has: without the
    // sample, failures are equal in cost only among the classes seen.
    await this.#dummy().catch(() => undefined);
    const own = user?.passwordHash;
    let ownClass: string | undefined;
    if (own !== undefined) {
      ownClass = this.#costClass(own);
      const verified = await this.#hasher.verify(own, password);
      this.#remember(own, ownClass);
      // A blocked account is refused anyway: no upgrade, so a right password costs no more than a wrong one.
      if (verified) return { verified, upgrade: user!.active ? await this.#upgrade(user!, password) : undefined };
    }
    for (const [costClass, sample] of this.#samples) {
      if (costClass !== ownClass) await this.#hasher.verify(sample, password);
    }
    return { verified: false };
  }

  /**
   * The new hash of a verified password, if the stored one is to be upgraded. Best effort:
   * the password was right, so a hasher that cannot hash it (a legacy hash accepted a
   * password the new one refuses) must not turn the login into an error; the next login
   * tries again.
   */
  async #upgrade(user: UserRecord, password: string): Promise<string | undefined> {
    try {
      return this.#hasher.needsRehash(user.passwordHash) ? await this.#hasher.hash(password) : undefined;
    } catch (error) {
      this.#manager.emit({ type: "rehash.failed", uid: user.uid, error });
      return undefined;
    }
  }

  /** Writes an upgraded hash by compare-and-set (a password change that raced this login wins); a failed write is reported, not fatal. */
  async #storeUpgrade(user: UserRecord, next: string): Promise<void> {
    try {
      await this.#manager.users.updatePasswordHash(user.uid, user.passwordHash, next);
    } catch (error) {
      this.#manager.emit({ type: "rehash.failed", uid: user.uid, error });
    }
  }

  async #open(user: UserRecord, attempt: LoginAttempt): Promise<LoginResult> {
    const manager = this.#manager;
    // The user's own oldest sessions make room, so that no account holds more than its
    // share of the store (logins that raced past the cap are trimmed by the next one).
    const live = await manager.sessions.listByUser(user.uid);
    for (const old of live.slice(0, Math.max(0, live.length - this.#options.maxSessionsPerUser + 1))) {
      await manager.sessions.destroy(old.handle);
      manager.emit({ type: "session.revoked", uid: user.uid, session: old.handle, reason: "session-limit" });
    }
    const { now } = attempt;
    const record: SessionRecord = {
      uid: user.uid,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: manager.expiresAt(now, now),
      ip: attempt.ip,
      userAgent: attempt.userAgent.slice(0, 256),
    };
    const sessid = await manager.sessions.create(record);
    manager.emit({ type: "login.success", uid: user.uid, session: hashSessionId(sessid), ip: attempt.ip });
    return { sessid, user };
  }
}

function scalar(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}
