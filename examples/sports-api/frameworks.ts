import type { Server } from "node:http";
import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createApp, type SportsApiConfig } from "./app.js";
import { createFastifyApp } from "./fastify-app.js";
import { createHonoApp } from "./hono-app.js";
import { serveFetch } from "./serve-fetch.js";

/** The frameworks the example runs on (`EXAMPLE_FRAMEWORK`): Express, the default; Fastify; Hono. */
export const EXAMPLE_FRAMEWORKS = ["express", "fastify", "hono"] as const;
export type ExampleFramework = (typeof EXAMPLE_FRAMEWORKS)[number];

/** `EXAMPLE_FRAMEWORK` checked: unset or blank is Express; anything else unknown is an error that names the choices. */
export function exampleFramework(value: string | undefined): ExampleFramework {
  const name = value?.trim() || "express";
  if (!(EXAMPLE_FRAMEWORKS as readonly string[]).includes(name))
    throw new TypeError(`EXAMPLE_FRAMEWORK must be one of ${EXAMPLE_FRAMEWORKS.join(", ")}, not "${name}"`);
  return name as ExampleFramework;
}

/** A certificate and its key (PEM), to serve HTTPS. */
export interface Tls {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** The sports API on one framework, as a Node server not yet listening; over HTTPS when `tls` is given. */
export async function sportsApiServer(framework: ExampleFramework, config: SportsApiConfig, tls?: Tls): Promise<Server> {
  if (framework === "fastify") {
    const app = await createFastifyApp(config, tls);
    await app.ready();
    return app.server;
  }
  if (framework === "hono") {
    const app = createHonoApp(config);
    // env.incoming: what @hono/node-server would give, so getConnInfo(c) finds the socket.
    return serveFetch((request, incoming) => app.fetch(request, { incoming }), tls);
  }
  const app = createApp(config);
  return tls === undefined ? createServer(app) : createHttpsServer(tls, app);
}
