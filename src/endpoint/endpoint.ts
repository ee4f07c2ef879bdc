import { deletionHeaders, type CookiePlacement } from "../cookie/cookie-headers.js";
import type { Authenticator } from "../login/authenticator.js";
import type { Emit } from "../events.js";
import type { LoginSettings } from "../login/options.js";
import type { EndpointSettings } from "./options.js";
import type { LoginOriginRequest } from "../origins/login-origin.js";
import { createSessionId } from "../sessions/session-id.js";
import { type SessionContext, type SessionRequest, type Sessions } from "../sessions/sessions.js";
import { openedSessionCookies } from "../accounts/replies.js";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { UserRecord } from "../types.js";
import { parseRequestBody, requestMime } from "../http-input/body.js";
import { onUserResource, type UserRoute } from "../accounts/user-routes.js";
import type { UserResource } from "../accounts/user-resource.js";
import { parsePhpInput } from "../accounts/php-input.js";
import type { RequestBody } from "../http-input/request.js";
import { csrfTokenOf } from "../sessions/csrf-token-of.js";
import { loginArgumentSchemas, readLoginArgument } from "./login-arguments.js";
import { negotiateFormat } from "../http-input/negotiate.js";
import type { NotFoundRequest } from "./not-found.js";
import { trimSlashes } from "../http-input/path.js";
import { endpointRootReply, headReply, matchAction, optionsReply, routingMethod, type Action } from "./routing.js";
import { anonymousUserObject, connectUserObject, loginUserObject, logoutUserObject } from "../wire/user-object.js";
import { errorReply, jsonReply, textHeaders, type WireResponse } from "../wire/reply.js";

export type { RequestBody };

/** A request to one of the Services calls, described without any framework. */
export interface ServicesRequest extends SessionRequest {
  /** The real HTTP method (never an override). */
  readonly method: string;
  /** The client's address, an IPv4 one without the `::ffff:` prefix. */
  readonly ip: string;
  readonly userAgent: string;
  /** The `Content-Type` header: how the body is read, and whether `services_token` may come from it. */
  readonly contentType: string | undefined;
  readonly csrfHeader: string | undefined;
  readonly queryToken: string | undefined;
  /** A `services_<resource>_<method>_version` header's value: Services takes any resource and method. */
  readonly versionHeader: string | undefined;
  readonly accept: string | undefined;
  /** The `Origin` header: which site's page sent the request, if a browser did. */
  readonly origin: string | undefined;
  /** The routed query string (PHP's `$_GET` less `q`), which the account calls read their parameters from. */
  readonly query: string;
  /** The `Sec-Fetch-Site` header (`same-origin`, `same-site`, `cross-site`, `none`), if a browser sent it. */
  readonly fetchSite: string | undefined;
}

/** A request that reached the endpoint's mount path, before routing. */
export interface EndpointRequest extends ServicesRequest, NotFoundRequest {
  /** Reads the body, once routing has found a call that takes one. */
  body(): Promise<RequestBody>;
}

/** A routed call: the request, its body, and its URL's format suffix (`json` in `user/login.json`). */
interface ServicesCall {
  readonly request: ServicesRequest;
  readonly body: RequestBody;
  readonly format: string | undefined;
}

/**
 * The login reply (`{sessid, session_name, token, user}`) of `user/login` and `startSession`.
 *
 * @example
 * ```ts
 * const reply: LoginReply = await auth.startSession(req, res, user);
 * res.json(reply); // what a Drupal client expects after a login
 * ```
 */
export interface LoginReply {
  /** The session id: the value of the session cookie. */
  readonly sessid: string;
  /** The session cookie's name (`SESS…`, `SSESS…` over HTTPS). */
  readonly session_name: string;
  /** The session's CSRF token, for `X-CSRF-Token`. */
  readonly token: string;
  /** The user object, typed as Drupal's (`uid` a string, `login` a number, no `pass`). */
  readonly user: Record<string, unknown>;
}

/** A session opened or ended outside the Services calls: what to answer, and the cookies to set. */
export interface SessionChange<T> {
  readonly result: T;
  readonly setCookie: readonly string[];
  /** Set when the change holds here but not everywhere (a logout a shared store refused): the cookies go out, the answer is this. */
  readonly error?: SessionAuthError;
}

/** The endpoint's settings, the login limits it checks, and the checks made elsewhere (login origin, address shape). */
export type EndpointDeps = EndpointSettings &
  Pick<LoginSettings, "blockedAccountResponse" | "maxPasswordBytes" | "maxNameLength" | "deviceCookies"> & {
    readonly checkLoginOrigin: (request: LoginOriginRequest) => void;
    readonly checkAddress: (ip: string, requestId?: string) => void;
  };

/**
 * Drupal 7 Services' endpoint, framework-free: routing below the mount path, then the four calls
 * in the order of `RESTServer::handle`, plus `services/session/token` and programmatic start and
 * end of a session. What it answers: docs/wire-format.md.
 */
export class ServicesEndpoint {
  readonly #sessions: Sessions;
  readonly #auth: Authenticator;
  readonly #options: EndpointDeps;
  readonly #emit: Emit;
  readonly #loginArgs: ReturnType<typeof loginArgumentSchemas>;
  readonly #accounts: UserResource | undefined;

  /**
   * @param settings - What the endpoint works with ({@link EndpointDeps}).
   * @param emit - Where events go: stamped, to the app's listener.
   */
  constructor(settings: EndpointDeps, sessions: Sessions, auth: Authenticator, emit: Emit, accounts?: UserResource) {
    this.#emit = emit;
    this.#sessions = sessions;
    this.#auth = auth;
    this.#options = settings;
    this.#loginArgs = loginArgumentSchemas(settings);
    this.#accounts = accounts;
  }

  /** Whether a path below the endpoint may be one the endpoint answers (its root, a session call, the user resource when account calls are on). */
  answers(below: string): boolean {
    return trimSlashes(below) === "" || matchAction(below) !== undefined || (this.#accounts !== undefined && onUserResource(below));
  }

  /** Answers a request below the mount path as `RESTServer::getController` does (root, HEAD, OPTIONS, methods), or `undefined`. */
  async handle(request: EndpointRequest): Promise<WireResponse | undefined> {
    if (request.mounted && trimSlashes(request.path) === "") return endpointRootReply(this.#options.endpointName);
    const match = matchAction(request.path);
    const accounts = this.#accounts;
    if (accounts !== undefined) {
      // The user resource's calls by method (GET user/login is retrieve when retrieve is on); a POST to a session action stays that action.
      const method = routingMethod(request.method, request.methodOverride, request.methodParam);
      const route = method === "POST" && match !== undefined ? undefined : accounts.route(request.path, method);
      if (route !== undefined) return this.#accountCall(request, accounts, route);
    }
    if (match === undefined) return undefined;
    try {
      switch (routingMethod(request.method, request.methodOverride, request.methodParam)) {
        case "POST":
          break;
        case "HEAD":
          return headReply();
        case "OPTIONS":
          return optionsReply();
        default:
          throw new SessionAuthError("ERR_NO_CONTROLLER");
      }
      const body = await request.body();
      return await this.#actions[match.action]({ request, body, format: match.format });
    } catch (error) {
      // A body that could not be read is the client's; anything else is a fault, never silent.
      if (!isSessionAuthError(error)) this.#emit({ type: "internal.error", err: error }, request.requestId);
      return errorReply(error);
    }
  }

  /** One of the user resource's account calls, through Services' pipeline: format, body (POST and PUT), arguments, session and CSRF, then the call. */
  async #accountCall(request: EndpointRequest, accounts: UserResource, route: UserRoute): Promise<WireResponse> {
    try {
      let body: RequestBody = { parsed: [] };
      if (accounts.readsBody(route)) {
        body = await request.body();
        // A form's bracketed names nest as PHP's parse_str() nests them (`pass[pass1]`, `account[name]`).
        if (
          "raw" in body &&
          this.#options.parsers.has("application/x-www-form-urlencoded") &&
          requestMime(request.contentType).toLowerCase() === "application/x-www-form-urlencoded"
        ) {
          body = { parsed: parsePhpInput(body.raw.toString("utf8")) };
        }
      }
      return await this.#call({ request, body, format: route.format }, { csrf: true, args: (parsed) => accounts.arguments(route, parsed) }, (args, context) =>
        accounts.run(route, args, request, context),
      );
    } catch (error) {
      if (!isSessionAuthError(error)) this.#emit({ type: "internal.error", err: error }, request.requestId);
      return errorReply(error);
    }
  }

  /** The calls by action, looked up in an object of the class's own making. */
  readonly #actions: Readonly<Record<Action, (call: ServicesCall) => Promise<WireResponse>>> = {
    login: (call) => this.login(call),
    logout: (call) => this.logout(call),
    userToken: (call) => this.userToken(call),
    connect: (call) => this.connect(call),
  };

  /** `POST user/login` (`_user_resource_login`, or `_user_resource_login_1_1`). */
  login(call: ServicesCall): Promise<WireResponse> {
    const { request } = call;
    // API 1.1 renamed the arguments, and each version reads only its own names.
    const [nameKey, passKey] =
      this.#version(request, this.#options.loginApiVersion) === "1.1" ? (["name", "pass"] as const) : (["username", "password"] as const);
    // The same schemas describe the body in openApiDocument(); a value failing them is a wrong credential.
    const schemas = this.#loginArgs;
    const args = (body: unknown) => {
      const name = readLoginArgument(body, schemas[nameKey], nameKey);
      if (name === undefined) throw new SessionAuthError("ERR_MISSING_ARGUMENT", nameKey);
      const password = readLoginArgument(body, schemas[passKey], passKey);
      if (password === undefined) throw new SessionAuthError("ERR_MISSING_ARGUMENT", passKey);
      return { name, password };
    };
    return this.#call(call, { csrf: true, args, sameSite: true }, async ({ name, password }, context) => {
      if (context.state.kind === "live") throw new SessionAuthError("ERR_ALREADY_LOGGED_IN", context.state.user.name);
      const login = await this.#auth.login({
        name,
        password,
        ip: request.ip,
        userAgent: request.userAgent,
        now: context.now,
        requestId: request.requestId,
        cookieHeader: request.cookieHeader,
        cookie: context.cookie.attributes,
        store: this.#sessions.loginContext(request, context),
      });
      const { result, setCookie } = this.#opened(login.sessid, login.user, context);
      // Device cookie first: a client reading only the last Set-Cookie (Java's getHeaderField) still gets its session.
      const device = login.setCookie;
      return jsonReply(result, cookieHeader([...device, ...setCookie]));
    });
  }

  /** `POST system/connect` (`_system_resource_connect`). */
  connect(call: ServicesCall): Promise<WireResponse> {
    const { request } = call;
    return this.#call(call, { csrf: true }, async (_args, { state, cookie, now }) => {
      if (state.kind === "live") {
        const user = connectUserObject(state.user, state.session, this.#options.isAdmin(state.user), request.secure);
        return jsonReply({ sessid: state.sessid, session_name: cookie.name, user });
      }
      // Drupal's session_id(): the stale cookie's value (deleted in this reply), else a random id never stored.
      const sessid = state.kind === "stale" ? state.sessid : createSessionId();
      return jsonReply({ sessid, session_name: cookie.name, user: anonymousUserObject(request.ip, now) });
    });
  }

  /** `POST user/logout` (`_user_resource_logout`: `[true]`; API 1.1: the anonymous user). */
  logout(call: ServicesCall): Promise<WireResponse> {
    const { request } = call;
    const v11 = this.#version(request, this.#options.logoutApiVersion) === "1.1";
    // The token picks the caller's session among several its cookies name, as the CSRF check reads it.
    const token = (body: unknown) => csrfTokenOf({ csrfHeader: request.csrfHeader, queryToken: request.queryToken, contentType: request.contentType, body });
    return this.#call(call, { csrf: true, args: token }, async (supplied, context) => {
      const { result, setCookie, error } = await this.end(request, context, supplied);
      if (!result) throw new SessionAuthError("ERR_NOT_LOGGED_IN");
      const headers: Record<string, string | readonly string[]> = { ...cookieHeader(setCookie) };
      // Clears every cookie of the origin in a browser, a Drupal site's beside this one too: opt-in.
      if (this.#options.clearSiteData) headers["Clear-Site-Data"] = '"cookies"';
      // Ended here and the cookie deleted, but not yet for the other instances: never a plain [true].
      if (error !== undefined) return errorReply(error, headers);
      return jsonReply(v11 ? logoutUserObject(request.ip) : [true], headers);
    });
  }

  /** `POST user/token` (`_user_resource_get_token`): the token as JSON, never CSRF-checked. */
  userToken(call: ServicesCall): Promise<WireResponse> {
    return this.#call(call, { csrf: false }, async (_args, { state }) => jsonReply({ token: this.#sessions.tokenFor(state) }));
  }

  /** `services/session/token`: the bare token, any method, never checked; an anonymous caller gets a random one, as in Drupal. */
  async sessionToken(request: SessionRequest): Promise<WireResponse> {
    try {
      const { state, setCookie } = await this.#sessions.context(request);
      return { status: 200, headers: textHeaders(setCookie.length === 0 ? {} : { "Set-Cookie": setCookie }), body: this.#sessions.tokenFor(state) };
    } catch (error) {
      return errorReply(error);
    }
  }

  /**
   * Opens a session for a user the app authenticated itself (SSO, sign-up), as a login does after
   * the password check: a new id (a live one is ended), login recorded, cookie set.
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  async start(
    request: Pick<ServicesRequest, "host" | "secure" | "cookieHeader" | "ip" | "userAgent" | "requestId">,
    user: UserRecord,
  ): Promise<SessionChange<LoginReply>> {
    if (!user.active) throw new SessionAuthError("ERR_ACCOUNT_BLOCKED", user.name);
    const context = await this.#sessions.context(request);
    if (context.state.kind === "live") await this.#sessions.end(context.state, request.ip, request.requestId);
    const store = this.#sessions.loginContext(request, context);
    const opened = await this.#auth.open(user, { ip: request.ip, userAgent: request.userAgent, now: context.now, requestId: request.requestId, store });
    return this.#opened(opened.sessid, opened.user, context);
  }

  /**
   * Ends the request's live session, if any, and resolves whether it had one; among several
   * sessions the cookies name, the CSRF `token` picks the caller's own. `error` is set when a
   * shared store refused the logout (docs/security.md#limits-and-what-a-client-sees-at-each).
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the store cannot even be read.
   */
  async end(
    request: Pick<ServicesRequest, "host" | "secure" | "cookieHeader" | "ip" | "requestId">,
    known?: SessionContext,
    token?: string,
  ): Promise<SessionChange<boolean>> {
    const context = known ?? (await this.#sessions.context(request));
    let live = context.state.kind === "live" ? context.state : undefined;
    if (live === undefined && token !== undefined && context.state.kind === "none" && context.sent > 1)
      live = await this.#sessions.liveForToken(request, context.cookie, token, context.now);
    if (live === undefined) return { result: false, setCookie: context.setCookie };
    const recorded = await this.#sessions.end(live, request.ip, request.requestId);
    const setCookie = deletionHeaders(context.cookie, context.sent, request.cookieHeader);
    return recorded ? { result: true, setCookie } : { result: true, setCookie, error: new SessionAuthError("ERR_STORE_UNAVAILABLE") };
  }

  /** The reply and cookies of a session just opened: the new cookie, and over a cookie the request carried, the deletions of its other places (see {@link settingOver}). */
  #opened(sessid: string, user: UserRecord, context: SessionContext): SessionChange<LoginReply> {
    const { cookie, now } = context;
    const result: LoginReply = {
      sessid,
      session_name: cookie.name,
      token: this.#sessions.token(sessid),
      user: loginUserObject(user, now, this.#options.isAdmin(user)),
    };
    return { result, setCookie: openedSessionCookies(sessid, context) };
  }

  /** The API version a request's version header names, if it names one the calls know; else the endpoint's. */
  #version(request: ServicesRequest, configured: "1.0" | "1.1"): "1.0" | "1.1" {
    const asked = request.versionHeader?.trim();
    return asked === "1.0" || asked === "1.1" ? asked : configured;
  }

  /** Services' pipeline for an action (format, body, arguments, origin, session and CSRF, callback), with the request's cookies. */
  async #call<A>(
    call: ServicesCall,
    step: { csrf: boolean; args?: (body: unknown) => A; sameSite?: boolean },
    callback: (args: A, context: SessionContext) => Promise<WireResponse>,
  ): Promise<WireResponse> {
    const { request } = call;
    // Without a suffix the format follows Accept, so every reply says it varies by it.
    const vary: Record<string, string> = call.format === undefined ? { Vary: "Accept" } : {};
    let setCookie: readonly string[] = [];
    this.#options.checkAddress(request.ip, request.requestId);
    try {
      negotiateFormat(call.format, request.accept);
      let body: unknown;
      if ("parsed" in call.body) body = call.body.parsed;
      else {
        const parsed = parseRequestBody(call.body.raw, request.contentType, this.#options.parsers);
        // Only multipart is parsed later, by a stream: JSON and forms cost no await.
        body = parsed instanceof Promise ? await parsed : parsed;
      }
      const args = step.args?.(body) as A;
      // Before the session is read: a refused cross-site login reads and changes nothing.
      if (step.sameSite === true) this.#options.checkLoginOrigin(request);
      const context = await this.#sessions.context(request);
      setCookie = context.setCookie;
      if (step.csrf)
        this.#sessions.checkCsrf(
          context.state,
          request.method,
          () => csrfTokenOf({ csrfHeader: request.csrfHeader, queryToken: request.queryToken, contentType: request.contentType, body }),
          () => request.ip,
          request.requestId,
        );
      const reply = await callback(args, context);
      return { ...reply, headers: withCallHeaders(reply.headers, vary, setCookie) };
    } catch (error) {
      if (!isSessionAuthError(error)) this.#emit({ type: "internal.error", err: error }, request.requestId);
      return errorReply(error, { ...vary, ...cookieHeader(setCookie) });
    }
  }
}

/** A call's headers, `Vary`, then its own cookies or the request's; copied by name, as a rest pattern is slow in V8. */
function withCallHeaders(
  own: Readonly<Record<string, string | readonly string[]>>,
  vary: Readonly<Record<string, string>>,
  setCookie: readonly string[],
): Record<string, string | readonly string[]> {
  const headers: Record<string, string | readonly string[]> = {};
  for (const name in own) if (name !== "Set-Cookie") headers[name] = own[name]!;
  if (vary.Vary !== undefined) headers.Vary = vary.Vary;
  const cookies = own["Set-Cookie"] ?? (setCookie.length === 0 ? undefined : setCookie);
  if (cookies !== undefined) headers["Set-Cookie"] = cookies;
  return headers;
}

function cookieHeader(setCookie: readonly string[]): Record<string, readonly string[]> {
  return setCookie.length === 0 ? {} : { "Set-Cookie": setCookie };
}

/** A session cookie, for those who describe it (`sessionCookieFor`). */
export type { CookiePlacement };
