/**
 * Recipe: the Services session layer in a Hono app, through `services-session-auth/fetch`.
 * One middleware answers the Services calls; `requireSession` and `optionalSession` set
 * `c.var.auth`; Services' 404s and the wire format's errors end the app. Run on Node with
 * @hono/node-server by test/examples/hono.test.ts.
 */
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { RequireSessionOptions } from "services-session-auth";
import {
  createSessionAuthHandler,
  type FetchGuard,
  type FetchSessionAuthOptions,
  type RequestAuth,
  type SessionAuthHandler,
} from "services-session-auth/fetch";

/** The app's variables: `c.var.auth` is the session a guard let through. */
export interface SessionAuthEnv {
  Variables: { auth: RequestAuth | undefined };
}

/** Where the client is: on Node, the socket's address (a runtime of its own says it another way), looked up only if asked. */
function client(c: Context) {
  return {
    get clientAddress() {
      return getConnInfo(c).remote.address;
    },
  };
}

/** A fetch guard as Hono middleware: its refusal is the response; else `c.var.auth`, and any cookie it sets goes on the app's response. */
function asMiddleware(check: FetchGuard): MiddlewareHandler<SessionAuthEnv> {
  return async (c, next) => {
    const result = await check(c.req.raw, client(c));
    if (result.response !== undefined) return result.response;
    c.set("auth", result.auth);
    for (const cookie of result.setCookie) c.header("Set-Cookie", cookie, { append: true });
    await next();
  };
}

/** The Services calls (and their `?q=` spellings) as the first middleware, and the guards as Hono middleware. */
export function honoSessionAuth(options: FetchSessionAuthOptions) {
  const sessionAuth: SessionAuthHandler = createSessionAuthHandler(options);
  const services: MiddlewareHandler<SessionAuthEnv> = async (c, next) => (await sessionAuth.handle(c.req.raw, client(c))) ?? next();
  return {
    sessionAuth,
    services,
    requireSession: (guardOptions?: Omit<RequireSessionOptions, "onDenied">) => asMiddleware(sessionAuth.requireSession(guardOptions)),
    optionalSession: () => asMiddleware(sessionAuth.optionalSession()),
  };
}

/** Recipe: a Hono app with the Services calls, a protected route, a route for everyone, and Services' 404s. */
export function honoApp(options: FetchSessionAuthOptions): Hono<SessionAuthEnv> {
  const { sessionAuth, services, requireSession, optionalSession } = honoSessionAuth(options);
  // Drupal's ?q= paths route the app's own routes too (/?q=services/json/me).
  const app = new Hono<SessionAuthEnv>({ getPath: (request) => sessionAuth.routedPath(request) });
  app.use(services);
  app.get("/services/json/me", requireSession(), (c) => {
    const { user, session } = c.var.auth!; // typed: RequestAuth, never the password hash
    return c.json({ name: user.name, roles: Object.values(user.roles), since: session.record.createdAt });
  });
  app.post("/services/json/players", requireSession(), (c) => c.json({ added: true }, 201));
  app.get("/services/json/admin/stats", requireSession({ roles: ["administrator"] }), (c) => c.json({ admin: true }));
  app.get("/welcome", optionalSession(), (c) => c.text(c.var.auth === undefined ? "Hello, visitor" : `Hello, ${c.var.auth.user.name}`));
  const notFound = sessionAuth.notFound({ resources: ["players", "me", "admin"] });
  app.notFound((c) => notFound(c.req.raw));
  app.onError((error, c) => sessionAuth.errorResponse(error, c.req.raw));
  return app;
}
