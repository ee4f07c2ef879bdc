import { z } from "zod";
import { corsAtPath, withCorsHeaders, type CorsDecision } from "../cors/cors.js";
import { ServicesEndpoint, type LoginReply } from "../endpoint/endpoint.js";
import { notFoundReply } from "../endpoint/not-found.js";
import { isSessionAuthError, type SessionAuthError } from "../errors.js";
import { eventEmitter } from "../events.js";
import { NO_HEADERS, type HeaderRecord } from "../http-input/headers.js";
import type { HttpRequest } from "../http-input/request.js";
import { queryRouter } from "../http-input/target.js";
import { Authenticator } from "../login/authenticator.js";
import { unaddressedReporter } from "../login/client-address.js";
import { openApiFromSettings, type OpenApiRoutes } from "../openapi/openapi.js";
import type { OpenApiObject } from "../openapi/openapi.js";
import type { SessionAuthOptions } from "../options/options.js";
import { resolveOptions, type ResolvedOptions } from "../options/schema.js";
import { warnCrossSiteCookies } from "../origins/cross-site-cookie.js";
import { loginOriginCheck } from "../origins/login-origin.js";
import { guardSettings, optionalSessionSchema, requireSessionSchema, type GuardSettings, type RequireSessionOptions } from "../sessions/options.js";
import { sessionCheck, type CheckRequest } from "../sessions/session-check.js";
import { Sessions } from "../sessions/sessions.js";
import { memoryCounterStore } from "../stores/memory-counter-store.js";
import { answersInProcess } from "../stores/process-local.js";
import { COUNTER_REPAIRS, SESSION_REPAIRS } from "../stores/repairs.js";
import { withTimeout } from "../stores/with-timeout.js";
import { traceLogins } from "../telemetry/hooks.js";
import type { StoredSession, UserRecord } from "../types.js";
import { parseOptions } from "../validate.js";
import { foreignErrorReply } from "../wire/foreign-error.js";
import { errorReply, type WireResponse } from "../wire/reply.js";
import { front, type Front } from "./front.js";
import { guardOver, type Guard } from "./guard.js";
import { accountCalls } from "./accounts.js";
import { RequestView, type ViewSettings } from "./request-view.js";

/**
 * Options of `notFound()`.
 *
 * @example
 * ```ts
 * app.use("/services/json", sessionAuth.notFound({ resources: ["players", "events"] }));
 * ```
 */
export interface NotFoundOptions {
  /**
   * The app's own resources under the endpoint: a miss below one is `Could not find the controller.`, as below `user`.
   * @default `[]`: any other first segment is `Could not find resource <name>.`
   */
  resources?: readonly string[];
}

const notFoundSchema = z.strictObject({ resources: z.array(z.string().min(1)).readonly().optional() });

/** A session opened or ended by the app itself: what to answer, and the headers (cookies) its reply carries. */
export interface SessionChange<T> {
  readonly result: T;
  readonly headers: HeaderRecord;
  /** Set when an ended session could not be recorded everywhere (a shared store refused): the headers still go out. */
  readonly error?: SessionAuthError | undefined;
}

/** What every binding hands out besides its framework's own pieces, over its engine. */
export interface SessionAuthBase {
  /** Where the endpoint is served, with a leading slash: `"/services/json"` unless the `endpoint` option says otherwise. */
  readonly endpointPath: string;
  /** A user's live sessions, oldest first (each handle is a hash, safe to show). */
  listSessions(uid: string): Promise<StoredSession[]>;
  /** Ends every session of a user ("log out everywhere"); resolves how many ended. */
  endUserSessions(uid: string): Promise<number>;
  /** The OpenAPI 3.1 document of the Services calls and the app's guarded `routes`, from these very options. */
  openApi(routes?: OpenApiRoutes): OpenApiObject;
}

/** The {@link SessionAuthBase} of an engine, for a binding to spread into what it hands out. */
export function sessionAuthBase(engine: Engine): SessionAuthBase {
  return {
    endpointPath: engine.endpointPath,
    listSessions: (uid) => engine.listSessions(uid),
    endUserSessions: (uid) => engine.endUserSessions(uid),
    openApi: (routes) => engine.openApi(routes),
  };
}

/** What a binding builds on: one engine per set of options, translated to its framework and back. */
export interface Engine extends Front {
  readonly options: ResolvedOptions;
  /** The endpoint's path, with a leading slash (`/services/json`). */
  readonly endpointPath: string;
  /** Where `?q=` routes a target (see `queryRouter`): the new target, or `undefined` to keep the request's own. */
  route(target: string): string | undefined;
  /** A guard for an app's own routes: required, or optional (never refuses for lack of a session); with its settings. */
  guard(options: RequireSessionOptions | undefined, optional: boolean): { readonly guard: Guard; readonly settings: GuardSettings };
  /** The answer to a request no route answered: Services' own below the endpoint, Drupal's page-not-found elsewhere; CORS's headers where it covers. */
  notFound(options: NotFoundOptions | undefined): (http: HttpRequest) => WireResponse;
  /** The reply to an error before or in the app's routes, in the wire format (a body-less 500 and `internal.error` for the unknown). */
  replyToError(error: unknown, http?: HttpRequest): WireResponse;
  /** `services/session/token`'s answer, wherever the request is (a handler the app mounts elsewhere). */
  token(http: HttpRequest): Promise<WireResponse>;
  /** CORS for a request on a path it covers (with CORS on): a preflight's answer, or the headers for whatever reply it gets; else `undefined`. */
  cors(http: HttpRequest): CorsDecision | undefined;
  /** Opens a session for a user the app authenticated itself: a new id whatever the request carried. */
  startSession(http: HttpRequest, user: UserRecord): Promise<SessionChange<LoginReply>>;
  /** Ends the request's session, if it has a live one, as a logout does. */
  endSession(http: HttpRequest): Promise<SessionChange<boolean>>;
  listSessions(uid: string): Promise<StoredSession[]>;
  endUserSessions(uid: string): Promise<number>;
  /** Raises a configuration event once per process and engine (a binding's word on how it is set up). */
  reportOnce(type: "config.routing", message: string): void;
  /** The OpenAPI document of this set-up, from the options it resolved. */
  openApi(routes?: OpenApiRoutes): OpenApiObject;
}

/**
 * The composition root: validates the options once, puts every store behind the timeout once, and
 * makes the one session owner, authenticator and endpoint every binding piece shares.
 *
 * @param factory - The public factory's name, for its `TypeError`s.
 * @param addressHint - How the binding's users give the client's address, for the `address.unknown` event.
 * @throws TypeError naming every invalid option.
 */
export function createEngine(input: SessionAuthOptions, factory: string, addressHint?: string): Engine {
  const options = resolveOptions(input, { counterStore: () => memoryCounterStore() }, factory);
  const emit = eventEmitter(options.onEvent);
  const timeoutMs = options.storeTimeout * 1000;
  const { telemetry } = options;
  const users = withTimeout(options.userStore, "userStore", timeoutMs, emit, { telemetry });
  const counters = withTimeout(options.counterStore, "counterStore", timeoutMs, emit, { repairs: COUNTER_REPAIRS, telemetry });
  const sessionStore = withTimeout(options.sessionStore, "sessionStore", timeoutMs, emit, { repairs: SESSION_REPAIRS, telemetry });
  const sessions = new Sessions(options.sessions, { sessions: sessionStore, users, local: options.sessionStore.processLocal !== undefined }, emit);
  // The timeout's wrapper carries methods only: what the counter store declares of itself goes beside it.
  const authenticator = new Authenticator(options.login, sessions, { users, counters, countsAccounts: options.counterStore.countsAccounts === true }, emit);
  if (telemetry !== undefined) traceLogins(authenticator, telemetry, sessions, options.sessionStore);
  const accounts = accountCalls(options, { users, counters, sessions, auth: authenticator, timeoutMs }, emit);
  const { blockedAccountResponse, maxPasswordBytes, maxNameLength, deviceCookies } = options.login;
  const endpoint = new ServicesEndpoint(
    {
      ...options.endpoint,
      blockedAccountResponse,
      maxPasswordBytes,
      maxNameLength,
      deviceCookies,
      checkLoginOrigin: loginOriginCheck(options.origins, options.cookie, emit),
      checkAddress: unaddressedReporter(emit, addressHint),
    },
    sessions,
    authenticator,
    emit,
    accounts,
  );
  warnCrossSiteCookies(options.origins, options.cookie, emit);

  const { endpointPath, queryPaths, queryRoutes, bodyLimit } = options.endpoint;
  const route = queryRouter({ queryPaths, endpointPath, queryRoutes });
  const view: ViewSettings = { endpointPath, bodyLimit, route };
  const cors = options.cors;
  // The memory user store replaces a record rather than change it: the user routes see can be copied once per record.
  const keepsRecords = answersInProcess(options.userStore);
  const reported = new Set<string>();

  function corsHeaders(http: HttpRequest, request = new RequestView(http, view)): HeaderRecord {
    const decision = corsAtPath(request.routed.path, endpointPath, cors, () => request);
    return decision === undefined || "preflight" in decision ? NO_HEADERS : decision.headers;
  }

  return {
    ...front(endpoint, cors, view, queryPaths),
    options,
    endpointPath,
    route,
    guard(guardOptions = {}, optional) {
      const parsed = parseOptions(optional ? optionalSessionSchema : requireSessionSchema, guardOptions, optional ? "optionalSession" : "requireSession");
      const settings = guardSettings(parsed);
      const check = sessionCheck(sessions, { ...settings, optional, keepsRecords });
      const traced = telemetry === undefined ? check : (request: CheckRequest) => telemetry.guard(!optional, () => check(request));
      return { settings, guard: guardOver(traced, cors, view) };
    },
    notFound(notFoundOptions = {}) {
      const resources = new Set(parseOptions(notFoundSchema, notFoundOptions, "notFound").resources);
      return (http) => {
        const request = new RequestView(http, view);
        return withCorsHeaders(notFoundReply(request, resources), corsHeaders(http, request));
      };
    },
    replyToError(error, http) {
      const request = http === undefined ? undefined : new RequestView(http, view);
      let reply = isSessionAuthError(error) ? errorReply(error) : foreignErrorReply(error);
      if (reply === undefined) {
        emit({ type: "internal.error", err: error }, request?.requestId);
        reply = errorReply(error);
      }
      return request === undefined ? reply : withCorsHeaders(reply, corsHeaders(request.http, request));
    },
    token: (http) => endpoint.sessionToken(new RequestView(http, view)),
    cors(http) {
      if (!cors.enabled) return undefined;
      const request = new RequestView(http, view);
      return corsAtPath(request.routed.path, endpointPath, cors, () => request);
    },
    async startSession(http, user) {
      const { result, setCookie } = await endpoint.start(new RequestView(http, view), user);
      return { result, headers: { "Set-Cookie": setCookie, "Cache-Control": "no-store" } };
    },
    async endSession(http) {
      const { result, setCookie, error } = await endpoint.end(new RequestView(http, view));
      return { result, headers: setCookie.length === 0 ? NO_HEADERS : { "Set-Cookie": setCookie }, error };
    },
    listSessions: (uid) => sessions.list(uid),
    endUserSessions: (uid) => sessions.endAll(uid),
    reportOnce(type, message) {
      if (reported.has(type)) return;
      reported.add(type);
      emit({ type, message });
    },
    // The account calls this set-up serves (a user store that cannot write serves fewer than asked).
    openApi: (routes) => openApiFromSettings({ ...options, accounts: { calls: accounts?.enabled ?? new Set() } }, routes),
  };
}
