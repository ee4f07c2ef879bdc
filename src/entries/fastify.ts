/**
 * `services-session-auth/fastify`: Drupal 7 Services' session authentication as a Fastify 5
 * plugin. `fastify` is an optional peer dependency: install it in the app.
 *
 * @example
 * ```ts
 * import Fastify from "fastify";
 * import { memorySessionStore } from "services-session-auth";
 * import { drupalRewriteUrl, fastifySessionAuth } from "services-session-auth/fastify";
 *
 * const options = { userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! };
 * const app = Fastify({ rewriteUrl: drupalRewriteUrl(options) });
 * await app.register(fastifySessionAuth, options);
 * app.get("/services/json/me", { preHandler: app.sessionAuth.requireSession() }, async (request) => ({ name: request.auth!.user.name }));
 * app.setNotFoundHandler(app.sessionAuth.notFound({ resources: ["me"] }));
 * app.setErrorHandler(app.sessionAuth.errorHandler());
 * ```
 *
 * @module
 */
export { fastifySessionAuth } from "../fastify/plugin.js";
export { drupalRewriteUrl, type RewriteMount } from "../fastify/rewrite-url.js";
export type { FastifySessionAuth, FastifySessionAuthOptions } from "../fastify/plugin.js";
export type { AuthUser, RequestAuth } from "../sessions/session-check.js";
