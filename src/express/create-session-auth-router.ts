import type { ServerResponse } from "node:http";
import { createEngine, type NotFoundOptions, type SessionAuthBase } from "../engine/engine.js";
import type { Guard } from "../engine/guard.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import type { OptionalSessionOptions, RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import type { UserRecord } from "../types.js";
import { parseOptions } from "../validate.js";
import { errorHandlerSchema, type ErrorHandlerOptions } from "./error-log.js";
import { absoluteFormPrefix, originForm } from "../http-input/target.js";
import { expressError } from "./foreign-error.js";
import { ExpressHttpRequest, type ExpressRequest } from "./request.js";
import { addHeaders, send, setterOf } from "./respond.js";

/** Express's `next`, as the router calls it. */
export type ExpressNext = (error?: unknown) => void;
/** A middleware, in the shape Express calls it (typed without Express's own types, which no app needs to install). */
export type ExpressHandler = (req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;
/** An error-handling middleware, in the shape Express calls it. */
export type ExpressErrorHandler = (error: unknown, req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;

/** What {@link createSessionAuthRouter} returns: the middleware to mount at the root, and the guards and handlers for the app's routes. */
export interface SessionAuthRouter extends ExpressHandler, SessionAuthBase {
  /**
   * A route's guard: a live session, its CSRF token on unsafe methods, one of `roles`; else the
   * wire format's 401, 403 or 503 (with `onDenied: "next"`, the error goes to the app's error handlers). Sets `req.auth`.
   * @throws TypeError at start-up for an invalid option.
   */
  requireSession(options?: RequireSessionOptions): ExpressHandler;
  /** Sets `req.auth` when a live session comes (with its token on an unsafe method), and never refuses for lack of one. */
  optionalSession(options?: OptionalSessionOptions): ExpressHandler;
  /** `services/session/token` as a handler of its own, for another path. */
  tokenHandler(): ExpressHandler;
  /** The last handler: Services' 404s mounted at the endpoint path, Drupal's body-less `404 Not Found` at the root. */
  notFound(options?: NotFoundOptions): ExpressHandler;
  /** The last error handler: errors in the wire format, anything else a body-less 500, logged (see {@link ErrorHandlerOptions.log}). */
  errorHandler(options?: ErrorHandlerOptions): ExpressErrorHandler;
  /**
   * Opens a session for a user the app authenticated itself, its cookie on `res`; resolves what `user/login` answers.
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  startSession(req: ExpressRequest, res: ServerResponse, user: UserRecord): Promise<LoginReply>;
  /**
   * Ends the request's session as a logout does, deleting its cookie on `res`; resolves whether there was one.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the end could not be read or recorded everywhere.
   */
  endSession(req: ExpressRequest, res: ServerResponse): Promise<boolean>;
}

/**
 * Drupal 7 Services' session authentication for an Express 4 or 5 app: one middleware to mount
 * at the root, before any body parser, serving the Services calls, `services/session/token`,
 * their `?q=` spellings and CORS for `trustedOrigins`; every other request goes straight on.
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
  const engine = createEngine(options, {
    factory: "createSessionAuthRouter",
    trustProxyFix: 'trust it by hop count: app.set("trust proxy", 1)',
    foreignError: expressError,
  });
  const { endpointPath } = engine.base;

  const router: ExpressHandler = function servicesSessionAuth(req, res, next) {
    const http = new ExpressHttpRequest(req);
    const served = engine.serve(http);
    if (served === undefined) return next();
    served.then((decided) => {
      if (decided.kind === "reply") return send(res, decided.reply);
      // The app's: routed by the ?q= path (only then is req.url Express's to rewrite), with the headers its reply owes the app origins.
      // Express keeps an absolute-form's scheme and host in req.url when it mounts a router: so must this.
      if (decided.target !== http.target) req.url = `${absoluteFormPrefix(req.url ?? "/")}${decided.target}`;
      addHeaders(res, decided.headers);
      next();
    }, next);
  };

  function guard(decide: Guard): ExpressHandler {
    return function sessionGuard(req, res, next) {
      decide(new ExpressHttpRequest(req)).then((decided) => {
        if (decided.kind === "reply") return send(res, decided.reply);
        addHeaders(res, decided.headers);
        if (decided.kind === "fail") return next(decided.error);
        (req as ExpressRequest & { auth?: unknown }).auth = decided.auth;
        next();
      }, next);
    };
  }

  const pieces: Omit<SessionAuthRouter, keyof ExpressHandler | keyof SessionAuthBase> = {
    requireSession: (guardOptions) => guard(engine.requireSession(guardOptions)),
    optionalSession: (guardOptions) => guard(engine.optionalSession(guardOptions)),
    tokenHandler: () => (req, res, next) => void engine.token(new ExpressHttpRequest(req)).then((reply) => send(res, reply), next),
    notFound(notFoundOptions) {
      const reply = engine.notFound(notFoundOptions);
      return (req, res) => {
        // Mounted at the endpoint path (Express strips it into baseUrl), it answers for the endpoint; elsewhere as the router sees paths, from where it is mounted.
        const path = originForm(req.url ?? "/");
        const atEndpoint = req.baseUrl !== undefined && req.baseUrl.toLowerCase().endsWith(endpointPath.toLowerCase());
        send(res, reply(new ExpressHttpRequest(req, atEndpoint ? `${endpointPath}${path}` : path)));
      };
    },
    errorHandler(handlerOptions = {}) {
      const log = parseOptions(errorHandlerSchema, handlerOptions, "errorHandler").log;
      // Four parameters: Express tells an error handler by its arity.
      return function servicesErrorHandler(error, req, res, _next) {
        const reply = engine.fail(error, new ExpressHttpRequest(req), log && ((err) => log(err, req)));
        // Once the reply has started it cannot become an error reply: end the connection, as Express does.
        if (res.headersSent) req.socket.destroy();
        else send(res, reply);
      };
    },
    startSession: (req, res, user) => engine.startSession(new ExpressHttpRequest(req), user, setterOf(res)),
    endSession: (req, res) => engine.endSession(new ExpressHttpRequest(req), setterOf(res)),
  };
  return Object.assign(router, engine.base, pieces);
}
