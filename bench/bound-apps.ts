/**
 * The package's guarded GET on each framework, mounted as the README's quick start mounts it
 * (the same calls, in the same order, the not-found and error handlers included), over the
 * memory stores and a hasher that costs nothing. The guarded route is at `path`.
 */
import type { Server } from "node:http";
import express, { type Express } from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { createAdaptorServer } from "@hono/node-server";
import type { PasswordHasher, SessionAuthOptions } from "services-session-auth";
import { core, expressBinding, fastify, fetchHandler, hono } from "./built.js";
import { nodeFetchServer } from "./node-fetch.js";
import { payload } from "./peer-apps.js";
import { BENCH_NAME, BENCH_PASSWORD, SECRET } from "./shared.js";

const { memoryCounterStore, memorySessionStore, memoryUserStore } = core;
const { createSessionAuthRouter } = expressBinding;

/** The options every binding gets: the memory stores, as the quick starts have them. */
async function options(hasher: PasswordHasher): Promise<SessionAuthOptions> {
  const userStore = memoryUserStore([{ name: BENCH_NAME, password: BENCH_PASSWORD }], { hasher });
  await userStore.ready;
  return { userStore, sessionStore: memorySessionStore(), secret: SECRET, hasher, counterStore: memoryCounterStore() };
}

/** Express, as the README's quick start. */
export async function ourExpressApp(path: string, hasher: PasswordHasher): Promise<Express> {
  const sessionAuth = createSessionAuthRouter(await options(hasher));
  const app = express();
  app.use(sessionAuth);
  app.get(path, sessionAuth.requireSession(), (_req, res) => void res.json(payload));
  app.use("/services/json", sessionAuth.notFound({ resources: ["players"] }));
  app.use(sessionAuth.notFound());
  app.use(sessionAuth.errorHandler());
  return app;
}

/** Fastify, as the README's quick start: the plugin, `requireSession()` as the route's preHandler. */
export async function ourFastifyApp(path: string, hasher: PasswordHasher): Promise<Server> {
  const sessionAuth = fastify.createSessionAuthPlugin(await options(hasher));
  const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl });
  await app.register(sessionAuth);
  app.get(path, { preHandler: sessionAuth.requireSession() }, async () => payload);
  app.setNotFoundHandler(sessionAuth.notFound({ resources: ["players"] }));
  app.setErrorHandler(sessionAuth.errorHandler());
  await app.ready();
  return app.server;
}

/** Hono on @hono/node-server, as the README's quick start. */
export async function ourHonoApp(path: string, hasher: PasswordHasher): Promise<Server> {
  const sessionAuth = hono.createSessionAuthMiddleware(await options(hasher));
  const app = new Hono({ getPath: sessionAuth.getPath });
  app.use("/services/*", sessionAuth);
  app.get(path, sessionAuth.requireSession(), (c) => c.json(payload));
  app.notFound(sessionAuth.notFound({ resources: ["players"] }));
  app.onError(sessionAuth.onError());
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

/** The fetch handler on `node:http`, as the README's program: the Services calls, the guarded route, the not-found answer. */
export async function ourFetchApp(path: string, hasher: PasswordHasher): Promise<Server> {
  const sessionAuth = fetchHandler.createSessionAuthHandler(await options(hasher));
  const requireSession = sessionAuth.requireSession();
  const notFound = sessionAuth.notFound({ resources: ["players"] });
  return nodeFetchServer(
    async (request, incoming) => {
      const client = { incoming };
      const services = await sessionAuth.handle(request, client);
      if (services) return services;
      if (request.method === "GET" && sessionAuth.routedPath(request) === path) {
        const result = await requireSession(request, client);
        if (result.response) return result.response;
        return sessionAuth.withHeaders(Response.json(payload), result.headers);
      }
      return notFound(request, client);
    },
    (error, request) => sessionAuth.errorResponse(error, request),
  );
}
