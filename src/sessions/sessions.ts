import { SessionAuthError } from "../errors.js";
import type { SessionRecord, SessionStore, SessionStoreContext, StoredSession, UserRecord, UserStore } from "../types.js";
import { nowSeconds } from "../clock.js";
import { readCookies, deletionHeaders, type CookiePlacement } from "../cookie/cookie-headers.js";
import type { Emit } from "../events.js";
import { placeSessionCookie } from "../cookie/session-cookie.js";
import type { SessionSettings } from "./options.js";
import { PendingLogouts } from "./pending-logouts.js";
import { createSessionId, hashSessionId, safeEqual } from "./session-id.js";

/** What a request's session cookie turned out to be. */
export type SessionState =
  | { readonly kind: "none" }
  /** A cookie naming no live session; `sessid` is the first value sent, as Drupal's `session_id()` is the cookie's value. */
  | { readonly kind: "stale"; readonly sessid: string }
  | LiveSession;

/** A live session: its id, what the store holds, and its (active) user. */
export interface LiveSession {
  readonly kind: "live";
  readonly sessid: string;
  readonly session: StoredSession;
  readonly user: UserRecord;
}

/** A request as far as finding its session goes. */
export interface SessionRequest {
  /** The `Host` header: the cookie's name and `Domain` follow it, as in Drupal. */
  readonly host: string;
  readonly secure: boolean;
  readonly cookieHeader: string | undefined;
  /** The request's id for the events, read only when one is raised. */
  readonly requestId?: string | undefined;
  /** The client's address, read only when the store records it (a touch, a login). */
  readonly ip?: string;
}

/** A request's session, worked out once. */
export interface SessionContext {
  readonly cookie: CookiePlacement;
  /** How many distinct session cookies of this name the request sent (at most {@link MAX_COOKIE_CANDIDATES} are looked up). */
  readonly sent: number;
  readonly state: SessionState;
  readonly now: number;
  /** The `Set-Cookie` values every reply to this request carries: a lone stale cookie's deletions, or none. */
  readonly setCookie: readonly string[];
}

/**
 * The reads one of this package's memory stores answers at once, without a promise: a guarded
 * request over them then waits on nothing (docs/performance.md#no-promise-where-the-stores-answer-in-process).
 */
export interface ReadsAtOnce {
  /** `get` itself. */
  readonly session?: ((sessid: string) => StoredSession | null) | undefined;
  /** `findById` itself, or `undefined` while the store is not ready (ask `findById`). */
  readonly user?: ((uid: string) => UserRecord | null | undefined) | undefined;
}

/** The stores the lifecycle keeps sessions in. */
export interface SessionStores {
  /** The session store, guarded by its timeout. */
  readonly sessions: SessionStore;
  /** The user store, guarded by its timeout. */
  readonly users: UserStore;
  /** Whether the session store lives in this process only (no other instance reads it). */
  readonly local: boolean;
  /** The reads the stores answer without a promise (the package's memory stores'), used where nothing else is asked of them. */
  readonly atOnce?: ReadsAtOnce | undefined;
}

/** Where a new session is opened from. */
export interface SessionClient {
  /** The client's address, as Drupal shows it. */
  readonly ip: string;
  readonly userAgent: string;
  readonly now: number;
  readonly requestId?: string | undefined;
  /** What the session store may learn of the request (its scheme, a cookie the new session replaces). */
  readonly store?: SessionStoreContext | undefined;
}

const COOKIE_CACHE_LIMIT = 256;

const NO_SESSION: SessionState = { kind: "none" };
/** The store's view of a request, one object per scheme: a read costs no allocation. */
const OVER_HTTPS: SessionStoreContext = Object.freeze({ secure: true });
const OVER_HTTP: SessionStoreContext = Object.freeze({ secure: false });
/** No cookie to write, as nearly every request has: one shared, frozen list rather than a new one each time. */
export const NO_COOKIES: readonly string[] = Object.freeze([]);

/** Most distinct cookies of one name that can still be a session (three places written, one spare): more is none, so lookups stay bounded. */
export const MAX_COOKIE_CANDIDATES = 4;

/** Well-formed values of the session cookie a logout computes a token for: far more than a browser keeps, a bound on a request's MACs. */
const MAX_TOKEN_CANDIDATES = 32;
/** What any store's session id looks like (base64url, from a 128-bit id to a sealed cookie), so a value of another shape costs no MAC. */
const CANDIDATE_SHAPE = /^[\w-]{22,4096}$/;

/** Seconds a store keeps a session past its deadline, so its expiry can still be recognised and reported. */
export const EXPIRY_GRACE = 600;

/** Methods that never need a CSRF token (RFC 9110 safe methods, as Services lists them). */
export const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

/**
 * The session lifecycle, framework-free: reading a request's session (timeouts decided on every
 * read, last-seen writes throttled), starting one, ending one or all (failing closed), the CSRF
 * token and its check, with their audit events. Stores only keep what they are given.
 */
export class Sessions {
  readonly #options: SessionSettings;
  readonly #store: SessionStore;
  readonly #users: UserStore;
  /** Per scheme, so that a plain-HTTP request can never decide an HTTPS one's cookie. */
  readonly #cookies = { http: new Map<string, CookiePlacement>(), https: new Map<string, CookiePlacement>() };
  readonly #pending: PendingLogouts;
  /** Whether the session store lives in this process only (no other instance reads it). */
  readonly #local: boolean;
  readonly #atOnce: ReadsAtOnce;

  /** Raises an audit event (stamped, and passed to the app's listener). */
  readonly #emit: Emit;

  /**
   * @param settings - The lifecycle's own settings (timeouts, the cap, the token) and the cookie's.
   * @param stores - The session and user stores, already guarded by timeouts, and the reads they answer at once.
   * @param emit - Where events go: stamped, to the app's listener.
   */
  constructor(settings: SessionSettings, stores: SessionStores, emit: Emit) {
    this.#options = settings;
    this.#emit = emit;
    this.#store = stores.sessions;
    this.#users = stores.users;
    this.#pending = new PendingLogouts(stores.sessions);
    this.#local = stores.local;
    this.#atOnce = stores.atOnce ?? {};
  }

  /** Users with a logout held in this process until the store takes it. */
  get heldLogouts(): number {
    return this.#pending.size;
  }

  /** The session cookie for a request to `host` (its name, attributes and other places), cached per host. */
  placement(host: string, secure: boolean): CookiePlacement {
    const cache = secure ? this.#cookies.https : this.#cookies.http;
    let cookie = cache.get(host);
    if (cookie === undefined) {
      cookie = placeSessionCookie(this.#options, host, secure);
      if (cache.size >= COOKIE_CACHE_LIMIT) cache.clear();
      cache.set(host, cookie);
    }
    return cookie;
  }

  /**
   * A request's session where it is known without waiting, as for nearly every request: no cookie,
   * or one naming a live session in stores that answer at once with nothing to write (no touch, no
   * expiry, no deletion). `undefined` where {@link context} must be asked.
   */
  contextAtOnce(request: SessionRequest): SessionContext | undefined {
    const cookieHeader = request.cookieHeader;
    const atOnce = this.#atOnce;
    if (cookieHeader !== undefined && (atOnce.session === undefined || atOnce.user === undefined)) return undefined;
    const now = nowSeconds();
    const secure = request.secure;
    const cookie = this.placement(request.host, secure);
    const sessids = readCookies(cookieHeader, cookie.name);
    if (sessids.length === 0) return { cookie, sent: 0, state: NO_SESSION, now, setCookie: NO_COOKIES };
    if (sessids.length > 1) return undefined;
    const sessid = sessids[0]!;
    const session = atOnce.session!(sessid);
    if (session === null || this.#pending.covers(session)) return undefined;
    const { record } = session;
    if (this.#expiry(record, now) !== undefined || now - record.lastSeenAt >= this.#options.touchInterval) return undefined;
    const user = session.user ?? atOnce.user!(record.uid);
    if (user === undefined || user === null || !user.active) return undefined;
    return { cookie, sent: 1, state: liveSession(sessid, session, user), now, setCookie: NO_COOKIES };
  }

  /**
   * A request's session. A lone cookie is used as Drupal used it; several values of the name are
   * all looked up and no cookie is set or deleted, since one may be planted: the rules are in
   * docs/wire-format.md#stale-and-duplicate-cookies.
   *
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` (the promise rejects with it) when a store fails.
   */
  async context(request: SessionRequest): Promise<SessionContext> {
    const now = nowSeconds();
    // Read once: a framework's scheme may be a getter chain (Express's req.secure asks its trust-proxy setting).
    const secure = request.secure;
    const cookie = this.placement(request.host, secure);
    const sessids = readCookies(request.cookieHeader, cookie.name);
    const sent = sessids.length;
    if (sent === 0) return { cookie, sent, state: NO_SESSION, now, setCookie: NO_COOKIES };
    if (sent > MAX_COOKIE_CANDIDATES) {
      this.#emit({ type: "session.ambiguous", reason: "too-many-cookies", cookies: sent, uids: [] }, request.requestId);
      return { cookie, sent, state: NO_SESSION, now, setCookie: NO_COOKIES };
    }
    let live: LiveSession | undefined;
    const scope = secure ? OVER_HTTPS : OVER_HTTP;
    // One cookie, as nearly every request carries: looked up alone, with nothing to compare.
    if (sent === 1) live = await this.#resolve(sessids[0]!, now, request, scope);
    else {
      const found = (await Promise.all(sessids.map((sessid) => this.#resolve(sessid, now, request, scope)))).filter((one) => one !== undefined);
      const uids = [...new Set(found.map((one) => one.user.uid))];
      if (uids.length > 1) {
        this.#emit({ type: "session.ambiguous", reason: "accounts", cookies: sent, uids }, request.requestId);
        return { cookie, sent, state: NO_SESSION, now, setCookie: NO_COOKIES };
      }
      live = found[0];
    }
    if (live === undefined) {
      const deletes = sent === 1 && !(await this.#heldElsewhere(sessids[0]!, request, cookie));
      return {
        cookie,
        sent,
        state: { kind: "stale", sessid: sessids[0]! },
        now,
        setCookie: deletes ? deletionHeaders(cookie, sent, request.cookieHeader) : NO_COOKIES,
      };
    }
    const { record } = live.session;
    if (now - record.lastSeenAt >= this.#options.touchInterval) {
      await this.#store.touch(live.session.handle, now, this.#expiresAt(record.createdAt, now), { secure, ip: request.ip });
    }
    return { cookie, sent, state: live, now, setCookie: NO_COOKIES };
  }

  /** Whether the store keeps the row of a lone cookie that named no live session for another system; a row it cannot serve is reported. */
  async #heldElsewhere(sessid: string, request: SessionRequest, cookie: CookiePlacement): Promise<boolean> {
    const store = this.#store;
    if (store.heldElsewhere === undefined) return false;
    const held = await store.heldElsewhere(sessid, this.#storeContext(request, cookie));
    if (typeof held === "string") this.#emit({ type: "session.unserved", session: hashSessionId(sessid), reason: held }, request.requestId);
    return held !== false;
  }

  /** What the store may learn of a request: its scheme, its address, and over HTTPS the plain-HTTP twin cookie (Drupal reads it). */
  #storeContext(request: SessionRequest, cookie: CookiePlacement, replacing?: string): SessionStoreContext {
    const insecureSessid = cookie.insecureName === undefined ? undefined : readCookies(request.cookieHeader, cookie.insecureName)[0];
    return { secure: request.secure, ip: request.ip, insecureSessid, replacing };
  }

  /** What the store is told of a login's request: with the id of the lone cookie that named no live session, which the new session replaces. */
  loginContext(request: SessionRequest, context: SessionContext): SessionStoreContext {
    return this.#storeContext(request, context.cookie, context.state.kind === "stale" && context.sent === 1 ? context.state.sessid : undefined);
  }

  /** The live session a cookie value names, if any; an expired one, or one whose user is gone or blocked, is ended. */
  async #resolve(sessid: string, now: number, request: SessionRequest, scope: SessionStoreContext): Promise<LiveSession | undefined> {
    const session = await this.#store.get(sessid, scope);
    if (session === null || this.#pending.covers(session)) return undefined;
    const { record } = session;
    const expired = this.#expiry(record, now);
    if (expired !== undefined) {
      await this.#store.destroy(session.handle);
      this.#emit({ type: "session.expired", uid: record.uid, session: hashSessionId(sessid), reason: expired }, request.requestId);
      return undefined;
    }
    // Drupal joins the session to its user on status = 1: a blocked user's sessions are void.
    const joined = session.user;
    const user = joined !== undefined ? joined : await this.#users.findById(record.uid);
    if (user === null || !user.active) {
      await this.#store.destroy(session.handle);
      this.#emit({ type: "session.revoked", uid: record.uid, session: hashSessionId(sessid), reason: "user-blocked" }, request.requestId);
      return undefined;
    }
    return liveSession(sessid, session, user);
  }

  /** Which of its deadlines a session has passed at `now`, if any. */
  #expiry(record: SessionRecord, now: number): "absolute" | "idle" | undefined {
    return now >= record.createdAt + this.#options.absoluteTimeout ? "absolute" : now >= record.lastSeenAt + this.#options.idleTimeout ? "idle" : undefined;
  }

  /**
   * Opens a session for `user` and resolves its new id (never the request's). The per-user cap is
   * applied after storing, so racing logins each see the others and the user ends at the cap; the
   * new session is never the one ended, and never another user's.
   */
  async start(user: UserRecord, client: SessionClient): Promise<string> {
    const { now } = client;
    const record: SessionRecord = {
      uid: user.uid,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: this.#expiresAt(now, now),
      ip: client.ip,
      userAgent: client.userAgent.slice(0, 256),
    };
    const sessid = await this.#store.create(record, client.store);
    const session = hashSessionId(sessid);
    try {
      // The cap ends sessions this app made: one that began on a system sharing the store is never its to end.
      const others = (await this.#store.listByUser(user.uid)).filter((stored) => stored.handle !== session && stored.startedElsewhere !== true);
      for (const old of others.slice(0, Math.max(0, others.length - this.#options.maxSessionsPerUser + 1))) {
        await this.#store.destroy(old.handle);
        this.#emit({ type: "session.revoked", uid: user.uid, session: old.handle, reason: "session-limit" }, client.requestId);
      }
    } catch (error) {
      // A login refused here leaves no session behind: nobody was given its id.
      await this.#store.destroy(session).catch(() => undefined);
      throw error;
    }
    this.#emit({ type: "login.success", uid: user.uid, session, ip: client.ip }, client.requestId);
    return sessid;
  }

  /**
   * Ends a live session, failing closed: else all the user's sessions (`destroyByUser`), else held
   * in this process and retried. Resolves `false` when held here only while the store is shared
   * (`logout.unrecorded`), so no client is told it is logged out everywhere.
   */
  async end(live: LiveSession, ip: string, requestId?: string): Promise<boolean> {
    const session = hashSessionId(live.sessid);
    try {
      await this.#store.destroy(live.session.handle);
    } catch {
      try {
        // The store refused this session's own mark: end them all.
        await this.#store.destroyByUser(live.session.record.uid);
      } catch {
        this.#pending.add(live.session);
        // A store in this process's memory is seen by no other instance: held here is ended everywhere it exists.
        if (!this.#local) {
          this.#emit({ type: "logout.unrecorded", uid: live.user.uid, session, ip }, requestId);
          return false;
        }
      }
    }
    this.#emit({ type: "logout", uid: live.user.uid, session, ip }, requestId);
    return true;
  }

  /**
   * Among the request's cookies, the live session whose CSRF token is `token`: how a logout finds
   * its own session among several. Every value's token is computed (one MAC each) and only the match
   * is looked up, so a planted value neither hides the caller's nor can be ended with another's token.
   */
  async liveForToken(request: SessionRequest, cookie: CookiePlacement, token: string, now: number): Promise<LiveSession | undefined> {
    // A MAC only for a value that can be a session id, at most MAX_TOKEN_CANDIDATES of them: planted junk costs
    // nothing and hides nothing, and no request buys more work than that.
    const values = readCookies(request.cookieHeader, cookie.name).filter((value) => CANDIDATE_SHAPE.test(value));
    if (values.length > MAX_TOKEN_CANDIDATES) return undefined;
    const sessid = values.find((value) => safeEqual(token, this.token(value)));
    return sessid === undefined ? undefined : this.#resolve(sessid, now, request, request.secure ? OVER_HTTPS : OVER_HTTP);
  }

  /** A user's sessions, oldest first (for a "your devices" page); handles are hashes, safe to show. */
  list(uid: string): Promise<StoredSession[]> {
    return this.#store.listByUser(uid);
  }

  /** Ends every session of a user ("log out everywhere"); resolves how many ended. */
  async endAll(uid: string, requestId?: string): Promise<number> {
    const sessions = await this.#store.destroyByUser(uid);
    // An audit trail needs "log out everywhere" as much as a single logout.
    this.#emit({ type: "logout.everywhere", uid, sessions }, requestId);
    return sessions;
  }

  /** Ends every session of a user but `keep` (a new password: the caller's own stays); resolves how many ended. */
  async endOthers(uid: string, keep: string | undefined, requestId?: string): Promise<number> {
    let ended = 0;
    for (const stored of await this.#store.listByUser(uid)) {
      if (stored.handle === keep) continue;
      await this.#store.destroy(stored.handle);
      this.#emit({ type: "session.revoked", uid, session: stored.handle, reason: "password-changed" }, requestId);
      ended += 1;
    }
    return ended;
  }

  /** The CSRF token bound to a session id. */
  token(sessid: string): string {
    return this.#options.csrfToken(sessid);
  }

  /** `drupal_get_token('services')` of `session_id()`: the cookie's value, else a random id, so anonymous tokens are random. */
  tokenFor(state: SessionState): string {
    return state.kind === "none" ? createSessionId() : this.token(state.sessid);
  }

  /**
   * Services' CSRF rule: only a live session on an unsafe method needs its own token (constant-time).
   * @throws SessionAuthError `ERR_CSRF` (with a `csrf.rejected` event) when it is not.
   */
  checkCsrf(state: SessionState, method: string, supplied: () => string | undefined, ip: () => string, requestId?: string): void {
    if (state.kind !== "live" || SAFE_METHODS.has(method)) return;
    const token = supplied();
    if (token !== undefined && safeEqual(token, this.token(state.sessid))) return;
    this.#emit({ type: "csrf.rejected", uid: state.user.uid, session: hashSessionId(state.sessid), ip: ip(), method }, requestId);
    throw new SessionAuthError("ERR_CSRF");
  }

  /** The `expiresAt` a store gets: the earlier deadline plus {@link EXPIRY_GRACE}, so an expiry can still be reported. */
  #expiresAt(createdAt: number, lastSeenAt: number): number {
    return Math.min(lastSeenAt + this.#options.idleTimeout, createdAt + this.#options.absoluteTimeout) + EXPIRY_GRACE;
  }
}

/** A live session as routes see it: without the account the store joined to it (its password hash among it). */
function liveSession(sessid: string, session: StoredSession, user: UserRecord): LiveSession {
  return { kind: "live", sessid, session: session.user === undefined ? session : { handle: session.handle, record: session.record }, user };
}

/** Set, delete the other places, set again: RFC 6265 jars take host-only and domain cookies as one (docs/wire-format.md). */
export function settingOver(set: string, deletions: readonly string[]): string[] {
  return [set, ...deletions, set];
}
