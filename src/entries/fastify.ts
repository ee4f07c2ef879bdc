/**
 * `services-session-auth/fastify`: Drupal 7 Services' session authentication as a Fastify 5
 * plugin. `fastify` is an optional peer dependency: install it in the app.
 *
 * @example
 * ```ts
 * import Fastify from "fastify";
 * import { memorySessionStore } from "services-session-auth";
 * import { createSessionAuthPlugin } from "services-session-auth/fastify";
 *
 * const sessionAuth = createSessionAuthPlugin({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl });
 * await app.register(sessionAuth);
 * app.get("/services/json/me", { preHandler: sessionAuth.requireSession() }, async (request) => ({ name: request.auth!.user.name }));
 * app.setNotFoundHandler(sessionAuth.notFound({ resources: ["me"] }));
 * app.setErrorHandler(sessionAuth.errorHandler());
 * ```
 *
 * @module
 */
export { createSessionAuthPlugin, type FastifyExchange, type SessionAuthPlugin } from "../fastify/plugin.js";
export type { AuthUser, RequestAuth } from "../sessions/session-check.js";
