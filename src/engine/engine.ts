import { z } from "zod";
import { corsAtPath, withCorsHeaders, type CorsDecision } from "../cors/cors.js";
import { ServicesEndpoint, type LoginReply } from "../endpoint/endpoint.js";
import { notFoundReply } from "../endpoint/not-found.js";
import { isSessionAuthError, type SessionAuthError } from "../errors.js";
import { eventEmitter, stackOf, writeStderr } from "../events.js";
import { NO_HEADERS, writeHeaders, type HeaderRecord, type HeaderSetter } from "../http-output/headers.js";
import type { HttpRequest } from "../http-input/request.js";
import { queryRouter } from "../http-input/target.js";
import { Authenticator } from "../login/authenticator.js";
import { proxyAddressHint, unaddressedReporter } from "../login/client-address.js";
import type { OpenApiObject, OpenApiRoutes } from "../openapi/openapi.js";
import type { SessionAuthOptions } from "../options/options.js";
import { resolveOptions } from "../options/schema.js";
import { warnCrossSiteCookies } from "../origins/cross-site-cookie.js";
import { loginOriginCheck } from "../origins/login-origin.js";
import { guardSettings, optionalSessionSchema, requireSessionSchema, type OptionalSessionOptions, type RequireSessionOptions } from "../sessions/options.js";
import { sessionCheck, type CheckRequest } from "../sessions/session-check.js";
import { Sessions } from "../sessions/sessions.js";
import { memoryCounterStore } from "../stores/memory-counter-store.js";
import { answersInProcess, readsAtOnce } from "../stores/process-local.js";
import { COUNTER_REPAIRS, SESSION_REPAIRS } from "../stores/repairs.js";
import { withTimeout } from "./store-watchdog.js";
import { traceLogins } from "../telemetry/hooks.js";
import type { StoredSession, UserRecord } from "../types.js";
import { parseOptions } from "../validate.js";
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

/** What every binding hands out besides its framework's own pieces, over its engine. */
export interface SessionAuthBase {
  /** Where the endpoint is served, with a leading slash: `"/services/json"` unless the `endpoint` option says otherwise. */
  readonly endpointPath: string;
  /** A user's live sessions, oldest first (each handle is a hash, safe to show). */
  listSessions(uid: string): Promise<StoredSession[]>;
  /** Ends every session of a user ("log out everywhere"); resolves how many ended. */
  endUserSessions(uid: string): Promise<number>;
  /**
   * The OpenAPI 3.1 document of the Services calls and the app's guarded `routes`, from these very options.
   * Loaded on first use, so an app that never serves it never loads the builder.
   */
  openApi(routes?: OpenApiRoutes): Promise<OpenApiObject>;
}

/** What a binding tells the engine of its framework: its factory's name, its own errors, and how its users fix a set-up. */
export interface BindingProfile {
  /** The public factory's name, for its `TypeError`s. */
  readonly factory: string;
  /** How this framework's users trust a proxy in front (`trust it by hop count: app.set("trust proxy", 1)`), for the messages that name the fix. */
  readonly trustProxyFix: string;
  /** How its users give the client's address, for the `address.unknown` event. @default the proxy and Unix-socket advice, with `trustProxyFix` */
  readonly addressHint?: string;
  /** The framework's own client errors as the wire format's (a `SessionAuthError`, or a reply); `undefined` for any other. */
  readonly foreignError?: (error: unknown) => SessionAuthError | WireResponse | undefined;
}

/** Where a 500's error goes besides the `internal.error` event: a binding's logger, `false` for nowhere, `undefined` for the stack on stderr (with `onEvent`). */
export type ErrorLog = ((error: unknown) => void) | false | undefined;

/** What a binding builds on: one engine per set of options, translated to its framework and back. */
export interface Engine extends Pick<Front, "serve" | "claims"> {
  /** The endpoint's path and the calls on sessions every binding hands out as they are. */
  readonly base: SessionAuthBase;
  /** Where `?q=` routes a target (see `queryRouter`): the new target, or `undefined` to keep the request's own. */
  route(target: string): string | undefined;
  /** A guard that needs a live session (its CSRF token on unsafe methods, one of `roles`), `onDenied` applied. */
  requireSession(options: RequireSessionOptions | undefined): Guard;
  /** A guard that attaches a live session when one comes, and never refuses for lack of one. */
  optionalSession(options: OptionalSessionOptions | undefined): Guard;
  /** The answer to a request no route answered: Services' own below the endpoint, Drupal's page-not-found elsewhere; CORS's headers where it covers. */
  notFound(options: NotFoundOptions | undefined): (http: HttpRequest) => WireResponse;
  /** The reply to an error before or in the app's routes, in the wire format; an unexpected one is a body-less 500, reported once (event, then `log`). */
  fail(error: unknown, http?: HttpRequest, log?: ErrorLog): WireResponse;
  /** CORS for a request on a path it covers: a preflight's answer, or the headers for whatever reply it gets; `undefined` (the member) with CORS off. */
  readonly cors: ((http: HttpRequest) => CorsDecision | undefined) | undefined;
  /** Opens a session for a user the app authenticated itself (a new id whatever the request carried), its headers written to `headers`. */
  startSession(http: HttpRequest, user: UserRecord, headers: HeaderSetter): Promise<LoginReply>;
  /**
   * Ends the request's session, if it has a live one, as a logout does, the cookie deletions written to `headers`.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the end could not be recorded everywhere (the headers are written first).
   */
  endSession(http: HttpRequest, headers: HeaderSetter): Promise<boolean>;
  /** Says once (`config.routing`) that a Services call reached the app's not-found handler, with `fix`; only when `?q=` routed it, with `queried`. */
  unserved(target: string, fix: string, queried?: boolean): void;
}

/**
 * The composition root: validates the options once, puts every store behind the timeout once, and
 * makes the one session owner, authenticator and endpoint every binding piece shares.
 *
 * @param binding - What the binding says of its framework (its factory, errors, and fixes).
 * @throws TypeError naming every invalid option.
 */
export function createEngine(input: SessionAuthOptions, binding: BindingProfile): Engine {
  const { factory, trustProxyFix, addressHint, foreignError } = binding;
  const options = resolveOptions(input, { counterStore: () => memoryCounterStore() }, factory);
  const emit = eventEmitter(options.onEvent);
  const timeoutMs = options.storeTimeout * 1000;
  const { telemetry } = options;
  const users = withTimeout(options.userStore, "userStore", timeoutMs, emit, { telemetry });
  const counters = withTimeout(options.counterStore, "counterStore", timeoutMs, emit, { repairs: COUNTER_REPAIRS, telemetry });
  const sessionStore = withTimeout(options.sessionStore, "sessionStore", timeoutMs, emit, { repairs: SESSION_REPAIRS, telemetry });
  // The memory stores' reads need no promise; with telemetry every store call is measured, so each is made.
  const atOnce = telemetry === undefined ? { session: readsAtOnce(options.sessionStore).session, user: readsAtOnce(options.userStore).user } : undefined;
  const local = options.sessionStore.processLocal !== undefined;
  const sessions = new Sessions(options.sessions, { sessions: sessionStore, users, local, atOnce }, emit);
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
      checkLoginOrigin: loginOriginCheck(options.origins, options.cookie, emit, trustProxyFix),
      checkAddress: unaddressedReporter(emit, addressHint ?? proxyAddressHint(trustProxyFix)),
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
  let reported = false;

  function corsHeaders(http: HttpRequest, request = new RequestView(http, view)): HeaderRecord {
    const decision = corsAtPath(request.routed.path, endpointPath, cors, () => request);
    return decision === undefined || "preflight" in decision ? NO_HEADERS : decision.headers;
  }

  function guard(optional: boolean, guardOptions: RequireSessionOptions = {}): Guard {
    const schema = optional ? optionalSessionSchema : requireSessionSchema;
    const settings = guardSettings(parseOptions(schema, guardOptions, optional ? "optionalSession" : "requireSession"));
    const check = sessionCheck(sessions, { ...settings, optional, keepsRecords });
    // An app's telemetry may answer with any thenable: made a promise of ours, so the guard tells it from a decision.
    const traced = telemetry === undefined ? check : (request: CheckRequest) => Promise.resolve(telemetry.guard(!optional, async () => check(request)));
    return guardOver(traced, settings.onDenied, cors, view);
  }

  // The stack of a 500's error on stderr, as Express's own handler prints it; without onEvent, the event already went there.
  const defaultLog = options.onEvent === undefined ? undefined : (error: unknown) => writeStderr(stackOf(error));

  const { serve, claims, names } = front(endpoint, cors, view, queryPaths);
  return {
    serve,
    claims,
    base: {
      endpointPath,
      listSessions: (uid) => sessions.list(uid),
      endUserSessions: (uid) => sessions.endAll(uid),
      // The account calls this set-up serves (a user store that cannot write serves fewer than asked).
      async openApi(routes) {
        const { openApiFromSettings } = await import("../openapi/openapi.js");
        return openApiFromSettings({ ...options, accounts: { calls: accounts?.enabled ?? new Set() } }, routes);
      },
    },
    route,
    requireSession: (guardOptions) => guard(false, guardOptions),
    optionalSession: (guardOptions) => guard(true, guardOptions),
    notFound(notFoundOptions = {}) {
      const resources = new Set(parseOptions(notFoundSchema, notFoundOptions, "notFound").resources);
      return (http) => {
        const request = new RequestView(http, view);
        return withCorsHeaders(notFoundReply(request, resources), corsHeaders(http, request));
      };
    },
    fail(error, http, log) {
      const request = http === undefined ? undefined : new RequestView(http, view);
      const mapped = isSessionAuthError(error) ? error : foreignError?.(error);
      let reply = mapped === undefined ? undefined : isSessionAuthError(mapped) ? errorReply(mapped) : mapped;
      if (reply === undefined) {
        emit({ type: "internal.error", err: error }, request?.requestId);
        reply = errorReply(error);
        const write = log === undefined ? defaultLog : log || undefined;
        try {
          write?.(error);
        } catch {
          // A logger's failure must not take the reply with it.
        }
      }
      return request === undefined ? reply : withCorsHeaders(reply, corsHeaders(request.http, request));
    },
    cors: cors.enabled
      ? (http) => {
          const request = new RequestView(http, view);
          return corsAtPath(request.routed.path, endpointPath, cors, () => request);
        }
      : undefined,
    async startSession(http, user, headers) {
      const { result, setCookie } = await endpoint.start(new RequestView(http, view), user);
      writeHeaders({ "Set-Cookie": setCookie, "Cache-Control": "no-store" }, headers);
      return result;
    },
    async endSession(http, headers) {
      const { result, setCookie, error } = await endpoint.end(new RequestView(http, view));
      if (setCookie.length > 0) writeHeaders({ "Set-Cookie": setCookie }, headers);
      if (error !== undefined) throw error;
      return result;
    },
    unserved(target, fix, queried = false) {
      if (reported || (queried && route(target) === undefined) || !names(target)) return;
      reported = true;
      emit({ type: "config.routing", message: fix });
    },
  };
}
