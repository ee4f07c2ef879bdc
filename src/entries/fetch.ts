/**
 * `services-session-auth/fetch`: the Services session calls and route guards for any runtime
 * that speaks Web-standard `Request` and `Response` (Next.js route handlers, Bun,
 * Deno, Cloudflare Workers). No framework dependency; for Hono, `services-session-auth/hono`.
 *
 * @example
 * ```ts
 * import { createSessionAuthHandler } from "services-session-auth/fetch";
 *
 * const sessionAuth = createSessionAuthHandler({ userStore, sessionStore, secret: process.env.SESSION_SECRET! });
 * const requireSession = sessionAuth.requireSession();
 * const worker = {
 *   async fetch(request: Request): Promise<Response> {
 *     const client = { clientAddress: request.headers.get("cf-connecting-ip") ?? undefined };
 *     const services = await sessionAuth.handle(request, client);
 *     if (services) return services;
 *     const result = await requireSession(request, client);
 *     if (result.response) return result.response;
 *     return sessionAuth.withGuard(Response.json({ name: result.auth.user.name }), result);
 *   },
 * };
 * ```
 *
 * @module
 */
export { createSessionAuthHandler } from "../fetch/create-session-auth-handler.js";
export type { FetchGuard, FetchSessionAuthOptions, GuardResult, SessionAuthHandler } from "../fetch/create-session-auth-handler.js";
export type { HeaderRecord } from "../http-output/headers.js";
export type { FetchRequestInfo, NodeHeaders } from "../fetch/request.js";
export type { TrustProxy } from "../http-input/trust-proxy.js";
export type { AuthUser, RequestAuth } from "../sessions/session-check.js";
