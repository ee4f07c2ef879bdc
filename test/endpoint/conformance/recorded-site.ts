import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import Fastify from "fastify";
import { memoryCounterStore, memorySessionStore, memoryUserStore, type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { createSessionAuthHandler } from "services-session-auth/fetch";
import { createSessionAuthPlugin } from "services-session-auth/fastify";
import { Hono } from "hono";
import { createSessionAuthMiddleware } from "services-session-auth/hono";
import { fastHasher, SECRET } from "../../helpers/app.js";
import type { Framework } from "../../helpers/frameworks.js";
import { serveFetch } from "../../../examples/sports-api/serve-fetch.js";

/** What the standard install profile's rdf module adds to every user object (`user_rdf_mapping`). */
const RDF_MAPPING = { rdftype: ["sioc:UserAccount"], name: { predicates: ["foaf:name"] }, homepage: { predicates: ["foaf:page"], type: "rel" } };

/** A site listening on loopback, and how to stop it. */
export interface RunningSite {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A site configured like the recorded one (the transcript README's "What answered"): the
 * endpoint `services/json` named "oracle", the JSON and form-urlencoded parsers only, the
 * accounts admin (uid 1, administrator, timezone UTC), demo and blocked (status 0), with
 * the rdf module's mapping as a Drupal user store would supply it. `?q=` routing, the
 * session token call and Services' own 404s are mounted as the example app mounts them,
 * on the given framework: the Express router, the Fastify plugin, the Hono middleware or the
 * fetch handler (those two served by node:http, see {@link serveFetch}). Like the recording kit's router, each
 * trusts a loopback proxy's `X-Forwarded-Proto: https`: the HTTPS recording is replayed so.
 */
export async function recordedSite(framework: Framework): Promise<RunningSite> {
  const userStore = memoryUserStore(
    [
      {
        uid: "1",
        name: "admin",
        password: "admin-password",
        mail: "admin@example.com",
        roles: ["administrator"],
        fields: { timezone: "UTC", rdf_mapping: RDF_MAPPING },
      },
      { uid: "2", name: "demo", password: "demo-password", mail: "demo@example.com", fields: { rdf_mapping: RDF_MAPPING } },
      { uid: "3", name: "blocked", password: "blocked-password", mail: "blocked@example.com", active: false, fields: { rdf_mapping: RDF_MAPPING } },
    ],
    { hasher: fastHasher },
  );
  await userStore.ready;
  const sessionStore = memorySessionStore();
  const options: SessionAuthOptions = {
    userStore,
    sessionStore,
    counterStore: memoryCounterStore(),
    secret: SECRET,
    hasher: fastHasher,
    endpointName: "oracle",
    parsers: ["application/json", "application/x-www-form-urlencoded"],
  };
  const stop = (server: Server) => async () => {
    sessionStore.close();
    await new Promise((resolve) => server.close(resolve));
  };

  if (framework === "fastify") {
    const sessionAuth = createSessionAuthPlugin(options);
    const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl, trustProxy: "loopback" });
    await app.register(sessionAuth);
    app.setNotFoundHandler(sessionAuth.notFound());
    app.setErrorHandler(sessionAuth.errorHandler());
    await app.listen({ port: 0, host: "127.0.0.1" });
    return {
      port: (app.server.address() as AddressInfo).port,
      close: async () => {
        sessionStore.close();
        await app.close();
      },
    };
  }

  let server: Server;
  if (framework === "fetch") {
    const sessionAuth = createSessionAuthHandler({ ...options, trustProxy: "loopback" });
    const notFound = sessionAuth.notFound();
    server = serveFetch(async (request, incoming) => {
      try {
        return (await sessionAuth.handle(request, { incoming })) ?? notFound(request);
      } catch (error) {
        return sessionAuth.errorResponse(error, request);
      }
    });
  } else if (framework === "hono") {
    const sessionAuth = createSessionAuthMiddleware({ ...options, trustProxy: "loopback" });
    const app = new Hono({ getPath: sessionAuth.getPath });
    app.use(sessionAuth);
    app.notFound(sessionAuth.notFound());
    app.onError(sessionAuth.onError());
    server = serveFetch((request, incoming) => app.fetch(request, { incoming }));
  } else {
    const auth = createSessionAuthRouter(options);
    const app = express();
    app.disable("x-powered-by");
    app.set("trust proxy", "loopback");
    app.use(auth);
    app.use("/services/json", auth.notFound());
    app.use(auth.errorHandler());
    server = app.listen(0, "127.0.0.1");
  }
  if (!server.listening) {
    if (framework === "fetch" || framework === "hono") server.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
  }
  return { port: (server.address() as AddressInfo).port, close: stop(server) };
}
