import type { ServerResponse } from "node:http";
import type { SessionAuthContract } from "../engine/contract.js";
import { createEngine, type SessionAuthBase } from "../engine/engine.js";
import type { Decision, Guard } from "../engine/guard.js";
import type { SessionAuthOptions } from "../options/options.js";
import { z } from "zod";
import { fn, parseOptions } from "../validate.js";
import { absoluteFormPrefix, originForm } from "../http-input/target.js";
import { expressError } from "./foreign-error.js";
import { ExpressHttpRequest, type ExpressRequest } from "./request.js";
import { NO_HEADERS, writeHeaders } from "../http-output/headers.js";
import { closeAfterReply } from "../http-input/linger.js";
import { nodeSetter, writeReply } from "../http-output/node-response.js";
import type { WireResponse } from "../wire/reply.js";

/** Express's `next`, as the router calls it. */
export type ExpressNext = (error?: unknown) => void;
/** A middleware, in the shape Express calls it (typed without Express's own types, which no app needs to install). */
export type ExpressHandler = (req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;
/** An error-handling middleware, in the shape Express calls it. */
export type ExpressErrorHandler = (error: unknown, req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;

/** The request a logger gets: Express's, with whatever the app's middleware added to it (`req.log`, `req.path`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the app's own additions, which the package cannot name
export type LoggedRequest = ExpressRequest & { readonly [key: string]: any };
/**
 * Options of {@link SessionAuthRouter.errorHandler}.
 *
 * @example
 * ```ts
 * app.use(auth.errorHandler({ log: (err, req) => req.log.error({ err }, "unhandled error") }));
 * ```
 */
export interface ErrorHandlerOptions {
  /**
   * Where an error answered with a 500 (or after the reply started) goes: a function of the error and
   * request, or `false` for only the `internal.error` event. 4xx are not logged.
   * @default with `onEvent`: the error's stack on stderr, as Express's own handler prints it (not when `NODE_ENV` is `test`); without: nothing more than the event on stderr
   */
  log?: ((err: unknown, req: LoggedRequest) => void) | false;
}

const errorHandlerSchema = z.strictObject({
  log: z.union([z.literal(false), fn<(err: unknown, req: LoggedRequest) => void>("(err, req) => void")]).optional(),
});

/** What {@link createSessionAuthRouter} returns: the middleware to mount at the root, and the guards and handlers for the app's routes (`req.auth`). */
export interface SessionAuthRouter extends ExpressHandler, SessionAuthContract<ExpressHandler, ExpressHandler, [req: ExpressRequest, res: ServerResponse]> {
  /** The last error handler: errors in the wire format, anything else a body-less 500, logged (see {@link ErrorHandlerOptions.log}). */
  errorHandler(options?: ErrorHandlerOptions): ExpressErrorHandler;
}

/** Writes a {@link WireResponse} as Node's own, a 413 lingering ({@link closeAfterReply}) so the client reads it. */
function send(res: ServerResponse, wire: WireResponse): void {
  if (wire.status === 413 && !res.headersSent) closeAfterReply(res.req, res);
  writeReply(res, wire);
}

/** Carries out a guard's decision: its reply, or the route with `req.auth` (or the error path, `onDenied: "next"`). */
function carry(decided: Decision, req: ExpressRequest, res: ServerResponse, next: ExpressNext): void {
  if (decided.kind === "reply") return send(res, decided.reply);
  if (decided.headers !== NO_HEADERS) writeHeaders(decided.headers, nodeSetter(res));
  if (decided.kind === "fail") return next(decided.error);
  (req as ExpressRequest & { auth?: unknown }).auth = decided.auth;
  next();
}

/**
 * Drupal 7 Services' session authentication for an Express 4 or 5 app: one middleware to mount at the root, before any body parser,
 * serving the Services calls, `services/session/token`, their `?q=` spellings and CORS for `trustedOrigins`; all else goes straight on.
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
  const router: ExpressHandler = function servicesSessionAuth(req, res, next) {
    const target = originForm(req.url ?? "/"); // most requests are the app's: told apart by their target alone, before anything is read of them
    if (!engine.claims(target)) return next();
    const http = new ExpressHttpRequest(req, target);
    const served = engine.serve(http);
    if (served === undefined) return next();
    served.then((decided) => {
      if (decided.kind === "reply") return send(res, decided.reply);
      // The app's: routed by the ?q= path (req.url rewritten only then, an absolute-form's scheme and host kept, as Express keeps them), with the headers its reply owes.
      if (decided.target !== http.target) req.url = `${absoluteFormPrefix(req.url ?? "/")}${decided.target}`;
      if (decided.headers !== NO_HEADERS) writeHeaders(decided.headers, nodeSetter(res));
      next();
    }, next);
  };

  const guard = (decide: Guard): ExpressHandler =>
    function sessionGuard(req, res, next) {
      const decision = decide(new ExpressHttpRequest(req));
      if (decision instanceof Promise) decision.then((decided) => carry(decided, req, res, next)).catch(next);
      else carry(decision, req, res, next);
    };

  const pieces: Omit<SessionAuthRouter, keyof ExpressHandler | keyof SessionAuthBase> = {
    requireSession: (guardOptions) => guard(engine.requireSession(guardOptions)),
    optionalSession: (guardOptions) => guard(engine.optionalSession(guardOptions)),
    notFound(notFoundOptions) {
      const reply = engine.notFound(notFoundOptions);
      return (req, res) => {
        // Mounted at the endpoint path (Express strips it into baseUrl), it answers for the endpoint; elsewhere as the router sees paths, from where it is mounted.
        const path = originForm(req.url ?? "/");
        const { endpointPath } = engine.base;
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
        void (res.headersSent ? req.socket.destroy() : send(res, reply));
      };
    },
    startSession: (req, res, user) => engine.startSession(new ExpressHttpRequest(req), user, nodeSetter(res)),
    endSession: (req, res) => engine.endSession(new ExpressHttpRequest(req), nodeSetter(res)),
  };
  return Object.assign(router, engine.base, pieces);
}
