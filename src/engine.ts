import { z } from "zod";
import { ServicesEndpoint, type EndpointDeps, type LoginReply, type ServicesRequest } from "./endpoint/endpoint.js";
import { notFoundReply, type NotFoundRequest } from "./endpoint/not-found.js";
import { isSessionAuthError } from "./errors.js";
import { crossSiteCookieProblem, FILE_PAGES } from "./cors/cross-site-cookie.js";
import { eventEmitter, type Emit } from "./events.js";
import { normalizeOrigin } from "./origins/origin.js";
import { Authenticator } from "./login/authenticator.js";
import type { SessionAuthOptions } from "./options/options.js";
import { resolveOptions, type ResolvedOptions } from "./options/schema.js";
import { guardSettings, optionalSessionSchema, requireSessionSchema, type GuardSettings, type RequireSessionOptions } from "./sessions/options.js";
import { sessionGuard, type GuardOutcome, type GuardRequest } from "./sessions/route-guard.js";
import { Sessions, type ImmediateReads } from "./sessions/sessions.js";
import { memoryCounterStore } from "./stores/memory-counter-store.js";
import { answersInProcess, immediateRead } from "./stores/process-local.js";
import { withTimeout } from "./stores/with-timeout.js";
import type { StoredSession, UserRecord } from "./types.js";
import { parseOptions } from "./validate.js";
import { foreignErrorReply } from "./wire/foreign-error.js";
import { errorReply, type WireResponse } from "./wire/reply.js";

/**
 * Options of {@link SessionAuthRouter.notFound}.
 *
 * @example
 * ```ts
 * app.use("/services/json", sessionAuth.notFound({ resources: ["players", "events"] }));
 * ```
 */
export interface NotFoundOptions {
  /**
   * The app's own resources under the endpoint (`players`, `events`): a miss below one of
   * them is `Could not find the controller.`, as below `user` and `system`.
   * @default `[]`: any other first segment is `Could not find resource <name>.`
   */
  resources?: readonly string[];
}

const notFoundSchema = z.strictObject({ resources: z.array(z.string().min(1)).readonly().optional() });

/** A guard and the settings it was made with. */
export interface Guard {
  readonly settings: GuardSettings;
  /**
   * Decides one request: at once when the stores answer at once and nothing needs writing
   * (see `Sessions.context`), else through a promise. It may throw, or reject, only with
   * an error that is not the package's (a bug, not a refusal).
   */
  check(request: GuardRequest): GuardOutcome | Promise<GuardOutcome>;
}

/** Everything a framework binding needs, built once over one set of options. */
export interface Engine {
  readonly options: ResolvedOptions;
  /** The one owner of the session lifecycle. */
  readonly sessions: Sessions;
  /** The Services calls and the programmatic start and end of a session. */
  readonly endpoint: ServicesEndpoint;
  /** A guard for an app's own routes: required, or optional (never refuses for lack of a session). */
  guard(options: RequireSessionOptions, optional: boolean): Guard;
  /** The answer to a path no route answered: Services' own below the endpoint (`mounted`), Drupal's page-not-found elsewhere. */
  notFound(options: NotFoundOptions): (request: NotFoundRequest) => WireResponse;
  /**
   * The reply to an error thrown anywhere in front of the app's routes: the package's own by
   * the status table, a framework's or body parser's as the wire format has it, and anything
   * else a body-less 500 with an `internal.error` event. Never a stack trace.
   */
  replyToError(error: unknown, requestId?: string): WireResponse;
}

/**
 * The composition root: validates the options once (a `TypeError` naming each bad one), puts
 * every store behind the timeout once, and makes one session owner, one authenticator (one
 * throttle, one hashing queue) and one endpoint, each given only its own settings and the
 * event function, shared by every piece a binding hands out. Supplies the memory counter
 * store when none is given.
 * @throws TypeError naming every invalid option.
 */
export function createEngine(input: SessionAuthOptions, factory: string): Engine {
  const options = resolveOptions(input, { counterStore: () => memoryCounterStore() }, factory);
  const emit = eventEmitter(options.onEvent);
  const timeoutMs = options.storeTimeout * 1000;
  const users = withTimeout(options.userStore, "userStore", timeoutMs, emit);
  const counters = withTimeout(options.counterStore, "counterStore", timeoutMs, emit);
  const local = options.sessionStore.processLocal !== undefined;
  const sessions = new Sessions(
    options.sessions,
    {
      sessions: withTimeout(options.sessionStore, "sessionStore", timeoutMs, emit),
      users,
      local,
      immediate: immediateReads(options.sessionStore, options.userStore),
    },
    emit,
  );
  const authenticator = new Authenticator(options.login, sessions, { users, counters }, emit);
  const { blockedAccountResponse, maxPasswordBytes, maxNameLength, deviceCookies } = options.login;
  const endpointDeps: EndpointDeps = {
    ...options.endpoint,
    ...options.origins,
    blockedAccountResponse,
    maxPasswordBytes,
    maxNameLength,
    deviceCookies,
    baseUrl: options.cookie.baseUrl,
    sameSite: options.cookie.sameSite,
    cookieSecure: options.cookie.cookieSecure,
  };
  const endpoint = new ServicesEndpoint(endpointDeps, sessions, authenticator, emit);
  warnCrossSiteCookies(options, emit);

  // The memory user store replaces a record rather than change it: the user routes see can be copied once per record.
  const keepsRecords = answersInProcess(options.userStore);
  return {
    options,
    sessions,
    endpoint,
    guard(guardOptions, optional) {
      const parsed = parseOptions(optional ? optionalSessionSchema : requireSessionSchema, guardOptions, optional ? "optionalSession" : "requireSession");
      const settings = guardSettings(parsed);
      return { settings, check: sessionGuard(sessions, { ...settings, optional, keepsRecords }) };
    },
    notFound(notFoundOptions) {
      const resources = new Set(parseOptions(notFoundSchema, notFoundOptions, "notFound").resources);
      return (request) => notFoundReply(request, resources);
    },
    replyToError(error, requestId) {
      const reply = isSessionAuthError(error) ? errorReply(error) : foreignErrorReply(error);
      if (reply !== undefined) return reply;
      emit({ type: "internal.error", err: error }, requestId);
      return errorReply(error);
    },
  };
}

/**
 * The reads of a protected request without a promise, when both stores are this package's
 * memory stores themselves: they answer from this process's memory, with nothing to wait for.
 */
function immediateReads(sessionStore: object, userStore: object): ImmediateReads | undefined {
  const session = immediateRead(sessionStore, "get");
  const user = immediateRead(userStore, "findById");
  return session === undefined || user === undefined ? undefined : { session, user };
}

/**
 * Says once, at start-up, which app origins' sessions a browser would drop: those of other
 * sites than `baseUrl`'s while the cookie is not `SameSite=None` and `Secure`. Without
 * `baseUrl` the site is only known per request (each login then says it), except for the
 * `file:` pages `admitCrossSiteWithoutOrigin` admits, which are another site to every site.
 */
function warnCrossSiteCookies(options: ResolvedOptions, emit: Emit): void {
  const base = options.cookie.baseUrl === undefined ? undefined : new URL(options.cookie.baseUrl);
  const site = base === undefined ? undefined : normalizeOrigin(`${base.protocol}//${base.host}`);
  const origins = [...(site === undefined ? [] : options.origins.trustedOrigins), ...(options.origins.admitCrossSiteWithoutOrigin ? [FILE_PAGES] : [])];
  const problems = origins.flatMap((origin) => {
    const message = crossSiteCookieProblem(origin, site ?? "the API's own origin", options.cookie);
    return message === undefined ? [] : [{ origin, message }];
  });
  if (problems.length === 0) return;
  emit({ type: "config.cross-site-cookie", origins: problems.map((problem) => problem.origin), message: problems.map((problem) => problem.message).join(" ") });
}

/** The programmatic session calls every binding hands out, over its own request and reply types. */
export interface SessionControls<Req, Res> {
  startSession(req: Req, res: Res, user: UserRecord): Promise<LoginReply>;
  endSession(req: Req, res: Res): Promise<boolean>;
  listSessions(uid: string): Promise<StoredSession[]>;
  endUserSessions(uid: string): Promise<number>;
}

/**
 * `startSession`, `endSession`, `listSessions` and `endUserSessions` for one binding: `describe`
 * turns its request into the engine's, and `apply` puts the cookies (and, for a new session,
 * `Cache-Control: no-store`) on its reply. An `endSession` that a shared store could not record
 * throws after the cookie is deleted, for the app's error handling.
 */
export function sessionControls<Req, Res>(
  engine: Engine,
  describe: (req: Req) => ServicesRequest,
  apply: (res: Res, setCookie: readonly string[], noStore: boolean) => void,
): SessionControls<Req, Res> {
  return {
    async startSession(req, res, user) {
      const { result, setCookie } = await engine.endpoint.start(describe(req), user);
      apply(res, setCookie, true);
      return result;
    },
    async endSession(req, res) {
      const { result, setCookie, error } = await engine.endpoint.end(describe(req));
      apply(res, setCookie, false);
      if (error !== undefined) throw error;
      return result;
    },
    listSessions: (uid) => engine.sessions.list(uid),
    endUserSessions: (uid) => engine.sessions.endAll(uid),
  };
}
