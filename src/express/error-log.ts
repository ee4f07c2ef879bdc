import type { Request } from "express";
import { z } from "zod";
import { fn } from "../core/validate.js";

/**
 * Options of {@link SessionAuth.errorHandler}.
 *
 * @example
 * ```ts
 * app.use(auth.errorHandler({ log: (err, req) => req.log.error({ err }, "unhandled error") }));
 * ```
 */
export interface ErrorHandlerOptions {
  /**
   * Where an error answered with a 500 goes (an app route's bug, a custom store's throw): a
   * function of the error and the request, or `false` for nowhere (when `onEvent` already
   * logs `internal.error`). Denials and clients' mistakes (4xx) are not logged.
   * @default the error's stack on stderr, as Express's own handler prints it (not when `NODE_ENV` is `test`)
   */
  log?: ((err: unknown, req: Request) => void) | false;
}

export const errorHandlerSchema = z.strictObject({
  log: z.union([z.literal(false), fn<(err: unknown, req: Request) => void>("(err, req) => void")]).optional(),
});

/** Express's final handler prints the stack of an error nobody handled, except under test. */
export function logLikeExpress(err: unknown): void {
  if ((process.env.NODE_ENV ?? "development") === "test") return;
  const text = err instanceof Error ? (err.stack ?? String(err)) : String(err);
  process.stderr.write(`${text}\n`);
}
