import { z } from "zod";
import { fn } from "../validate.js";
import type { ExpressRequest } from "./request.js";

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

export const errorHandlerSchema = z.strictObject({
  log: z.union([z.literal(false), fn<(err: unknown, req: LoggedRequest) => void>("(err, req) => void")]).optional(),
});
