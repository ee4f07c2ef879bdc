/**
 * The README's quick start and recipes as code that compiles and runs:
 * test/examples/recipes.test.ts drives each one, and test/readme.test.ts checks that every
 * line of the README's snippets is a line of this file (or of the example app).
 */
import express, { type Express, type RequestHandler } from "express";
import { createClient } from "redis";
import {
  createSessionAuthRouter,
  memorySessionStore,
  memoryUserStore,
  requireSession,
  servicesErrorHandler,
  servicesNotFound,
  sessionTokenHandler,
  type SessionAuthRouterOptions,
  type UserStore,
} from "services-session-auth";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
import { players } from "../sports-api/data.js";

/** Quick start: the smallest app, with one account in memory. */
export function quickStartApp(): Express {
  const auth = {
    userStore: memoryUserStore([{ name: "demo", password: "demo-password", mail: "demo@example.com" }]),
    sessionStore: memorySessionStore(),
    secret: process.env.SESSION_SECRET!, // 32+ characters, the same on every instance
  };

  const app = express();
  app.use("/services/json", createSessionAuthRouter(auth));
  app.all("/services/session/token", sessionTokenHandler(auth));
  app.get("/services/json/players", requireSession(auth), (req, res) => res.json(players));
  app.use("/services/json", servicesNotFound({ resources: ["players"] })); // Services' 404s, not Express's HTML page
  app.use(servicesNotFound()); // and a JSON 404 on every other path
  app.use(servicesErrorHandler()); // last: errors in the wire format, never a stack trace
  return app;
}

/** Recipe: protect a route. A GET needs the session cookie; a POST also its X-CSRF-Token. */
export function protectARoute(app: Express, auth: SessionAuthRouterOptions, addPlayer: RequestHandler): void {
  app.get("/services/json/me", requireSession(auth), (req, res) => {
    const { user, session } = req.auth!; // typed: RequestAuth, never the password hash
    res.json({ name: user.name, roles: Object.values(user.roles), since: session.record.createdAt });
  });
  app.post("/services/json/players", requireSession(auth), addPlayer);
}

/** Recipe: require a role. */
export function requireARole(app: Express, auth: SessionAuthRouterOptions): void {
  const adminOnly = requireSession({ ...auth, roles: ["administrator"] });
  app.get("/services/json/admin/stats", adminOnly, (_req, res) => res.json({ players: players.length }));
}

/** Recipe: log out everywhere (every device of the signed-in user). */
export function logOutEverywhere(app: Express, auth: SessionAuthRouterOptions): void {
  app.post("/services/json/sessions/revoke-all", requireSession(auth), async (req, res) => {
    res.json({ ended: await auth.sessionStore.destroyByUser(req.auth!.user.uid) });
  });
}

/** Recipe: use Redis, so every instance shares sessions and login throttling. */
export async function redisAuth(userStore: UserStore): Promise<{ auth: SessionAuthRouterOptions; close(): Promise<void> }> {
  const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
  const auth = {
    userStore,
    secret: process.env.SESSION_SECRET!,
    sessionStore: redisSessionStore({ client, prefix: "myapp:" }),
    counterStore: redisCounterStore({ client, prefix: "myapp:c:" }), // login throttling shared by every instance
  };
  return { auth, close: async () => void (await client.quit()) };
}
