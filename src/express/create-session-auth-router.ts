import type { ServerResponse } from "node:http";
import { createEngine, type NotFoundOptions } from "../engine/engine.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import { isSessionAuthError } from "../errors.js";
import type { OpenApiObject, OpenApiRoutes } from "../openapi/openapi.js";
import type { RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import type { StoredSession, UserRecord } from "../types.js";
import { parseOptions } from "../validate.js";
import { errorHandlerSchema, logLikeExpress, type ErrorHandlerOptions } from "./error-log.js";
import { ExpressHttpRequest, type ExpressRequest } from "./request.js";
import { addHeaders, send } from "./respond.js";

/** Express's `next`, as the router calls it. */
export type ExpressNext = (error?: unknown) => void;
/** A middleware, in the shape Express calls it (typed without Express's own types, which no app needs to install). */
export type ExpressHandler = (req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;
/** An error-handling middleware, in the shape Express calls it. */
export type ExpressErrorHandler = (error: unknown, req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;

/**
 * What {@link createSessionAuthRouter} returns: a middleware to mount once at the app's root
 * (`app.use(sessionAuth)`), which serves every call a Drupal 7 Services client makes, and the
 * guards and handlers for the app's own routes, all over one engine (one set of options, one
 * session owner, one login throttle and hashing queue).
 */
export interface SessionAuthRouter extends ExpressHandler {
  /** Where the endpoint is served, with a leading slash: `"/services/json"` unless the `endpoint` option says otherwise. */
  readonly endpointPath: string;
  /**
   * A route's guard: a live session, its `X-CSRF-Token` on unsafe methods (or `services_token`
   * in the query or a form body the app parsed), and one of `roles`; else a 401, 401 `CSRF
   * validation failed` or 403 in the wire format, and a 503 when a store fails (never a silent
   * anonymous request). Sets `req.auth`. With `onDenied: "next"`, a denial goes to the app's
   * error handlers as a `SessionAuthError` (its `status` the wire format's). A request from an
   * origin of `trustedOrigins` gets the CORS headers on whatever reply it gets.
   * @throws TypeError at start-up for an invalid option.
   */
  requireSession(options?: RequireSessionOptions): ExpressHandler;
  /**
   * Sets `req.auth` when the request has a live session, and never refuses it for lack of one.
   * On an unsafe method a session counts only with its CSRF token. A failing store still answers 503.
   * @throws TypeError at start-up for an invalid option.
   */
  optionalSession(options?: Pick<RequireSessionOptions, "onDenied">): ExpressHandler;
  /** `services/session/token` as a handler of its own (any method), for another path; the router already answers it at `/services/session/token`. */
  tokenHandler(): ExpressHandler;
  /**
   * The last handler for paths no route answered, in the wire format: mounted below the root
   * (at the endpoint path), Services' `404 Not found : Could not find resource <name>.` (or
   * `… the controller.` below `user`, `system` and `resources`); at the site root, Drupal's
   * `404 Not Found`. Empty body, never Express's HTML page.
   * @throws TypeError at start-up for an invalid option.
   */
  notFound(options?: NotFoundOptions): ExpressHandler;
  /**
   * The last error handler on the app: errors in the wire format, anything else a body-less
   * 500 with an `internal.error` event, and logged (see {@link ErrorHandlerOptions.log}). Never
   * a stack trace to the client.
   * @throws TypeError at start-up for an invalid option.
   */
  errorHandler(options?: ErrorHandlerOptions): ExpressErrorHandler;
  /**
   * Opens a session for a user the app authenticated itself (single sign-on, a sign-up) and
   * sets its cookie on `res` with `Cache-Control: no-store`: a new id whatever the request
   * carried. Resolves what `user/login` answers, for the app to send.
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  startSession(req: ExpressRequest, res: ServerResponse, user: UserRecord): Promise<LoginReply>;
  /**
   * Ends the request's session, if it has a live one, as a logout does, and deletes its cookie
   * on `res`. Resolves whether there was one.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the store cannot be read, or could not record the end everywhere (the cookie is deleted all the same).
   */
  endSession(req: ExpressRequest, res: ServerResponse): Promise<boolean>;
  /** A user's live sessions, oldest first (the handle is a hash, safe to show). */
  listSessions(uid: string): Promise<StoredSession[]>;
  /** Ends every session of a user ("log out everywhere"); resolves how many ended. */
  endUserSessions(uid: string): Promise<number>;
  /** The OpenAPI 3.1 document of the Services calls and the app's guarded `routes`, from these very options. */
  openApi(routes?: OpenApiRoutes): OpenApiObject;
}

/**
 * Drupal 7 Services' session authentication for an Express 4 or 5 app, as one middleware to
 * mount at the app's root, before any body parser: `user/login`, `system/connect`,
 * `user/logout`, `user/token` and the endpoint root under the endpoint path (`services/json`
 * by default), `services/session/token`, their `?q=` spellings (a `?q=` the package routes
 * becomes `req.url`, so the app's routes below the endpoint answer it too), and CORS for the
 * app origins of `trustedOrigins`. Every other request goes straight on. The options are
 * validated once, here: a `TypeError` names each problem.
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
  const { endpointPath } = engine;

  const router: ExpressHandler = function servicesSessionAuth(req, res, next) {
    if (!engine.claims(req.url ?? "/")) return next();
    const served = engine.serve(new ExpressHttpRequest(req));
    if (served === undefined) return next();
    served.reply.then((reply) => {
      if (reply !== undefined) return send(res, reply);
      // The app's: routed by the ?q= path, with the headers its reply owes the app origins.
      req.url = served.target;
      addHeaders(res, served.headers);
      next();
    }, next);
  };

  function guard(guardOptions: RequireSessionOptions | undefined, optional: boolean): ExpressHandler {
    const { guard: decide, settings } = engine.guard(guardOptions, optional);
    return function sessionGuard(req, res, next) {
      decide(new ExpressHttpRequest(req)).then((result) => {
        if (result.reply === undefined) {
          addHeaders(res, result.headers);
          (req as ExpressRequest & { auth?: unknown }).auth = result.auth;
          return next();
        }
        if (result.error === undefined || settings.onDenied === "reply") return send(res, result.reply);
        addHeaders(res, result.headers);
        next(result.error);
      }, next);
    };
  }

  async function servicesSessionToken(req: ExpressRequest, res: ServerResponse) {
    send(res, await engine.token(new ExpressHttpRequest(req)));
  }

  const pieces: Omit<SessionAuthRouter, keyof ExpressHandler> = {
    endpointPath,
    requireSession: (guardOptions) => guard(guardOptions, false),
    optionalSession: (guardOptions) => guard(guardOptions, true),
    tokenHandler: () => (req, res, next) => void servicesSessionToken(req, res).catch(next),
    notFound(notFoundOptions) {
      const reply = engine.notFound(notFoundOptions);
      // Mounted below the root (at the endpoint path, as Express strips it into baseUrl), it answers for the endpoint.
      return (req, res) => send(res, reply(new ExpressHttpRequest(req, `${req.baseUrl ? endpointPath : ""}${req.url ?? "/"}`)));
    },
    errorHandler(handlerOptions = {}) {
      // Without onEvent the internal.error event is itself written to stderr: once is enough.
      const log = parseOptions(errorHandlerSchema, handlerOptions, "errorHandler").log ?? (engine.options.onEvent === undefined ? false : logLikeExpress);
      // Four parameters: Express tells an error handler by its arity.
      return function servicesErrorHandler(error, req, res, _next) {
        const reply = engine.replyToError(error, new ExpressHttpRequest(req));
        // A 500 is a bug or an outage somewhere in the app: it must reach a log, as Express's own handler would print it.
        if (reply.status >= 500 && !isSessionAuthError(error) && log !== false) {
          try {
            log(error, req);
          } catch {
            // A logger's failure must not take the reply with it.
          }
        }
        // Once the reply has started it cannot become an error reply: end the connection, as Express does.
        if (res.headersSent) req.socket.destroy();
        else send(res, reply);
      };
    },
    async startSession(req, res, user) {
      const { result, headers } = await engine.startSession(new ExpressHttpRequest(req), user);
      addHeaders(res, headers);
      return result;
    },
    async endSession(req, res) {
      const { result, headers, error } = await engine.endSession(new ExpressHttpRequest(req));
      addHeaders(res, headers);
      if (error !== undefined) throw error;
      return result;
    },
    listSessions: (uid) => engine.listSessions(uid),
    endUserSessions: (uid) => engine.endUserSessions(uid),
    openApi: (routes) => engine.openApi(routes),
  };
  return Object.assign(router, pieces);
}
