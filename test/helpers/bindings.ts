import { createServer, type Server } from "node:http";
import express from "express";
import Fastify from "fastify";
import { memoryCounterStore, memorySessionStore, memoryUserStore, type AuthEvent, type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { createSessionAuthPlugin } from "services-session-auth/fastify";
import { Hono } from "hono";
import { createSessionAuthMiddleware } from "services-session-auth/hono";
import { createSessionAuthHandler, type FetchGuard, type FetchSessionAuthOptions } from "services-session-auth/fetch";
import type { RequestAuth } from "services-session-auth";
import { serveFetch } from "../../examples/sports-api/serve-fetch.js";
import { fastHasher, SECRET, USERS } from "./app.js";
import type { Framework } from "./frameworks.js";

/**
 * The app every binding test drives, built on one binding: the Services calls, and the
 * same routes behind the guards (GET and POST /services/json/players, POST
 * /services/json/open without CSRF, GET /services/json/admin for administrators, GET
 * /welcome for everyone, any method on /notes outside the endpoint path), Services' 404s and the wire format's errors. Resolves a Node
 * server, not yet listening (supertest listens). Hono is served by a node:http adapter that
 * keeps Services' reason phrases, and so is fetch, its routes matched by hand as a fetch app matches them. `trustProxy` is each framework's own setting, as an app
 * gives it (a hop count to Fastify as a function: Fastify 5 refuses a bare number).
 */
export async function bindingApp(
  binding: Framework,
  overrides: Partial<SessionAuthOptions> = {},
  trustProxy?: number | string,
): Promise<{ server: Server; events: AuthEvent[] }> {
  const events: AuthEvent[] = [];
  const options: SessionAuthOptions = {
    userStore: memoryUserStore(USERS, { hasher: fastHasher }),
    sessionStore: memorySessionStore(),
    counterStore: memoryCounterStore(),
    secret: SECRET,
    baseUrl: "http://sports.test",
    hasher: fastHasher,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  const resources = ["players", "open", "admin"];
  if (binding === "express") {
    const auth = createSessionAuthRouter(options);
    const app = express();
    if (trustProxy !== undefined) app.set("trust proxy", trustProxy);
    app.use(auth);
    app.get("/services/json/players", auth.requireSession(), (req, res) => void res.json({ players: ["Ana"], uid: req.auth?.user.uid }));
    app.post("/services/json/players", auth.requireSession(), (_req, res) => void res.json({ added: true }));
    app.post("/services/json/open", auth.requireSession({ csrf: false }), (_req, res) => void res.json({ open: true }));
    app.get("/services/json/admin", auth.requireSession({ roles: ["administrator"] }), (_req, res) => void res.json({ admin: true }));
    app.get("/welcome", auth.optionalSession(), (req, res) => void res.json({ name: req.auth?.user.name ?? null }));
    app.all("/notes", auth.requireSession(), (_req, res) => void res.json({ notes: [] }));
    app.use("/services/json", auth.notFound({ resources }));
    app.use(auth.notFound());
    app.use(auth.errorHandler());
    return { server: createServer(app), events };
  }
  if (binding === "fastify") {
    const hops = trustProxy;
    const trust = typeof hops === "number" ? (_address: string, hop: number) => hop < hops : hops;
    const sessionAuth = createSessionAuthPlugin(options);
    const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl, ...(trust === undefined ? {} : { trustProxy: trust }) });
    await app.register(sessionAuth);
    const { requireSession, optionalSession } = sessionAuth;
    app.get("/services/json/players", { preHandler: requireSession() }, async (request) => ({ players: ["Ana"], uid: request.auth?.user.uid }));
    app.post("/services/json/players", { preHandler: requireSession() }, async () => ({ added: true }));
    app.post("/services/json/open", { preHandler: requireSession({ csrf: false }) }, async () => ({ open: true }));
    app.get("/services/json/admin", { preHandler: requireSession({ roles: ["administrator"] }) }, async () => ({ admin: true }));
    app.get("/welcome", { preHandler: optionalSession() }, async (request) => ({ name: request.auth?.user.name ?? null }));
    app.all("/notes", { preHandler: requireSession() }, async () => ({ notes: [] }));
    app.setNotFoundHandler(sessionAuth.notFound({ resources }));
    app.setErrorHandler(sessionAuth.errorHandler());
    await app.ready();
    return { server: app.server, events };
  }
  if (binding === "fetch") return { server: fetchApp({ ...options, ...(trustProxy === undefined ? {} : { trustProxy }) }, resources), events };
  const sessionAuth = createSessionAuthMiddleware({ ...options, ...(trustProxy === undefined ? {} : { trustProxy }) });
  const { requireSession, optionalSession } = sessionAuth;
  const app = new Hono({ getPath: sessionAuth.getPath });
  app.use(sessionAuth);
  app.get("/services/json/players", requireSession(), (c) => c.json({ players: ["Ana"], uid: c.var.auth?.user.uid }));
  app.post("/services/json/players", requireSession(), (c) => c.json({ added: true }));
  app.post("/services/json/open", requireSession({ csrf: false }), (c) => c.json({ open: true }));
  app.get("/services/json/admin", requireSession({ roles: ["administrator"] }), (c) => c.json({ admin: true }));
  app.get("/welcome", optionalSession(), (c) => c.json({ name: c.var.auth?.user.name ?? null }));
  app.all("/notes", requireSession(), (c) => c.json({ notes: [] }));
  app.notFound(sessionAuth.notFound({ resources }));
  app.onError(sessionAuth.onError());
  return { server: serveFetch((request, incoming) => app.fetch(request, { incoming })), events };
}

/** The app's routes on fetch, by method and path (`*` for any method): the guard, and the body it answers once let through. */
type FetchRoutes = Record<string, readonly [FetchGuard<RequestAuth | undefined>, (auth: RequestAuth | undefined) => unknown]>;

/** {@link bindingApp}'s app on the fetch handler: the Services calls first, then the app's routes behind their guards, else Services' 404s. */
function fetchApp(options: FetchSessionAuthOptions, resources: string[]): Server {
  const sessionAuth = createSessionAuthHandler(options);
  const { requireSession, optionalSession } = sessionAuth;
  const routes: FetchRoutes = {
    "GET /services/json/players": [requireSession(), (auth) => ({ players: ["Ana"], uid: auth?.user.uid })],
    "POST /services/json/players": [requireSession(), () => ({ added: true })],
    "POST /services/json/open": [requireSession({ csrf: false }), () => ({ open: true })],
    "GET /services/json/admin": [requireSession({ roles: ["administrator"] }), () => ({ admin: true })],
    "GET /welcome": [optionalSession(), (auth) => ({ name: auth?.user.name ?? null })],
    "* /notes": [requireSession(), () => ({ notes: [] })],
  };
  const notFound = sessionAuth.notFound({ resources });
  return serveFetch(async (request, incoming) => {
    const env = { incoming };
    try {
      const answered = await sessionAuth.handle(request, env);
      if (answered !== undefined) return answered;
      const path = sessionAuth.routedPath(request);
      const method = request.method === "HEAD" ? "GET" : request.method;
      const route = routes[`${method} ${path}`] ?? routes[`* ${path}`];
      if (route === undefined) return notFound(request, env);
      const [guard, body] = route;
      const result = await guard(request, env);
      if (result.response !== undefined) return result.response;
      return sessionAuth.withHeaders(Response.json(body(result.auth)), result.headers);
    } catch (error) {
      return sessionAuth.errorResponse(error, request, env);
    }
  });
}
