import { Router, type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { corsCovers, corsDecision } from "../cors/cors.js";
import { createEngine, sessionControls, type NotFoundOptions } from "../engine.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import { matchAction } from "../endpoint/routing.js";
import { isSessionAuthError } from "../errors.js";
import type { RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import { parseOptions } from "../validate.js";
import type { GuardOutcome } from "../sessions/route-guard.js";
import type { StoredSession, UserRecord } from "../types.js";
import { errorReply } from "../wire/reply.js";
import { errorHandlerSchema, logLikeExpress, type ErrorHandlerOptions } from "./error-log.js";
import { queryPathRewriter } from "./query-path.js";
import { corsRequest, endpointRequest, guardRequest, notFoundRequest, requestId, servicesRequest, sessionRequest } from "./request.js";
import { addHeaders, appendCookies, send } from "./respond.js";
import { setAuth } from "./auth-slot.js";

/**
 * The Express router {@link createSessionAuthRouter} returns: mounted with `app.use()`, it
 * serves every call a Drupal 7 Services client makes; its methods hand out the guards and
 * handlers for the app's own routes, all over the same engine (one set of options, one
 * session owner, one login throttle and hashing queue).
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthRouter({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * app.use(sessionAuth);
 * app.get("/services/json/players", sessionAuth.requireSession(), (req, res) => res.json(players));
 * app.use("/services/json", sessionAuth.notFound({ resources: ["players"] }));
 * app.use(sessionAuth.notFound());
 * app.use(sessionAuth.errorHandler());
 * ```
 */
export interface SessionAuthRouter extends Router {
  /** Where the endpoint is served, with a leading slash: `"/services/json"` unless the `endpoint` option says otherwise. */
  readonly endpointPath: string;
  /**
   * A route's guard: a live session, its `X-CSRF-Token` on unsafe methods (or `services_token`
   * in the query or a form body the app parsed), and one of `roles`; else a 401, 401
   * `CSRF validation failed` or 403 in the wire format, and a 503 when a store fails (never a
   * silent anonymous request). Sets `req.auth`. A protected GET costs one session read and
   * one user read. With `onDenied: "next"`, a denial goes to the app's error handlers as a
   * `SessionAuthError` with its `status`, for the app to answer (a redirect, problem+json).
   * A request from an origin of `trustedOrigins` gets the CORS headers on whatever reply it
   * gets, a denial included (see the `cors` option).
   * @throws TypeError at start-up for an invalid option.
   */
  requireSession(options?: RequireSessionOptions): RequestHandler;
  /**
   * Sets `req.auth` when the request has a live session, and never refuses it for lack of one:
   * for pages that serve everyone and show more to the signed-in. On an unsafe method a session
   * counts only with its CSRF token. A failing store still answers 503 (or goes to the app's
   * error handlers with `onDenied: "next"`).
   * @throws TypeError at start-up for an invalid option.
   */
  optionalSession(options?: Pick<RequireSessionOptions, "onDenied">): RequestHandler;
  /**
   * `services/session/token` as a handler of its own (any method), for an app that serves it
   * at another path too; the router already answers it at `/services/session/token`.
   */
  tokenHandler(): RequestHandler;
  /**
   * The last handler for paths no route answered, in the wire format: mounted at the endpoint
   * path, Services' `404 Not found : Could not find resource <name>.` (or `… the controller.`
   * below `user`, `system` and `resources`); mounted at the site root, Drupal's `404 Not Found`.
   * Empty body, never Express's HTML page.
   * @throws TypeError at start-up for an invalid option.
   */
  notFound(options?: NotFoundOptions): RequestHandler;
  /**
   * The last error handler on the app: errors in the wire format (an undecodable path a
   * body-less 400, a body parser's errors as the endpoint's own, another middleware's 4xx
   * kept, a guard's denial passed on with `onDenied: "next"` as the guard would answer it),
   * anything else a body-less 500 with an `internal.error` event, and logged (see
   * {@link ErrorHandlerOptions.log}). Never a stack trace to the client.
   * @throws TypeError at start-up for an invalid option.
   */
  errorHandler(options?: ErrorHandlerOptions): ErrorRequestHandler;
  /**
   * Opens a session for a user the app authenticated itself (single sign-on, a sign-up) and
   * sets its cookie on `res`: a new id whatever the request carried (a live session it carried
   * ends), the login time recorded, `Cache-Control: no-store`. Resolves what `user/login`
   * answers, for the app to send. `user` must be an active account the user store finds by uid.
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  startSession(req: Request, res: Response, user: UserRecord): Promise<LoginReply>;
  /**
   * Ends the request's session, if it has a live one, as a logout does (failing closed), and
   * deletes its cookie on `res`. Resolves whether there was one.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the store cannot be read, or when a
   *   store shared with other instances refused to record the end (the cookie is deleted and
   *   this process refuses the session, but the others may not yet: pass it to `next`).
   */
  endSession(req: Request, res: Response): Promise<boolean>;
  /** A user's live sessions, oldest first (created, last seen, address, user agent; the handle is a hash, safe to show). */
  listSessions(uid: string): Promise<StoredSession[]>;
  /** Ends every session of a user ("log out everywhere"); resolves how many ended. */
  endUserSessions(uid: string): Promise<number>;
}

/**
 * Drupal 7 Services' session authentication for an Express app, as one router to mount at the
 * app's root: `user/login`, `system/connect`, `user/logout`, `user/token` and the endpoint root
 * under the endpoint path (`services/json` by default), `services/session/token`, and the
 * `?q=` spellings of each that jDrupal and DrupalGap use, and CORS for the app origins of
 * `trustedOrigins` (docs/hybrid-apps.md). Mount it before any body parser: it
 * reads bodies as Services does (JSON, form-urlencoded, multipart, none). Every other path
 * falls through to the app's routes.
 *
 * The options are validated once, here: a missing store, a secret under 32 characters, an
 * unknown key… throws a `TypeError` naming each problem. The caller's object is never modified.
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthRouter({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * app.use(sessionAuth);
 * app.get("/services/json/me", sessionAuth.requireSession(), (req, res) => res.json({ name: req.auth!.user.name }));
 * ```
 * @throws TypeError when an option is missing or invalid.
 */
export function createSessionAuthRouter(options: SessionAuthOptions): SessionAuthRouter {
  const engine = createEngine(options, "createSessionAuthRouter");
  const { endpoint } = engine;
  const { endpointPath, queryPaths, bodyLimit } = engine.options.endpoint;
  const corsSettings = engine.options.cors;

  /** The CORS headers of an actual request from an app origin (`Vary: Origin` for any other); `false` when it was a preflight, now answered. */
  function cors(req: Request, res: Response): boolean {
    const decision = corsDecision(corsRequest(req), corsSettings);
    if ("preflight" in decision) {
      send(res, decision.preflight);
      return false;
    }
    addHeaders(res, decision.headers);
    return true;
  }

  // The endpoint, services/session/token and the app's paths of the cors option: a preflight
  // never reaches a route's own handlers (Express routes an OPTIONS to no app.get), so it is
  // answered here, before any of them.
  function corsForPaths(req: Request, res: Response, next: NextFunction) {
    if (!corsCovers(req.path, endpointPath, corsSettings.paths) || cors(req, res)) next();
  }

  function guard(guardOptions: RequireSessionOptions, optional: boolean): RequestHandler {
    const { check, settings } = engine.guard(guardOptions, optional);
    /** Puts what the guard decided on the request and the reply, and goes on (or refuses). */
    function conclude(req: Request, res: Response, next: NextFunction, outcome: GuardOutcome): void {
      try {
        appendCookies(res, outcome.setCookie);
        if (outcome.error !== undefined) {
          const reply = errorReply(outcome.error);
          if (settings.onDenied === "reply") return send(res, reply);
          // For the app's own error handlers: the status the wire format gives it, as Express reads it.
          return next(Object.assign(outcome.error, { status: reply.status }));
        }
        if (outcome.auth !== undefined) setAuth(req, outcome.auth);
      } catch (error) {
        return next(error);
      }
      next();
    }
    // Not an async function: over the memory stores a protected request is decided without a promise.
    return function sessionGuard(req: Request, res: Response, next: NextFunction) {
      let outcome: GuardOutcome | Promise<GuardOutcome>;
      try {
        // Its reply, and its denials too, readable by the app origins wherever the route is.
        if (corsSettings.enabled && !cors(req, res)) return;
        outcome = check(guardRequest(req));
      } catch (error) {
        return next(error);
      }
      if (outcome instanceof Promise) outcome.then((settled) => conclude(req, res, next, settled), next);
      else conclude(req, res, next, outcome);
    };
  }

  /** Answers a request below the endpoint; `below` is its path there when the router's dispatch was skipped (see below). */
  async function answer(req: Request, res: Response, next: NextFunction, below?: string) {
    let reply;
    try {
      reply = await endpoint.handle(endpointRequest(req, bodyLimit, below));
    } catch (error) {
      return next(error);
    }
    if (reply === undefined) next();
    else send(res, reply);
  }

  function servicesEndpoint(req: Request, res: Response, next: NextFunction) {
    return answer(req, res, next);
  }

  async function servicesSessionToken(req: Request, res: Response) {
    send(res, await endpoint.sessionToken(sessionRequest(req)));
  }

  const router = Router();
  const rewriteQueryPath = queryPaths.length > 0 ? queryPathRewriter(queryPaths) : undefined;
  if (corsSettings.enabled) router.use(corsForPaths);
  router.all(TOKEN_PATH, servicesSessionToken);
  router.use(endpointPath, servicesEndpoint);
  // Mounted at the app's root, every request of the app enters the router: one that cannot be
  // any of its paths goes straight on, without the router's dispatch (a protected GET would
  // otherwise pay for three layers it never uses).
  const mayServe = servedPaths(endpointPath, queryPaths, corsSettings.enabled && corsSettings.paths.length > 0);
  // Express 4's and 5's routers are functions that call their own `handle`, which their types leave out.
  const dispatching = router as Router & { handle(req: Request, res: Response, next: NextFunction): void };
  const dispatch = dispatching.handle;
  // A call of one of the endpoint's own actions (user/login…) would only ever reach the
  // endpoint's layer: with no CORS layer in front of it, it goes there at once, without the
  // router's dispatch. Anything else below the endpoint (the app's own resources) is dispatched.
  const actionBelow = corsSettings.enabled ? undefined : endpointAction(endpointPath);
  dispatching.handle = function sessionAuthRouter(this: Router, req: Request, res: Response, next: NextFunction) {
    if (!mayServe(req.url)) return next();
    // The `?q=` spelling becomes the path before the router's first step, as a first middleware
    // of its own would make it, without the dispatch through one more layer on every call.
    rewriteQueryPath?.(req);
    const below = actionBelow?.(req.url);
    if (below !== undefined) answer(req, res, next, below).catch(next);
    else dispatch.call(this, req, res, next);
  };

  const pieces: Omit<SessionAuthRouter, keyof Router> = {
    endpointPath,
    requireSession: (guardOptions = {}) => guard(guardOptions, false),
    optionalSession: (guardOptions = {}) => guard(guardOptions, true),
    tokenHandler: () => servicesSessionToken,
    notFound(notFoundOptions = {}) {
      const reply = engine.notFound(notFoundOptions);
      return function servicesNotFound(req: Request, res: Response) {
        send(res, reply(notFoundRequest(req)));
      };
    },
    errorHandler(handlerOptions = {}) {
      // Without onEvent the internal.error event is itself written to stderr: once is enough.
      const log = parseOptions(errorHandlerSchema, handlerOptions, "errorHandler").log ?? (engine.options.onEvent === undefined ? false : logLikeExpress);
      return function servicesErrorHandler(error: unknown, req: Request, res: Response, _next: NextFunction) {
        const reply = engine.replyToError(error, requestId(req));
        // A 500 is a bug or an outage somewhere in the app: it must reach a log, as Express's own handler would print it.
        if (reply.status >= 500 && !isSessionAuthError(error) && log !== false) {
          try {
            log(error, req);
          } catch {
            // A logger's failure must not take the reply with it.
          }
        }
        // Once the reply has started it cannot become an error reply: end the connection, as Express does, so the client sees it cut short.
        if (res.headersSent) req.socket.destroy();
        else send(res, reply);
      };
    },
    ...sessionControls<Request, Response>(engine, servicesRequest, (res, setCookie, noStore) => {
      appendCookies(res, setCookie);
      if (noStore) res.setHeader("Cache-Control", "no-store");
    }),
  };
  return Object.assign(router, pieces);
}

const TOKEN_PATH = "/services/session/token";

/**
 * The path below the endpoint of a URL (relative to where the router is mounted) that calls
 * one of the endpoint's actions, as `router.use(endpointPath)` would give it to the endpoint:
 * the prefix matched regardless of case, up to a slash. `undefined` for anything else, and
 * for a URL with a percent sign, which the router's own matching decides.
 */
function endpointAction(endpointPath: string): ((url: string) => string | undefined) | undefined {
  if (endpointPath === "/") return undefined;
  const prefix = endpointPath.toLowerCase();
  return (url) => {
    if (url.includes("%")) return undefined;
    const mark = url.indexOf("?");
    const path = mark === -1 ? url : url.slice(0, mark);
    if (path[prefix.length] !== "/" || path.slice(0, prefix.length).toLowerCase() !== prefix) return undefined;
    const below = path.slice(prefix.length);
    return matchAction(below) === undefined ? undefined : below;
  };
}

/**
 * Whether a request URL (relative to where the router is mounted) may be one the router serves:
 * the endpoint path or below it, the token call, a `?q=` path, or anything when CORS covers
 * paths of the app's own. A superset, never a guess: case is ignored as Express's routing
 * ignores it, and a URL with a percent sign always goes through the router.
 */
function servedPaths(endpointPath: string, queryPaths: readonly string[], everything: boolean): (url: string) => boolean {
  const endpoint = endpointPath.toLowerCase();
  const honoured = new Set(queryPaths);
  return (url) => {
    if (everything || url.includes("%")) return true;
    const mark = url.indexOf("?");
    const path = (mark === -1 ? url : url.slice(0, mark)).toLowerCase();
    if (mark !== -1 && honoured.has(url.slice(0, mark))) return true;
    if (path.startsWith(TOKEN_PATH)) return true;
    return path.startsWith(endpoint) && (path.length === endpoint.length || path[endpoint.length] === "/");
  };
}
