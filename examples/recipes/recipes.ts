/**
 * The README's quick start and recipes as code that compiles and runs:
 * test/examples/recipes.test.ts drives each one, and test/readme.test.ts checks that every
 * line of the README's snippets is a line of this file (or of the example app).
 */
import express, { type Express, type RequestHandler } from "express";
import { createClient } from "redis";
import { createSessionAuth, memorySessionStore, memoryUserStore, type SessionAuth, type SessionAuthOptions, type UserStore } from "services-session-auth";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
import { players } from "../sports-api/data.js";

/** Quick start: the smallest app, with one account in memory. */
export function quickStartApp(): Express {
  const auth = createSessionAuth({
    userStore: memoryUserStore([{ name: "demo", password: "demo-password", mail: "demo@example.com" }]),
    sessionStore: memorySessionStore(),
    secret: process.env.SESSION_SECRET!, // 32+ characters, the same on every instance
  });

  const app = express();
  app.use("/services/json", auth.router());
  app.all("/services/session/token", auth.tokenHandler());
  app.get("/services/json/players", auth.requireSession(), (req, res) => res.json(players));
  app.use("/services/json", auth.notFound({ resources: ["players"] })); // Services' 404s, not Express's HTML page
  app.use(auth.notFound()); // and a body-less 404 on every other path
  app.use(auth.errorHandler()); // last: errors in the wire format, never a stack trace
  return app;
}

/** Recipe: protect a route. A GET needs the session cookie; a POST also its X-CSRF-Token. */
export function protectARoute(app: Express, auth: SessionAuth, addPlayer: RequestHandler): void {
  app.get("/services/json/me", auth.requireSession(), (req, res) => {
    const { user, session } = req.auth!; // typed: RequestAuth, never the password hash
    res.json({ name: user.name, roles: Object.values(user.roles), since: session.record.createdAt });
  });
  app.post("/services/json/players", auth.requireSession(), addPlayer);
}

/** Recipe: require a role. */
export function requireARole(app: Express, auth: SessionAuth): void {
  const adminOnly = auth.requireSession({ roles: ["administrator"] });
  app.get("/services/json/admin/stats", adminOnly, (_req, res) => res.json({ players: players.length }));
}

/** Recipe: log out everywhere (every device of the signed-in user). */
export function logOutEverywhere(app: Express, auth: SessionAuth): void {
  app.post("/services/json/sessions/revoke-all", auth.requireSession(), async (req, res) => {
    res.json({ ended: await auth.endUserSessions(req.auth!.user.uid) });
  });
}

/** Recipe: use Redis, so every instance shares sessions and login throttling. */
export async function redisAuth(userStore: UserStore): Promise<{ options: SessionAuthOptions; close(): Promise<void> }> {
  const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
  const options = {
    userStore,
    secret: process.env.SESSION_SECRET!,
    sessionStore: redisSessionStore({ client, prefix: "myapp:" }),
    counterStore: redisCounterStore({ client, prefix: "myapp:c:" }), // login throttling shared by every instance
  };
  return { options, close: async () => void (await client.quit()) };
}
