import type { Server } from "node:http";
import { createServer } from "node:http";
import { createApp, type SportsApiConfig } from "./app.js";
import { createFastifyApp } from "./fastify-app.js";
import { createHonoApp } from "./hono-app.js";
import { serveFetch } from "./serve-fetch.js";

/** The frameworks the example runs on (`EXAMPLE_FRAMEWORK`): Express, the default; Fastify; Hono through the fetch handler. */
export const EXAMPLE_FRAMEWORKS = ["express", "fastify", "hono"] as const;
export type ExampleFramework = (typeof EXAMPLE_FRAMEWORKS)[number];

/** `EXAMPLE_FRAMEWORK` checked: unset or blank is Express; anything else unknown is an error that names the choices. */
export function exampleFramework(value: string | undefined): ExampleFramework {
  const name = value?.trim() || "express";
  if (!(EXAMPLE_FRAMEWORKS as readonly string[]).includes(name)) throw new TypeError(`EXAMPLE_FRAMEWORK must be one of ${EXAMPLE_FRAMEWORKS.join(", ")}, not "${name}"`);
  return name as ExampleFramework;
}

/** The sports API on one framework, as a Node server not yet listening. */
export async function sportsApiServer(framework: ExampleFramework, config: SportsApiConfig): Promise<Server> {
  if (framework === "fastify") {
    const app = await createFastifyApp(config);
    await app.ready();
    return app.server;
  }
  if (framework === "hono") {
    const app = createHonoApp(config);
    // env.incoming: what @hono/node-server would give, so getConnInfo(c) finds the socket.
    return serveFetch((request, incoming) => app.fetch(request, { incoming }));
  }
  return createServer(createApp(config));
}
