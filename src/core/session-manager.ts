import type { StoredSession, UserRecord } from "../types.js";
import { sessionCookieOf, type SessionCookie } from "../services/session-cookie.js";
import type { AuthEvent } from "./events.js";
import type { ResolvedSessionOptions } from "./options.js";
import { pendingLogouts, type PendingLogouts } from "./pending-logouts.js";
import { hashSessionId, safeEqual } from "./session-id.js";
import { guardStore } from "./store-guard.js";

/** What a request's session cookie turned out to be. */
export type SessionState =
  | { readonly kind: "none" }
  /**
   * A cookie was sent but names no live session: unknown, expired, tampered, or its user is
   * gone or blocked. `sessid` is the first value sent: Drupal's `session_id()` is the
   * cookie's value whether or not a session row exists.
   */
  | { readonly kind: "stale"; readonly sessid: string }
  | { readonly kind: "live"; readonly sessid: string; readonly session: StoredSession; readonly user: UserRecord };

const COOKIE_CACHE_LIMIT = 256;

/** At most this many session cookies of one name are looked up per request; the rest are ignored. */
export const MAX_COOKIE_CANDIDATES = 3;

/**
 * The session lifecycle over a store, framework-free: it alone decides expiry (idle and
 * absolute, enforced here on every read), throttles last-seen writes, and checks the
 * session-bound CSRF token. Stores only keep what they are given.
 */
export class SessionManager {
  readonly options: ResolvedSessionOptions;
  readonly sessions: ResolvedSessionOptions["sessionStore"];
  readonly users: ResolvedSessionOptions["userStore"];
  readonly #cookies = new Map<string, SessionCookie>();
  readonly #pending: PendingLogouts;

  constructor(options: ResolvedSessionOptions) {
    this.options = options;
    this.sessions = guardStore(options.sessionStore, "sessionStore", options.storeTimeout, options.onEvent);
    this.users = guardStore(options.userStore, "userStore", options.storeTimeout, options.onEvent);
    this.#pending = pendingLogouts(options.sessionStore, this.sessions, options.absoluteTimeout);
  }

  /**
   * The session cookie for a request to `host` (its `Host` header): the configured name or
   * Drupal's derivation, `Domain` by Drupal's rule or `cookieDomain`, `Secure` over HTTPS
   * (or always), `SameSite` only if configured. Cached per host.
   */
  cookie(host: string, secure: boolean): SessionCookie {
    const key = `${secure ? "s" : ""}${host}`;
    let cookie = this.#cookies.get(key);
    if (cookie === undefined) {
      cookie = sessionCookieOf(this.options, host, secure);
      if (this.#cookies.size >= COOKIE_CACHE_LIMIT) this.#cookies.clear();
      this.#cookies.set(key, cookie);
    }
    return cookie;
  }

  /**
   * Resolves the session cookies a request sent (`readCookies`) to the first that
   * names a live session, so a stale Drupal-era copy cannot shadow a live one. None live:
   * `stale` with the first value. At most {@link MAX_COOKIE_CANDIDATES} are tried.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  async resolveFirst(sessids: readonly string[], now: number): Promise<SessionState> {
    for (const sessid of sessids.slice(0, MAX_COOKIE_CANDIDATES)) {
      const state = await this.resolve(sessid, now);
      if (state.kind === "live") return state;
    }
    return sessids.length === 0 ? { kind: "none" } : { kind: "stale", sessid: sessids[0]! };
  }

  /**
   * Resolves a cookie value to a live session and its user. Expired sessions are removed,
   * and a session whose user is gone or blocked is void (Drupal joins on `status = 1`).
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  async resolve(sessid: string | undefined, now: number): Promise<SessionState> {
    if (sessid === undefined || sessid === "") return { kind: "none" };
    const session = await this.sessions.get(sessid);
    if (session === null || this.#pending.covers(session)) return { kind: "stale", sessid };
    const { record } = session;
    const expired = now >= record.createdAt + this.options.absoluteTimeout ? "absolute" : now >= record.lastSeenAt + this.options.idleTimeout ? "idle" : undefined;
    if (expired !== undefined) {
      await this.sessions.destroy(session.handle);
      this.emit({ type: "session.expired", uid: record.uid, session: hashSessionId(sessid), reason: expired });
      return { kind: "stale", sessid };
    }
    const user = await this.users.findById(record.uid);
    if (user === null || !user.active) {
      await this.sessions.destroy(session.handle);
      this.emit({ type: "session.revoked", uid: record.uid, session: hashSessionId(sessid), reason: "user-blocked" });
      return { kind: "stale", sessid };
    }
    if (now - record.lastSeenAt >= this.options.touchInterval) {
      await this.sessions.touch(session.handle, now, this.expiresAt(record.createdAt, now));
    }
    return { kind: "live", sessid, session, user };
  }

  /**
   * Ends a session at logout, failing closed: if the store cannot record it (full, or
   * down), the user's sessions are ended everywhere instead (`destroyByUser`, which the
   * sealed-cookie store records in one counter); if that fails too, the logout is held in
   * this process, which refuses the session from then on and offers the logout to the
   * store until it takes it. The session never keeps working after the client was told
   * it ended; each failed attempt is a `store.failure` event.
   */
  async logout(session: StoredSession): Promise<void> {
    try {
      return await this.sessions.destroy(session.handle);
    } catch {
      // The store refused this session's own mark: end them all.
    }
    try {
      await this.sessions.destroyByUser(session.record.uid);
    } catch {
      this.#pending.add(session);
    }
  }

  /**
   * The `expiresAt` a store is given for a session seen at `lastSeenAt`: the earlier of its
   * idle and absolute deadlines, plus {@link EXPIRY_GRACE}. The deadlines themselves are
   * enforced here, on every read; the grace only lets a client that comes back just after
   * expiry be told apart from a forged cookie, and the expiry be reported with its reason.
   */
  expiresAt(createdAt: number, lastSeenAt: number): number {
    return Math.min(lastSeenAt + this.options.idleTimeout, createdAt + this.options.absoluteTimeout) + EXPIRY_GRACE;
  }

  /** The CSRF token bound to a session id. */
  token(sessid: string): string {
    return this.options.csrfToken(sessid);
  }

  /** Whether a client-supplied token is the session's, compared in constant time. */
  tokenMatches(sessid: string, supplied: string | undefined): boolean {
    return supplied !== undefined && safeEqual(supplied, this.token(sessid));
  }

  /** Passes an event to the app's listener; a listener that throws is ignored. */
  emit(event: AuthEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // An audit hook's bug must never change an auth decision.
    }
  }
}

/** Seconds a store keeps a session past its deadline, so its expiry can still be recognised and reported. */
export const EXPIRY_GRACE = 600;

/** Methods that never need a CSRF token (RFC 9110 safe methods, as Services lists them). */
export const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);
