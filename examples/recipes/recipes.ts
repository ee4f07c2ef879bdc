/**
 * The README's recipes as code that compiles and runs: test/examples/recipes.test.ts drives
 * each one, and test/readme.test.ts checks that every line of the README's snippets is a line
 * of this file (or of the example app).
 */
import type { Express, RequestHandler } from "express";
import type { Logger } from "pino";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthRouter, type SessionAuthRouter } from "services-session-auth/express";
import { ioredisCounterStore, ioredisSessionStore } from "services-session-auth/ioredis";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
import { players } from "../sports-api/data.js";
import { pinoAuditEvents } from "./pino-events.js";

/** Recipe: protect a route. A GET needs the session cookie; a POST also its X-CSRF-Token. */
export function protectARoute(app: Express, sessionAuth: SessionAuthRouter, addPlayer: RequestHandler): void {
  app.get("/services/json/me", sessionAuth.requireSession(), (req, res) => {
    const { user, session } = req.auth!; // typed: RequestAuth, never the password hash
    res.json({ name: user.name, roles: Object.values(user.roles), since: session.record.createdAt });
  });
  app.post("/services/json/players", sessionAuth.requireSession(), addPlayer);
}

/** Recipe: require a role. */
export function requireARole(app: Express, sessionAuth: SessionAuthRouter): void {
  const adminOnly = sessionAuth.requireSession({ roles: ["administrator"] });
  app.get("/services/json/admin/stats", adminOnly, (_req, res) => res.json({ players: players.length }));
}

/** Recipe: log out everywhere (every device of the signed-in user). */
export function logOutEverywhere(app: Express, sessionAuth: SessionAuthRouter): void {
  app.post("/services/json/sessions/revoke-all", sessionAuth.requireSession(), async (req, res) => {
    res.json({ ended: await sessionAuth.endUserSessions(req.auth!.user.uid) });
  });
}

/**
 * Recipe: use Redis, so every instance shares sessions and login throttling. An async function
 * the app awaits as it starts: a CommonJS module has no top-level `await`.
 */
export async function redisStores() {
  const client = await createClient({
    url: process.env.REDIS_URL,
    disableOfflineQueue: true, // fail at once while Redis is unreachable, instead of queueing
    pingInterval: 500, // an idle connection stays busy, so socketTimeout ends only a silent one
    socket: { connectTimeout: 1000, socketTimeout: 1000, keepAlive: true, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 500) },
  }).connect();
  const sessionStore = redisSessionStore({ client, prefix: "myapp:" });
  const counterStore = redisCounterStore({ client, prefix: "myapp:c:" }); // login throttling shared by every instance
  return { sessionStore, counterStore, close: () => client.quit() };
}

/** Recipe: use Redis through the ioredis client an app already runs (a `Cluster` works the same). */
export async function ioredisStores() {
  const client = new Redis(process.env.REDIS_URL!, {
    lazyConnect: true,
    enableOfflineQueue: false, // fail at once while Redis is unreachable
    maxRetriesPerRequest: 0, // a command lost with its connection fails, and is never sent again later
    autoResendUnfulfilledCommands: false,
    socketTimeout: 1000, // no reply within 1 s of a command: reconnect
    connectTimeout: 1000,
    keepAlive: 1000,
  });
  await client.connect(); // without the offline queue, a command sent before "ready" fails
  const sessionStore = ioredisSessionStore({ client, prefix: "myapp:" });
  const counterStore = ioredisCounterStore({ client, prefix: "myapp:c:" });
  return { sessionStore, counterStore, close: () => client.quit() };
}

/** Recipe: log audit events (and the errors answered with a 500) with pino. */
export function pinoLoggedAuth(options: SessionAuthOptions, logger: Logger): { sessionAuth: SessionAuthRouter; finish(app: Express): void } {
  const sessionAuth = createSessionAuthRouter({ ...options, onEvent: pinoAuditEvents(logger) });
  // internal.error already reaches pino through onEvent, with its request id: no second log.
  const finish = (app: Express) => void app.use(sessionAuth.errorHandler({ log: false }));
  return { sessionAuth, finish };
}
