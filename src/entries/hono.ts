/**
 * `services-session-auth/hono`: Drupal 7 Services' session authentication as Hono 4 middleware.
 * `hono` is an optional peer dependency: install it in the app.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { createSessionAuthMiddleware } from "services-session-auth/hono";
 *
 * const sessionAuth = createSessionAuthMiddleware({ userStore, sessionStore, secret: process.env.SESSION_SECRET! });
 * const app = new Hono({ getPath: sessionAuth.getPath });
 * app.use(sessionAuth);
 * app.get("/services/json/me", sessionAuth.requireSession(), (c) => c.json({ name: c.var.auth.user.name }));
 * app.notFound(sessionAuth.notFound());
 * app.onError(sessionAuth.onError());
 * ```
 *
 * @module
 */
export { createSessionAuthMiddleware } from "../hono/middleware.js";
export type { HonoSessionAuthOptions, SessionAuthEnv, SessionAuthMiddleware } from "../hono/middleware.js";
export type { TrustProxy } from "../http-input/trust-proxy.js";
export type { WebSessionAuthOptions } from "../web/binding.js";
export type { HeaderRecord } from "../http-output/headers.js";
export type { AuthUser, RequestAuth } from "../sessions/session-check.js";
