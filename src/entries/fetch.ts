/**
 * `services-session-auth/fetch`: the Services session calls and route guards for any runtime
 * that speaks Web-standard `Request` and `Response` (Node's `http`, Next.js route handlers, Bun,
 * Deno, Cloudflare Workers). No framework dependency; for Hono, `services-session-auth/hono`.
 *
 * @example
 * ```ts
 * import { createSessionAuthHandler } from "services-session-auth/fetch";
 *
 * const sessionAuth = createSessionAuthHandler({ userStore, sessionStore, secret: process.env.SESSION_SECRET! });
 * const requireSession = sessionAuth.requireSession();
 * Deno.serve(async (request, info) => {
 *   const services = await sessionAuth.handle(request, info);
 *   if (services) return services;
 *   const result = await requireSession(request, info);
 *   if (result.response) return result.response;
 *   return sessionAuth.withHeaders(Response.json({ name: result.auth.user.name }), result.headers);
 * });
 * ```
 *
 * @module
 */
export { createSessionAuthHandler } from "../fetch/create-session-auth-handler.js";
export type { FetchGuard, FetchGuardResult, FetchSessionAuthOptions, SessionAuthHandler } from "../fetch/create-session-auth-handler.js";
export type { RuntimeEnv } from "../web/request.js";
export type { HeaderRecord } from "../http-output/headers.js";
export type { TrustProxy } from "../http-input/trust-proxy.js";
export type { WebSessionAuthOptions } from "../web/binding.js";
export type { AuthUser, RequestAuth } from "../sessions/session-check.js";
