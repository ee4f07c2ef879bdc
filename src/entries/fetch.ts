/**
 * `services-session-auth/fetch`: the Services session calls and route guards for any runtime
 * that speaks Web-standard `Request` and `Response` (Hono, Next.js route handlers, Bun,
 * Deno, Cloudflare Workers). No framework dependency.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { getConnInfo } from "@hono/node-server/conninfo";
 * import { createSessionAuthHandler } from "services-session-auth/fetch";
 *
 * const sessionAuth = createSessionAuthHandler({ userStore, sessionStore, secret: process.env.SESSION_SECRET! });
 * const app = new Hono({ getPath: (request) => sessionAuth.routedPath(request) });
 * app.use(async (c, next) => (await sessionAuth.handle(c.req.raw, { clientAddress: getConnInfo(c).remote.address })) ?? next());
 * ```
 *
 * @module
 */
export { createSessionAuthHandler } from "../fetch/create-session-auth-handler.js";
export type { FetchGuard, FetchSessionAuthOptions, GuardResult, SessionAuthHandler } from "../fetch/create-session-auth-handler.js";
export type { FetchRequestInfo, NodeHeaders } from "../fetch/request.js";
export type { TrustProxy } from "../fetch/trust-proxy.js";
export type { AuthUser, RequestAuth } from "../sessions/route-guard.js";
