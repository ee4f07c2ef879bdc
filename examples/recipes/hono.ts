/**
 * Recipe: the Services session layer in a Hono app, through `services-session-auth/fetch`.
 * One middleware answers the Services calls; `requireSession` and `optionalSession` set
 * `c.var.auth`; Services' 404s and the wire format's errors end the app. Run on Node with
 * @hono/node-server by test/examples/hono.test.ts, served as
 * `serve({ fetch: app.fetch, autoCleanupIncoming: false })`: by default that server closes the
 * connection half a second after a reply that left the upload unread (a 413, a guard's 401),
 * and a client still writing then gets a reset instead of the reply. Without it, Node reads
 * and drops the rest as it does for Express, and the handler's own 413 drops it within bounds.
 */
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { RequireSessionOptions } from "services-session-auth";
import type { IncomingMessage } from "node:http";
import {
  createSessionAuthHandler,
  type FetchGuard,
  type FetchRequestInfo,
  type FetchSessionAuthOptions,
  type RequestAuth,
  type SessionAuthHandler,
} from "services-session-auth/fetch";

/** The app's variables: `c.var.auth` is the session a guard let through. */
export interface SessionAuthEnv {
  Variables: { auth: RequestAuth | undefined };
}

/**
 * What the request does not say, on Node: the socket's address, looked up only if asked, and
 * the headers @hono/node-server already parsed, which the guards read rather than have a Web
 * `Headers` built (a runtime of its own says the address another way, and has no `incoming`).
 */
function client(c: Context): FetchRequestInfo {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return {
    get clientAddress() {
      return getConnInfo(c).remote.address;
    },
    headers: parsedHeaders(c, incoming),
    // The socket's word, not the URL's: @hono/node-server takes an absolute-form request line's scheme as the URL's.
    secure: incoming === undefined ? undefined : (incoming.socket as { encrypted?: boolean } | null)?.encrypted === true,
  };
}

/**
 * The headers Node parsed for this very request: none for a request of the app's own making
 * (`app.request(path, init, c.env)`, a rewritten `c.req.raw`), which carries the outer
 * request's `env` but headers of its own.
 */
function parsedHeaders(c: Context, incoming: IncomingMessage | undefined): IncomingMessage["headers"] | undefined {
  const { url, method } = c.req.raw;
  if (incoming?.url === undefined || method !== incoming.method) return undefined;
  const path = url.indexOf("/", url.indexOf("://") + 3);
  return path !== -1 && url.slice(path) === incoming.url ? incoming.headers : undefined;
}

/**
 * The route's response replaced by its copy with the session's headers. Hono's `c.res` setter
 * would write the old response's headers back over the copy's (its `Vary` over the merged
 * one, its cookies over the guard's): cleared first, the copy is taken as it is.
 */
function replaceResponse(c: Context, finished: Response): void {
  if (finished === c.res) return;
  c.res = undefined;
  c.res = finished;
}

/**
 * A fetch guard as Hono middleware: its refusal (or the answer to a CORS preflight) is the
 * response; else `c.var.auth`, and the cookies and CORS headers it leaves go on whatever
 * response the route makes (`c.json()` or a `Response` of its own).
 */
function asMiddleware(sessionAuth: SessionAuthHandler, check: FetchGuard): MiddlewareHandler<SessionAuthEnv> {
  return async (c, next) => {
    const result = await check(c.req.raw, client(c));
    if (result.response !== undefined) return result.response;
    c.set("auth", result.auth);
    // Given to Hono before the route answers, so c.json(), c.text()… build the response with
    // them; withGuard then copies only a response made without them (a Response of the route's own).
    // Vary appended: a middleware before this one may have named what it varies by.
    for (const name in result.headers) c.header(name, result.headers[name], { append: name === "Vary" });
    for (const cookie of result.setCookie) c.header("Set-Cookie", cookie, { append: true });
    await next();
    replaceResponse(c, sessionAuth.withGuard(c.res, result));
  };
}

/**
 * The Services calls (and their `?q=` spellings) as the first middleware, with CORS for the
 * origins of `trustedOrigins` on the paths it covers (the app's replies there too), and the
 * guards as Hono middleware.
 */
export function honoSessionAuth(options: FetchSessionAuthOptions) {
  const sessionAuth: SessionAuthHandler = createSessionAuthHandler(options);
  const services: MiddlewareHandler<SessionAuthEnv> = async (c, next) => {
    const answered = await sessionAuth.handle(c.req.raw, client(c));
    if (answered !== undefined) return answered;
    await next();
    replaceResponse(c, sessionAuth.withCors(c.req.raw, c.res));
  };
  return {
    sessionAuth,
    services,
    requireSession: (guardOptions?: Omit<RequireSessionOptions, "onDenied">) => asMiddleware(sessionAuth, sessionAuth.requireSession(guardOptions)),
    optionalSession: () => asMiddleware(sessionAuth, sessionAuth.optionalSession()),
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
