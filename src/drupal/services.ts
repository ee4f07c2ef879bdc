import { nowSeconds } from "../core/clock.js";
import { expiredSessionCookie, readCookie, sessionCookie, type CookieAttributes } from "../core/cookie.js";
import type { Authenticator } from "../core/login.js";
import { SAFE_METHODS, type SessionManager, type SessionState } from "../core/session-manager.js";
import type { ResolvedRouterOptions } from "../core/options.js";
import { plainAddress } from "../core/client-address.js";
import { isCrossSiteLogin, normalizeOrigin } from "../core/origin.js";
import { createSessionId, hashSessionId } from "../core/session-id.js";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import { bodyArgument, parseRequestBody, requestMime } from "./body.js";
import { loginArgumentSchemas, readLoginArgument, type LoginArgumentName } from "./login-body.js";
import { anonymousUserObject, connectUserObject, loginUserObject } from "./user-object.js";
import { errorReply, jsonHeaders, jsonReply, type WireResponse } from "./wire.js";

const FORM_MIME = "application/x-www-form-urlencoded";

/** A request to one of the Services calls, described without any framework. */
export interface ServicesRequest {
  /** The real HTTP method (never an override). */
  readonly method: string;
  /** The `Host` header. */
  readonly host: string;
  /** Whether the request came over HTTPS. */
  readonly secure: boolean;
  readonly ip: string;
  readonly userAgent: string;
  readonly cookieHeader: string | undefined;
  /** The `X-CSRF-Token` header. */
  readonly csrfHeader: string | undefined;
  /** `services_token` from the query string, if any. */
  readonly queryToken: string | undefined;
  /** The `Services-User-Login-Version` header. */
  readonly loginVersion: string | undefined;
  /** The `Origin` header: which site's page sent the request, if a browser did. */
  readonly origin: string | undefined;
  /** The `Sec-Fetch-Site` header (`same-origin`, `same-site`, `cross-site`, `none`), if a browser sent it. */
  readonly fetchSite: string | undefined;
  /** The body: raw bytes with their Content-Type, or a value an earlier body parser already produced. */
  readonly body: { readonly raw: Buffer; readonly contentType: string | undefined } | { readonly parsed: unknown };
  /** Whether the URL had no `.json` suffix, so the reply varies by `Accept`. */
  readonly negotiated: boolean;
}

/** The session-related facts of one request, worked out once. */
export interface Context {
  readonly name: string;
  readonly cookie: CookieAttributes;
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

  /** `POST user/login` (`_user_resource_login`). */
  login(request: ServicesRequest): Promise<WireResponse> {
    const v11 = this.#options.loginApiVersion === "1.1" || request.loginVersion?.trim() === "1.1";
    // API 1.1 renamed the arguments; both shapes are read, the version names the missing one.
    const [nameKey, passKey, altName, altPass] = v11 ? (["name", "pass", "username", "password"] as const) : (["username", "password", "name", "pass"] as const);
    // The same schemas describe the body in openApiDocument(). An argument that fails its
    // schema is passed on as invalid, and refused as "Wrong username or password." below.
    const schemas = this.#loginArgs;
    const read = (body: unknown, key: LoginArgumentName, alt: LoginArgumentName) => {
      const value = readLoginArgument(body, schemas[key], key);
      return value === undefined ? readLoginArgument(body, schemas[alt], alt) : value;
    };
    const args = (body: unknown) => {
      const name = read(body, nameKey, altName);
      if (name === undefined) throw new SessionAuthError("ERR_MISSING_ARGUMENT", nameKey);
      const password = read(body, passKey, altPass);
      if (password === undefined) throw new SessionAuthError("ERR_MISSING_ARGUMENT", passKey);
      return { name, password };
    };
    return this.#call(request, { csrf: true, args, sameSite: true }, async ({ name, password }, { state, now, name: cookieName, cookie, extra }) => {
      if (state.kind === "live") throw new SessionAuthError("ERR_ALREADY_LOGGED_IN", state.user.name);
      const result = await this.#auth.login({ name, password, ip: request.ip, userAgent: request.userAgent, now });
      const user = loginUserObject(result.user, now, this.#options.isAdmin(result.user));
      const reply = { sessid: result.sessid, session_name: cookieName, token: this.#manager.token(result.sessid), user };
      return jsonReply(reply, { ...extra, "Set-Cookie": sessionCookie(cookieName, result.sessid, cookie, now) });
    });
  }

  /** `POST system/connect` (`_system_resource_connect`). */
  connect(request: ServicesRequest): Promise<WireResponse> {
    return this.#call(request, { csrf: true }, async (_args, { state, name, now, extra }) => {
      if (state.kind === "live") {
        const user = connectUserObject(state.user, state.session, this.#options.isAdmin(state.user));
        return jsonReply({ sessid: state.sessid, session_name: name, user }, extra);
      }
      // Drupal's lazy session id: random, never stored, and no cookie is set.
      return jsonReply({ sessid: createSessionId(), session_name: name, user: anonymousUserObject(request.ip, now) }, extra);
    });
  }

  /** `POST user/logout` (`_user_resource_logout`, API 1.0: `[true]`). */
  logout(request: ServicesRequest): Promise<WireResponse> {
    return this.#call(request, { csrf: true }, async (_args, { state, name, cookie, extra }) => {
      if (state.kind !== "live") throw new SessionAuthError("ERR_NOT_LOGGED_IN");
      await this.#manager.logout(state.session);
      this.#manager.emit({ type: "logout", uid: state.user.uid, session: hashSessionId(state.sessid), ip: request.ip });
      return jsonReply([true], { ...extra, "Set-Cookie": expiredSessionCookie(name, cookie), "Clear-Site-Data": '"cookies"' });
    });
  }

  /** `POST user/token` (`_user_resource_get_token`): the token as JSON, never CSRF-checked. */
  userToken(request: ServicesRequest): Promise<WireResponse> {
    return this.#call(request, { csrf: false }, async (_args, { state, extra }) =>
      jsonReply({ token: state.kind === "live" ? this.#manager.token(state.sessid) : createSessionId() }, extra),
    );
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

  #context(request: ServicesRequest): Promise<Context> {
    return sessionContext(this.#manager, request);
  }

  /** Services' pipeline for an action: body, arguments, session with the CSRF rule, callback. */
  async #call<A>(
    request: ServicesRequest,
    step: { csrf: boolean; args?: (body: unknown) => A; sameSite?: boolean },
    callback: (args: A, context: Context) => Promise<WireResponse>,
  ): Promise<WireResponse> {
    let extra: Record<string, string | readonly string[]> = request.negotiated ? { Vary: "Accept" } : {};
    try {
      const fromForm = !("parsed" in request.body) && requestMime(request.body.contentType).toLowerCase() === FORM_MIME;
      const body = "parsed" in request.body ? request.body.parsed : parseRequestBody(request.body.raw, request.body.contentType);
      const args = step.args?.(body) as A;
      // Before the session is read: a refused cross-site login reads and changes nothing.
      if (step.sameSite === true) this.#refuseCrossSite(request);
      const context = await this.#context(request);
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

/** `services_token` from a form body (never from JSON, as in Services' `$_REQUEST`). */
function formToken(body: unknown): string | undefined {
  const value = bodyArgument(body, "services_token");
  return typeof value === "string" ? value : undefined;
}

/**
 * Resolves a request's session cookie. A cookie that names no live session gets a deletion
 * `Set-Cookie`, as Drupal's `session_destroy()` sends at commit.
 * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when a store fails.
 */
export async function sessionContext(manager: SessionManager, request: Pick<ServicesRequest, "host" | "secure" | "cookieHeader">): Promise<Context> {
  const now = nowSeconds();
  const name = manager.cookieName(request.host, request.secure);
  const cookie: CookieAttributes = { secure: request.secure, domain: manager.options.cookieDomain, maxAge: manager.options.absoluteTimeout };
  const state = await manager.resolve(readCookie(request.cookieHeader, name), now);
  const extra: Record<string, string | readonly string[]> = state.kind === "stale" ? { "Set-Cookie": expiredSessionCookie(name, cookie) } : {};
  return { name, cookie, state, now, extra };
}

/**
 * `services/session/token`: the bare token as text/plain, any method, never checked. An
 * anonymous caller gets a fresh random token and no cookie, as Drupal does.
 */
export async function sessionTokenReply(manager: SessionManager, request: Pick<ServicesRequest, "host" | "secure" | "cookieHeader">): Promise<WireResponse> {
  try {
    const { state, extra } = await sessionContext(manager, request);
    const token = state.kind === "live" ? manager.token(state.sessid) : createSessionId();
    return { status: 200, headers: { ...jsonHeaders(extra), "Content-Type": "text/plain; charset=UTF-8" }, body: token };
  } catch (error) {
    return errorReply(error);
  }
}
