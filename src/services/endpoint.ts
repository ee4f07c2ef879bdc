import { nowSeconds } from "../core/clock.js";
import { expiredSessionCookie, readCookies, sessionCookie } from "../core/cookie.js";
import type { Authenticator } from "../core/login.js";
import { MAX_COOKIE_CANDIDATES, SAFE_METHODS, type SessionManager, type SessionState } from "../core/session-manager.js";
import type { ResolvedRouterOptions } from "../core/options.js";
import { plainAddress } from "../core/client-address.js";
import { isCrossSiteLogin, normalizeOrigin } from "../core/origin.js";
import { createSessionId, hashSessionId } from "../core/session-id.js";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import { bodyArgument, isFormBody, parseRequestBody, requestMime } from "./body.js";
import { loginArgumentSchemas, readLoginArgument } from "./login-body.js";
import { negotiateFormat } from "./negotiate.js";
import type { SessionCookie } from "./session-cookie.js";
import { anonymousUserObject, connectUserObject, loginUserObject, logoutUserObject } from "./user-object.js";
import { errorReply, jsonReply, textHeaders, type WireResponse } from "./wire.js";

/** A request to one of the Services calls, described without any framework. */
export interface ServicesRequest {
  /** The real HTTP method (never an override). */
  readonly method: string;
  /** The `Host` header. */
  readonly host: string;
  /** Whether the request came over HTTPS. */
  readonly secure: boolean;
  /** The client's address, an IPv4 one without the `::ffff:` prefix. */
  readonly ip: string;
  readonly userAgent: string;
  readonly cookieHeader: string | undefined;
  /** The `X-CSRF-Token` header. */
  readonly csrfHeader: string | undefined;
  /** `services_token` from the query string, if any. */
  readonly queryToken: string | undefined;
  /**
   * The API version a `services_<resource>_<method>_version` header asks for. Services takes
   * any such header, whatever resource and method it names (`_services_version_header_options`).
   */
  readonly versionHeader: string | undefined;
  /** The `Accept` header. */
  readonly accept: string | undefined;
  /** The URL's format suffix (`json` in `user/login.json`), if any: it wins over `Accept`. */
  readonly format: string | undefined;
  /** The `Origin` header: which site's page sent the request, if a browser did. */
  readonly origin: string | undefined;
  /** The `Sec-Fetch-Site` header (`same-origin`, `same-site`, `cross-site`, `none`), if a browser sent it. */
  readonly fetchSite: string | undefined;
  /** The body: raw bytes with their Content-Type, or a value an earlier body parser already produced. */
  readonly body: { readonly raw: Buffer; readonly contentType: string | undefined } | { readonly parsed: unknown };
}

/** The session-related facts of one request, worked out once. */
export interface Context {
  readonly cookie: SessionCookie;
  /** How many distinct session cookies of this name the request sent (at most a few are looked at). */
  readonly sent: number;
  readonly state: SessionState;
  readonly now: number;
  /** Headers every reply to this request carries (a stale cookie's deletion, `Vary`). */
  readonly extra: Readonly<Record<string, string | readonly string[]>>;
}

/**
 * The four Services calls and the session token call as framework-free functions from a
 * {@link ServicesRequest} to a {@link WireResponse}, in the order of Services' pipeline
 * (reference §1.5): body, arguments, session and CSRF, then the callback.
 */
export class ServicesEndpoint {
  readonly #manager: SessionManager;
  readonly #auth: Authenticator;
  readonly #options: ResolvedRouterOptions;
  readonly #loginArgs: ReturnType<typeof loginArgumentSchemas>;
  /** The site's own origin when `baseUrl` names it; else each request's scheme and `Host` do. */
  readonly #baseOrigin: string | undefined;

  constructor(manager: SessionManager, auth: Authenticator, options: ResolvedRouterOptions) {
    this.#manager = manager;
    this.#auth = auth;
    this.#options = options;
    this.#loginArgs = loginArgumentSchemas(options);
    const base = options.baseUrl === undefined ? undefined : new URL(options.baseUrl);
    this.#baseOrigin = base === undefined ? undefined : normalizeOrigin(`${base.protocol}//${base.host}`);
  }

  /** `POST user/login` (`_user_resource_login`, or `_user_resource_login_1_1`). */
  login(request: ServicesRequest): Promise<WireResponse> {
    // API 1.1 renamed the arguments, and each version reads only its own names.
    const [nameKey, passKey] = this.#version(request, this.#options.loginApiVersion) === "1.1" ? (["name", "pass"] as const) : (["username", "password"] as const);
    // The same schemas describe the body in openApiDocument(). An argument that fails its
    // schema is passed on as invalid, and refused as "Wrong username or password." below.
    const schemas = this.#loginArgs;
    const args = (body: unknown) => {
      const name = readLoginArgument(body, schemas[nameKey], nameKey);
      if (name === undefined) throw new SessionAuthError("ERR_MISSING_ARGUMENT", nameKey);
      const password = readLoginArgument(body, schemas[passKey], passKey);
      if (password === undefined) throw new SessionAuthError("ERR_MISSING_ARGUMENT", passKey);
      return { name, password };
    };
    return this.#call(request, { csrf: true, args, sameSite: true }, async ({ name, password }, { state, now, cookie, sent, extra }) => {
      if (state.kind === "live") throw new SessionAuthError("ERR_ALREADY_LOGGED_IN", state.user.name);
      // user_is_blocked('') finds Drupal's anonymous row (uid 0, name '', status 0): an empty
      // name is "blocked" before anything else is checked, and nothing is counted or hashed.
      if (name === "" && this.#options.blockedAccountResponse === "drupal") throw new SessionAuthError("ERR_ACCOUNT_BLOCKED", "");
      const result = await this.#auth.login({ name, password, ip: request.ip, userAgent: request.userAgent, now });
      const user = loginUserObject(result.user, now, this.#options.isAdmin(result.user));
      const reply = { sessid: result.sessid, session_name: cookie.name, token: this.#manager.token(result.sessid), user };
      // The new cookie first (clients that read one Set-Cookie read it), then the other places
      // a stale copy of the name may sit, so it cannot shadow the new one.
      const cookies = [sessionCookie(cookie.name, result.sessid, cookie.attributes, now), ...(sent > 0 ? variantDeletions(cookie) : [])];
      return jsonReply(reply, { ...extra, "Set-Cookie": cookies });
    });
  }

  /** `POST system/connect` (`_system_resource_connect`). */
  connect(request: ServicesRequest): Promise<WireResponse> {
    return this.#call(request, { csrf: true }, async (_args, { state, cookie, now, extra }) => {
      if (state.kind === "live") {
        const user = connectUserObject(state.user, state.session, this.#options.isAdmin(state.user));
        return jsonReply({ sessid: state.sessid, session_name: cookie.name, user }, extra);
      }
      // session_id(): the cookie's value if one was sent (it is deleted in the same reply), else
      // Drupal's lazy id, random, never stored, and set as no cookie.
      const sessid = state.kind === "stale" ? state.sessid : createSessionId();
      return jsonReply({ sessid, session_name: cookie.name, user: anonymousUserObject(request.ip, now) }, extra);
    });
  }

  /** `POST user/logout` (`_user_resource_logout`: `[true]`; API 1.1: the anonymous user). */
  logout(request: ServicesRequest): Promise<WireResponse> {
    const v11 = this.#version(request, "1.0") === "1.1";
    return this.#call(request, { csrf: true }, async (_args, { state, cookie, extra }) => {
      if (state.kind !== "live") throw new SessionAuthError("ERR_NOT_LOGGED_IN");
      await this.#manager.logout(state.session);
      this.#manager.emit({ type: "logout", uid: state.user.uid, session: hashSessionId(state.sessid), ip: request.ip });
      const headers: Record<string, string | readonly string[]> = { ...extra, "Set-Cookie": sessionCookieDeletions(cookie) };
      // Clears every cookie of the origin in a browser, a Drupal site's beside this one too: opt-in.
      if (this.#options.clearSiteData) headers["Clear-Site-Data"] = '"cookies"';
      return jsonReply(v11 ? logoutUserObject(request.ip) : [true], headers);
    });
  }

  /** `POST user/token` (`_user_resource_get_token`): the token as JSON, never CSRF-checked. */
  userToken(request: ServicesRequest): Promise<WireResponse> {
    return this.#call(request, { csrf: false }, async (_args, { state, extra }) => jsonReply({ token: tokenFor(this.#manager, state) }, extra));
  }

  /**
   * Login CSRF: a page on another site must not log the visitor's browser into an account
   * (Services never checked anonymous requests; browsers now say where a request is from).
   * @throws SessionAuthError `ERR_CROSS_SITE_LOGIN`.
   */
  #refuseCrossSite(request: ServicesRequest): void {
    const ownOrigin = this.#baseOrigin ?? normalizeOrigin(`${request.secure ? "https" : "http"}://${request.host}`);
    const scripted = request.csrfHeader !== undefined || ("raw" in request.body && requestMime(request.body.contentType).toLowerCase() === "application/json");
    const source = { origin: request.origin, fetchSite: request.fetchSite, ownOrigin, scripted };
    if (!isCrossSiteLogin(source, this.#options.trustedOrigins)) return;
    const origin = request.origin === undefined ? null : request.origin.slice(0, 256);
    this.#manager.emit({
      type: "login.cross-site",
      origin,
      fetchSite: request.fetchSite?.slice(0, 32) ?? null,
      ip: plainAddress(request.ip),
      message:
        origin === null
          ? "login refused: the browser marked it cross-site"
          : `login refused: origin ${origin} is not this site's (${ownOrigin ?? "unknown"}); if it is your own app, add it to trustedOrigins (a trusted "null" also needs an X-CSRF-Token header or a JSON body); behind a TLS-terminating proxy, set baseUrl or Express's trust proxy`,
    });
    throw new SessionAuthError("ERR_CROSS_SITE_LOGIN");
  }

  /** The API version a request's version header names, if it names one the calls know; else the endpoint's. */
  #version(request: ServicesRequest, configured: "1.0" | "1.1"): "1.0" | "1.1" {
    const asked = request.versionHeader?.trim();
    return asked === "1.0" || asked === "1.1" ? asked : configured;
  }

  /** Services' pipeline for an action: response format, body, arguments, session with the CSRF rule, callback. */
  async #call<A>(
    request: ServicesRequest,
    step: { csrf: boolean; args?: (body: unknown) => A; sameSite?: boolean },
    callback: (args: A, context: Context) => Promise<WireResponse>,
  ): Promise<WireResponse> {
    // Without a suffix the format follows Accept, so every reply says it varies by it.
    let extra: Record<string, string | readonly string[]> = request.format === undefined ? { Vary: "Accept" } : {};
    try {
      negotiateFormat(request.format, request.accept);
      const fromForm = !("parsed" in request.body) && isFormBody(request.body.contentType);
      const body = "parsed" in request.body ? request.body.parsed : await parseRequestBody(request.body.raw, request.body.contentType, this.#options.parsers);
      const args = step.args?.(body) as A;
      // Before the session is read: a refused cross-site login reads and changes nothing.
      if (step.sameSite === true) this.#refuseCrossSite(request);
      const context = await sessionContext(this.#manager, request);
      extra = { ...extra, ...context.extra };
      const { state } = context;
      if (step.csrf && state.kind === "live" && !SAFE_METHODS.has(request.method)) {
        const supplied = request.csrfHeader ?? request.queryToken ?? (fromForm ? formToken(body) : undefined);
        if (!this.#manager.tokenMatches(state.sessid, supplied)) {
          this.#manager.emit({ type: "csrf.rejected", uid: state.user.uid, session: hashSessionId(state.sessid), ip: request.ip, method: request.method });
          throw new SessionAuthError("ERR_CSRF");
        }
      }
      return await callback(args, { ...context, extra });
    } catch (error) {
      if (!isSessionAuthError(error)) this.#manager.emit({ type: "internal.error", error });
      return errorReply(error, extra);
    }
  }
}

/** `services_token` from a form or multipart body (never from JSON, as in Services' `$_REQUEST`). */
function formToken(body: unknown): string | undefined {
  const value = bodyArgument(body, "services_token");
  return typeof value === "string" ? value : undefined;
}

/**
 * `drupal_get_token('services')`: the token of `session_id()`, which is the cookie's value
 * whether or not it names a live session (a stale one gets the token it always had), and a
 * random lazy id without a cookie, so an anonymous caller's token is random every time.
 */
function tokenFor(manager: SessionManager, state: SessionState): string {
  return state.kind === "none" ? createSessionId() : manager.token(state.sessid);
}

/** Deletions for the other places a copy of the session cookie may sit (see `SessionCookie.variants`). */
function variantDeletions(cookie: SessionCookie): string[] {
  return cookie.variants.map((attributes) => expiredSessionCookie(cookie.name, attributes));
}

/**
 * Deletions for the session cookie where this server sets it, as Drupal's `session_destroy()`
 * sends it (same path, domain and secure flag), then for its other places, so a Drupal-era
 * copy goes too.
 */
export function sessionCookieDeletions(cookie: SessionCookie): string[] {
  return [expiredSessionCookie(cookie.name, cookie.attributes), ...variantDeletions(cookie)];
}

/**
 * Resolves a request's session cookies. Of several of one name, the first that names a live
 * session wins; when there were several, the reply sets the live one where this server keeps
 * it and deletes the others. Cookies that name no live session get deletions, as Drupal's
 * `session_destroy()` sends at commit.
 * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when a store fails.
 */
export async function sessionContext(manager: SessionManager, request: Pick<ServicesRequest, "host" | "secure" | "cookieHeader">): Promise<Context> {
  const now = nowSeconds();
  const cookie = manager.cookie(request.host, request.secure);
  const sessids = readCookies(request.cookieHeader, cookie.name, MAX_COOKIE_CANDIDATES);
  const state = await manager.resolveFirst(sessids, now);
  let setCookie: string[] = [];
  if (state.kind === "stale") {
    setCookie = sessionCookieDeletions(cookie);
  } else if (state.kind === "live" && sessids.length > 1) {
    // The live cookie may sit in any of the places: set it in ours, for what is left of its life.
    const maxAge = Math.max(1, state.session.record.createdAt + manager.options.absoluteTimeout - now);
    setCookie = [sessionCookie(cookie.name, state.sessid, { ...cookie.attributes, maxAge }, now), ...variantDeletions(cookie)];
  }
  return { cookie, sent: sessids.length, state, now, extra: setCookie.length === 0 ? {} : { "Set-Cookie": setCookie } };
}

/**
 * `services/session/token`: the bare token as text/plain, any method, never checked. An
 * anonymous caller without a cookie gets a fresh random token and no cookie, as Drupal does.
 */
export async function sessionTokenReply(manager: SessionManager, request: Pick<ServicesRequest, "host" | "secure" | "cookieHeader">): Promise<WireResponse> {
  try {
    const { state, extra } = await sessionContext(manager, request);
    return { status: 200, headers: textHeaders(extra), body: tokenFor(manager, state) };
  } catch (error) {
    return errorReply(error);
  }
}
