/**
 * `services-session-auth/express`: Drupal 7 Services' session authentication for Express 4 and 5:
 * one router to mount at the root, with the guards that set `req.auth`. Express is an optional peer
 * dependency, never loaded by the package; its types are not needed either.
 *
 * @example
 * ```ts
 * import express from "express";
 * import { memorySessionStore } from "services-session-auth";
 * import { createSessionAuthRouter } from "services-session-auth/express";
 *
 * const sessionAuth = createSessionAuthRouter({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * const app = express();
 * app.use(sessionAuth);
 * app.get("/services/json/me", sessionAuth.requireSession(), (req, res) => res.json({ name: req.auth!.user.name }));
 * app.use("/services/json", sessionAuth.notFound());
 * app.use(sessionAuth.notFound());
 * app.use(sessionAuth.errorHandler());
 * ```
 *
 * @module
 */
import type { RequestAuth } from "../sessions/session-check.js";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `requireSession()` on the requests it lets through, and by `optionalSession()` when a session is live; `undefined` elsewhere. */
      auth?: RequestAuth;
    }
  }
}

export { createSessionAuthRouter } from "../express/create-session-auth-router.js";
export type { ExpressErrorHandler, ExpressHandler, ExpressNext, SessionAuthRouter } from "../express/create-session-auth-router.js";
export type { ExpressRequest } from "../express/request.js";
export type { ErrorHandlerOptions, LoggedRequest } from "../express/create-session-auth-router.js";
export type { AuthUser, RequestAuth } from "../sessions/session-check.js";
