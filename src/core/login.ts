import { randomBytes } from "node:crypto";
import { SessionAuthError } from "../errors.js";
import type { PasswordHasher, SessionRecord, UserRecord } from "../types.js";
import type { ResolvedRouterOptions } from "./options.js";
import type { SessionManager } from "./session-manager.js";
import { hashSessionId } from "./session-id.js";
import { guardStore } from "./store-guard.js";
import { LoginThrottle } from "./throttle.js";

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

/**
 * The login decision of `_user_resource_login` (services 7.x-3.x), framework-free: blocked
 * check, flood pre-check, password check, flood post-check, then a new session.
 *
 * Timing-safe: an unknown name costs one `verify`, as a wrong password does, against the
 * hash of the last real account checked (before the first, a hash of a random password
 * made by the hasher). So it costs what real accounts cost even while they carry hashes of
 * different algorithms, as during a Drupal 7 migration when most are still `$S$`.
 */
export class Authenticator {
  readonly #manager: SessionManager;
  readonly #options: ResolvedRouterOptions;
  readonly #hasher: PasswordHasher;
  readonly #throttle: LoginThrottle | undefined;
  #dummyHash: Promise<string> | undefined;
  #lastRealHash: string | undefined;

  constructor(manager: SessionManager, options: ResolvedRouterOptions) {
    this.#manager = manager;
    this.#options = options;
    this.#hasher = options.hasher;
    const counters = guardStore(options.counterStore, "counterStore", options.storeTimeout, options.onEvent);
    this.#throttle = options.throttle === false ? undefined : new LoginThrottle(counters, options.throttle);
    // Made now, so the first unknown-name login costs no more than any other.
    this.#dummy().catch(() => undefined);
  }

  #dummy(): Promise<string> {
    this.#dummyHash ??= this.#hasher.hash(randomBytes(32).toString("base64url")).catch((error: unknown) => {
      this.#dummyHash = undefined;
      throw error;
    });
    return this.#dummyHash;
  }

  /**
   * Checks credentials and opens a session.
   * @throws SessionAuthError for every refusal, in Drupal's order.
   */
  async login(attempt: LoginAttempt): Promise<LoginResult> {
    const { ip, now } = attempt;
    const credentials = this.#credentials(attempt);
    if (credentials === null) {
      this.#manager.emit({ type: "login.failure", reason: "invalid-input", name: "", ip });
      throw new SessionAuthError("ERR_INVALID_CREDENTIALS");
    }
    const { name, password, oversized } = credentials;
    // Events carry at most a storable name: a 64 KiB one must not flood the audit log.
    const shown = name.slice(0, this.#options.maxNameLength);
    // An over-long name names no account (nothing that long can be stored); an over-long
    // password is looked up, so that it counts against the account like any wrong one.
    const user = name === "" || name.length > this.#options.maxNameLength ? null : await this.#manager.users.findByName(name);

    // Services refuses a blocked account before flood control and without hashing. The 403
    // tells the caller the account exists; "generic" hides that behind the usual 401.
    if (user !== null && !user.active && this.#options.blockedAccountResponse === "drupal") {
      this.#manager.emit({ type: "login.failure", reason: "blocked", name: shown, ip });
      throw new SessionAuthError("ERR_ACCOUNT_BLOCKED", name);
    }

    const flood = (await this.#throttle?.check(ip, user?.uid)) ?? null;
    // Over the limits, no hashing at all: a huge password cannot buy CPU time. It is still a
    // failure that counts, as Drupal counts a password over its 512-byte limit.
    const verified = flood === null && !oversized && (await this.#verify(user, name, password));
    if (flood !== null || !verified || user === null || !user.active) {
      await this.#throttle?.registerFailure(ip, user?.uid);
      if (flood !== null) {
        this.#manager.emit({ type: "login.throttled", scope: flood, name: shown, ip });
        throw new SessionAuthError(flood === "ip" ? "ERR_IP_THROTTLED" : "ERR_USER_THROTTLED");
      }
      const reason = oversized ? "invalid-input" : user === null ? "unknown-user" : user.active ? "wrong-password" : "blocked";
      this.#manager.emit({ type: "login.failure", reason, name: shown, ip });
      throw new SessionAuthError("ERR_INVALID_CREDENTIALS");
    }

    await this.#throttle?.clear(ip, user.uid);
    await this.#rehash(user, password);
    await this.#manager.users.recordLogin(user.uid, now);
    return this.#open({ ...user, login: now }, attempt);
  }

  /** Strings (or numbers, as PHP would take them), marked when over the length limits; anything else is no credential at all. */
  #credentials(attempt: LoginAttempt): { name: string; password: string; oversized: boolean } | null {
    const name = scalar(attempt.name);
    const password = scalar(attempt.password);
    if (name === null || password === null) return null;
    const oversized = name.length > this.#options.maxNameLength || Buffer.byteLength(password) > this.#options.maxPasswordBytes;
    return { name, password, oversized };
  }

  async #verify(user: UserRecord | null, name: string, password: string): Promise<boolean> {
    // user_authenticate() fails at once for an empty name, "0", or a blank password; that
    // depends on the input only, never on whether the account exists.
    if (name === "" || name === "0" || password.trim() === "") return false;
    if (user === null) {
      await this.#hasher.verify(this.#lastRealHash ?? (await this.#dummy()), password);
      return false;
    }
    this.#lastRealHash = user.passwordHash;
    return this.#hasher.verify(user.passwordHash, password);
  }

  /**
   * Upgrades a verified password's hash. Best effort: the password was right, so a hasher
   * that cannot hash it (a legacy hash accepted a password the new one refuses) or a store
   * that fails the write must not turn the login into an error; the next login tries again.
   */
  async #rehash(user: UserRecord, password: string): Promise<void> {
    try {
      if (!this.#hasher.needsRehash(user.passwordHash)) return;
      const next = await this.#hasher.hash(password);
      // Compare-and-set: a password change that raced this login wins.
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
