import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { reasonPhrase } from "services-session-auth";
import { createSessionAuthPlugin } from "services-session-auth/fastify";
import { COLLECTIONS, rowById, sportsApiDocument, sportsAuthOptions, sportsStats, SPORTS_RESOURCES, type SportsApiConfig } from "./app.js";
import { pageFiles } from "./page.js";

function reply(res: FastifyReply, status: number, value: unknown): FastifyReply {
  // A Buffer with its own Content-Type: Fastify adds no "; charset=utf-8", so the app's replies look like the auth calls'.
  return res
    .code(status)
    .header("Content-Type", "application/json")
    .send(Buffer.from(JSON.stringify(value)));
}

/** TRUST_PROXY as Fastify takes it: a hop count as a function of the hop, as Express reads the number. */
function fastifyTrust(setting: boolean | number | string): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof setting === "number" ? (_address, hop) => hop < setting : setting;
}

/** The sports API of app.ts on Fastify: the same page, routes, OpenAPI document and replies. */
export async function createFastifyApp(config: SportsApiConfig, tls?: { readonly cert: Buffer; readonly key: Buffer }): Promise<FastifyInstance> {
  const options = sportsAuthOptions(config);
  const sessionAuth = createSessionAuthPlugin(options);
  // Served over HTTPS by Fastify itself when given a certificate; its types tie the instance to the server kind, the routes do not care.
  const app = Fastify({
    ...(tls === undefined ? {} : { https: { cert: tls.cert, key: tls.key } }),
    // Drupal's ?q= paths, and Fastify's own errors (an undecodable path) in the wire format.
    rewriteUrl: sessionAuth.rewriteUrl,
    frameworkErrors: sessionAuth.errorHandler(),
    // Node's default, which Fastify sets to 0: a body that never finishes gets a 408, as on Express.
    requestTimeout: 300_000,
    // Fastify 5 refuses a bare hop count (it trusts nothing then): the same count as a function of the hop.
    ...(config.trustProxy === undefined ? {} : { trustProxy: fastifyTrust(config.trustProxy) }),
  }) as unknown as FastifyInstance;
  await app.register(sessionAuth);
  const signedIn = sessionAuth.requireSession();
  const admin = sessionAuth.requireSession({ roles: ["administrator"] });

  for (const { path, body, headers } of pageFiles()) app.get(path, async (_request, res) => res.headers(headers).send(body));

  for (const [name, rows] of COLLECTIONS) {
    for (const path of [`/services/json/${name}`, `/services/json/${name}.json`])
      app.get(path, { preHandler: signedIn }, async (_request, res) => reply(res, 200, rows));
    app.get<{ Params: { id: string } }>(`/services/json/${name}/:id`, { preHandler: signedIn }, async (request, res) => {
      const id = request.params.id;
      const row = rowById(rows, id);
      if (row !== undefined) return reply(res, 200, row);
      const message = `Could not find ${name} ${id}.`;
      res.raw.statusMessage = reasonPhrase(404, message);
      return reply(res, 404, [message]);
    });
  }

  app.get("/services/json/sessions", { preHandler: signedIn }, async (request, res) => {
    const sessions = await sessionAuth.listSessions(request.auth!.user.uid);
    return reply(
      res,
      200,
      sessions.map(({ handle, record }) => ({ id: handle, current: handle === request.auth!.session.handle, ...record })),
    );
  });
  app.post("/services/json/sessions/revoke-all", { preHandler: signedIn }, async (request, res) =>
    reply(res, 200, { ended: await sessionAuth.endUserSessions(request.auth!.user.uid) }),
  );
  app.get("/services/json/admin/stats", { preHandler: admin }, async (_request, res) => reply(res, 200, sportsStats()));

  const document = sportsApiDocument(options);
  app.get("/openapi.json", async (_request, res) => reply(res, 200, document));

  app.setNotFoundHandler(sessionAuth.notFound({ resources: SPORTS_RESOURCES }));
  app.setErrorHandler(sessionAuth.errorHandler());
  return app;
}
