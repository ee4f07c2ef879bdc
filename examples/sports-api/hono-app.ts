import { Hono } from "hono";
import { reasonPhrase } from "services-session-auth";
import { createSessionAuthMiddleware } from "services-session-auth/hono";
import { COLLECTIONS, rowById, sportsApiDocument, sportsAuthOptions, sportsStats, SPORTS_RESOURCES, type SportsApiConfig } from "./app.js";
import { pageFiles } from "./page.js";

function reply(status: number, value: unknown, statusText?: string): Response {
  // application/json exactly, as the auth calls answer; statusText is the status line's reason phrase.
  return new Response(JSON.stringify(value), { status, statusText, headers: { "Content-Type": "application/json" } });
}

/**
 * The sports API of app.ts on Hono, through `services-session-auth/hono`: the same page,
 * routes, OpenAPI document and replies. Serve it with serve-fetch.ts, which keeps Services'
 * reason phrases on the status line (@hono/node-server writes Node's own).
 */
export function createHonoApp(config: SportsApiConfig): Hono {
  // Behind the proxies TRUST_PROXY names, the scheme comes from X-Forwarded-Proto and the client from X-Forwarded-For, as on Express.
  const options = sportsAuthOptions(config);
  const sessionAuth = createSessionAuthMiddleware({ ...options, ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }) });
  const signedIn = sessionAuth.requireSession();
  const admin = sessionAuth.requireSession({ roles: ["administrator"] });
  const app = new Hono({ getPath: sessionAuth.getPath });
  app.use(sessionAuth);
  // Express and Fastify refuse a path they cannot percent-decode before any route runs; Hono
  // routes it as it is. The same 400 here (onError answers a URIError as a malformed request).
  app.use(async (c, next) => {
    decodeURIComponent(new URL(c.req.url).pathname);
    await next();
  });

  for (const { path, body, headers } of pageFiles()) app.get(path, () => new Response(body, { headers }));

  for (const [name, rows] of COLLECTIONS) {
    for (const path of [`/services/json/${name}`, `/services/json/${name}.json`]) app.get(path, signedIn, () => reply(200, rows));
    app.get(`/services/json/${name}/:id`, signedIn, (c) => {
      const id = c.req.param("id");
      const row = rowById(rows, id);
      if (row !== undefined) return reply(200, row);
      const message = `Could not find ${name} ${id}.`;
      return reply(404, [message], reasonPhrase(404, message));
    });
  }

  app.get("/services/json/sessions", signedIn, async (c) => {
    const auth = c.var.auth;
    const sessions = await sessionAuth.listSessions(auth.user.uid);
    return reply(
      200,
      sessions.map(({ handle, record }) => ({ id: handle, current: handle === auth.session.handle, ...record })),
    );
  });
  app.post("/services/json/sessions/revoke-all", signedIn, async (c) => reply(200, { ended: await sessionAuth.endUserSessions(c.var.auth.user.uid) }));
  app.get("/services/json/admin/stats", admin, () => reply(200, sportsStats()));

  const document = sportsApiDocument(options);
  app.get("/openapi.json", () => reply(200, document));

  app.notFound(sessionAuth.notFound({ resources: SPORTS_RESOURCES }));
  app.onError(sessionAuth.onError());
  return app;
}
