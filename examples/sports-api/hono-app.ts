import { Hono } from "hono";
import { openApiDocument, reasonPhrase, type GuardedRoute } from "services-session-auth";
import { z } from "zod";
import { honoSessionAuth, type SessionAuthEnv } from "../recipes/hono.js";
import { sessionListItem, sportsAuthOptions, SPORTS_RESOURCES, type SportsApiConfig } from "./app.js";
import { courseSchema, courses, eventSchema, events, playerSchema, players } from "./data.js";
import { pageFiles } from "./page.js";

function reply(status: number, value: unknown, statusText?: string): Response {
  // application/json exactly, as the auth calls answer; statusText is the status line's reason phrase.
  return new Response(JSON.stringify(value), { status, statusText, headers: { "Content-Type": "application/json" } });
}

/**
 * The sports API of app.ts on Hono, through `services-session-auth/fetch`: the same page,
 * routes, OpenAPI document and replies. Serve it with serve-fetch.ts, which keeps Services'
 * reason phrases on the status line (@hono/node-server writes Node's own).
 */
export function createHonoApp(config: SportsApiConfig): Hono<SessionAuthEnv> {
  // Behind a TLS-terminating proxy, the scheme comes from X-Forwarded-Proto.
  const options = sportsAuthOptions(config);
  const { sessionAuth, services, requireSession } = honoSessionAuth({ ...options, trustProxy: config.trustProxy !== undefined && config.trustProxy !== false });
  const signedIn = requireSession();
  const admin = requireSession({ roles: ["administrator"] });
  const app = new Hono<SessionAuthEnv>({ getPath: (request) => sessionAuth.routedPath(request) });
  app.use(services);
  // Express and Fastify refuse a path they cannot percent-decode before any route runs; Hono
  // routes it as it is. The same 400 here (errorResponse answers a URIError as a malformed request).
  app.use(async (c, next) => {
    decodeURIComponent(sessionAuth.routedPath(c.req.raw));
    await next();
  });

  for (const { path, body, headers } of pageFiles()) app.get(path, () => new Response(body, { headers }));

  const routes: GuardedRoute[] = [];
  const collections = [
    ["players", players, playerSchema],
    ["events", events, eventSchema],
    ["courses", courses, courseSchema],
  ] as const;
  for (const [name, rows, schema] of collections) {
    for (const path of [`/services/json/${name}`, `/services/json/${name}.json`]) app.get(path, signedIn, () => reply(200, rows));
    app.get(`/services/json/${name}/:id`, signedIn, (c) => {
      const id = c.req.param("id");
      const row = (rows as readonly { id: number }[]).find((item) => String(item.id) === id.replace(/\.json$/, ""));
      if (row !== undefined) return reply(200, row);
      const message = `Could not find ${name} ${id}.`;
      return reply(404, [message], reasonPhrase(404, message));
    });
    routes.push(
      { method: "get", path: `/services/json/${name}`, summary: `All ${name}`, response: z.array(schema) },
      {
        method: "get",
        path: `/services/json/${name}/{id}`,
        summary: `One of the ${name}`,
        response: schema,
        responses: { 404: `No such id among the ${name}.` },
      },
    );
  }

  app.get("/services/json/sessions", signedIn, async (c) => {
    const auth = c.var.auth!;
    const sessions = await sessionAuth.listSessions(auth.user.uid);
    return reply(
      200,
      sessions.map(({ handle, record }) => ({ id: handle, current: handle === auth.session.handle, ...record })),
    );
  });
  app.post("/services/json/sessions/revoke-all", signedIn, async (c) => reply(200, { ended: await sessionAuth.endUserSessions(c.var.auth!.user.uid) }));
  app.get("/services/json/admin/stats", admin, () => reply(200, { players: players.length, events: events.length, courses: courses.length }));
  routes.push(
    { method: "get", path: "/services/json/sessions", summary: "The signed-in user's sessions", response: z.array(sessionListItem) },
    { method: "post", path: "/services/json/sessions/revoke-all", summary: "Log out everywhere", response: z.object({ ended: z.number().int() }) },
    {
      method: "get",
      path: "/services/json/admin/stats",
      summary: "Counts (administrators)",
      roles: ["administrator"],
      response: z.record(z.string(), z.number().int()),
    },
  );

  const document = openApiDocument({ auth: options, info: { title: "Sports API", version: "1.0.0" }, routes });
  app.get("/openapi.json", () => reply(200, document));

  const notFound = sessionAuth.notFound({ resources: SPORTS_RESOURCES });
  app.notFound((c) => notFound(c.req.raw));
  app.onError((error, c) => sessionAuth.errorResponse(error, c.req.raw));
  return app;
}
