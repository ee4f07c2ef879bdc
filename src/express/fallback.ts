import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import { z } from "zod";
import type { AuthEventListener } from "../core/events.js";
import { fn, parseOptions } from "../core/validate.js";
import { foreignErrorReply } from "../services/foreign-error.js";
import { notFoundError } from "../services/not-found.js";
import { errorReply } from "../services/wire.js";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import { send } from "./respond.js";

const notFoundSchema = z.strictObject({ resources: z.array(z.string().min(1)).readonly().optional() });

/**
 * Options of {@link servicesNotFound}.
 *
 * @example
 * ```ts
 * app.use("/services/json", servicesNotFound({ resources: ["players", "events"] }));
 * ```
 */
export interface ServicesNotFoundOptions {
  /**
   * The app's own resources under the endpoint (`players`, `events`): a miss below one of
   * them is `Could not find the controller.`, as below `user` and `system`.
   * @default none: any other first segment is `Could not find resource <name>.`
   */
  resources?: readonly string[];
}

/**
 * The last handler for requests no route answered, in the wire format instead of Express's
 * HTML page. Mounted at the endpoint path, it gives Services' own 404
 * (`404 Not found : Could not find resource nothing.`, empty body). Mounted at the
 * site root, with no path, it answers every other path as Drupal's `drupal_not_found()`
 * does but without the HTML page: `404 Not Found`, an empty body. Mount both, the
 * endpoint's first, so that an API server answers JSON on every path.
 *
 * @example
 * ```ts
 * app.use("/services/json", createSessionAuthRouter(auth));
 * app.get("/services/json/players", requireSession(auth), listPlayers);
 * app.use("/services/json", servicesNotFound({ resources: ["players"] }));
 * app.use(servicesNotFound()); // /nothing, /services/, /services/json.xml, …
 * app.use(servicesErrorHandler());
 * ```
 * @throws TypeError when an option is invalid.
 */
export function servicesNotFound(options: ServicesNotFoundOptions = {}): RequestHandler {
  const resources = new Set(parseOptions(notFoundSchema, options, "servicesNotFound").resources);
  return function servicesNotFound(req: Request, res: Response) {
    // Express strips the mount path into baseUrl: none means the site root, outside any endpoint.
    const error = req.baseUrl === "" ? new SessionAuthError("ERR_PAGE_NOT_FOUND") : notFoundError(req.path, resources);
    send(res, errorReply(error));
  };
}

const errorHandlerSchema = z.strictObject({ onEvent: fn<AuthEventListener>("event => void").optional() });

/**
 * Options of {@link servicesErrorHandler}.
 *
 * @example
 * ```ts
 * app.use(servicesErrorHandler({ onEvent: (event) => event.type === "internal.error" && logger.error(event.error) }));
 * ```
 */
export interface ServicesErrorHandlerOptions {
  /** Receives `internal.error` for anything that is not a client's mistake, to log it server-side. @default none */
  onEvent?: AuthEventListener;
}

/**
 * An Express error handler that answers in the wire format: a path that cannot be decoded
 * is a `400` with no body, a body parser's invalid JSON or oversized upload the same reply
 * as the router's, another middleware's client error (a `4xx` `status`) its own status with
 * no body, and anything else a body-less `500` (reported as an `internal.error` event).
 * Express's HTML error page, with its stack trace outside production, is never sent.
 * Mount it last on the app.
 *
 * @example
 * ```ts
 * app.use(servicesErrorHandler({ onEvent: (event) => logger.warn(event) }));
 * ```
 * @throws TypeError when an option is invalid.
 */
export function servicesErrorHandler(options: ServicesErrorHandlerOptions = {}): ErrorRequestHandler {
  const { onEvent } = parseOptions(errorHandlerSchema, options, "servicesErrorHandler");
  return function servicesErrorHandler(error: unknown, _req: Request, res: Response, next: NextFunction) {
    // Once the reply has started, only Express can end it (it destroys the socket).
    if (res.headersSent) return next(error);
    const reply = isSessionAuthError(error) ? errorReply(error) : foreignErrorReply(error);
    if (reply !== undefined) return send(res, reply);
    report(onEvent, error);
    send(res, errorReply(error));
  };
}

function report(onEvent: AuthEventListener | undefined, error: unknown): void {
  try {
    onEvent?.({ type: "internal.error", error });
  } catch {
    // A failing listener must not turn a 500 into a crash.
  }
}
