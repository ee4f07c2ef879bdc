import express, { type Express } from "express";
import request from "supertest";
import {
  memoryCounterStore,
  memorySessionStore,
  memoryUserStore,
  scryptHasher,
  type AuthEvent,
  type MemoryUserInput,
  type SessionAuthOptions,
} from "services-session-auth";
import { createSessionAuthRouter, type SessionAuthRouter } from "services-session-auth/express";

/** A fixed secret of the required length, for tests only. */
export const SECRET = "test-secret-0123456789-abcdefghijklmnop";

/** A cheap scrypt for tests: the default (N=2^17) costs ~0.6 s per hash. */
export const fastHasher = scryptHasher({ logN: 10, r: 8, p: 1 });

export const USERS: MemoryUserInput[] = [
  { uid: "1", name: "admin", password: "admin-password", mail: "admin@example.com", roles: ["administrator"] },
  { uid: "14", name: "demo", password: "demo-password", mail: "demo@example.com" },
  { uid: "15", name: "blocked", password: "blocked-password", mail: "blocked@example.com", active: false },
  { uid: "16", name: "O'Brien <b>", password: "obrien-password", mail: "ob@example.com" },
];

/** Builds the app every wire test drives: the router at /services/json, the token call, a protected route. */
export function createTestApp(
  overrides: Partial<SessionAuthOptions> = {},
  users: MemoryUserInput[] = USERS,
  /** More routes, mounted before the 404 and error handlers that end the app. */
  routes?: (app: Express, auth: SessionAuthRouter, options: SessionAuthOptions) => void,
) {
  const events: AuthEvent[] = [];
  const sessionStore = memorySessionStore();
  const counterStore = memoryCounterStore();
  const userStore = memoryUserStore(users, { hasher: fastHasher });
  const options: SessionAuthOptions = {
    userStore,
    sessionStore,
    counterStore,
    secret: SECRET,
    // supertest serves each request on a new port, and Drupal's cookie name follows the host and port.
    baseUrl: "http://sports.test",
    hasher: fastHasher,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  const auth = createSessionAuthRouter(options);
  const app: Express = express();
  app.use(auth);
  app.get("/services/json/players", auth.requireSession(), (req, res) => {
    res.json({ players: ["Ana"], uid: req.auth?.user.uid });
  });
  app.post("/services/json/players", auth.requireSession(), (_req, res) => res.json({ added: true }));
  app.post("/services/json/open", auth.requireSession({ csrf: false }), (_req, res) => res.json({ open: true }));
  app.get("/services/json/players/:id", auth.requireSession(), (req, res) => res.json({ id: req.params.id }));
  app.get("/services/json/admin", auth.requireSession({ roles: ["administrator"] }), (_req, res) => res.json({ admin: true }));
  routes?.(app, auth, options);
  app.use("/services/json", auth.notFound({ resources: ["players", "open", "admin"] }));
  app.use(auth.notFound());
  app.use(auth.errorHandler());
  return { app, agent: request(app), auth, options, sessionStore, userStore, counterStore, events };
}

/** What supertest drives: an app or server, or the agent made from one. */
export type Target = Parameters<typeof request>[0] | ReturnType<typeof request>;

/** Logs in (a form body, as jDrupal sends it) and returns the reply body and a ready Cookie header. */
export async function login(target: Target, name = "demo", password = "demo-password") {
  const agent = typeof target === "object" && !("listen" in target) && "post" in target ? target : request(target as Parameters<typeof request>[0]);
  const res = await agent.post("/services/json/user/login.json").type("form").send({ username: name, password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  const body = res.body as { sessid: string; session_name: string; token: string; user: Record<string, unknown> };
  return { ...body, cookie: `${body.session_name}=${body.sessid}`, res };
}

/** The reason phrase of a supertest response's status line. */
export function statusText(res: request.Response): string {
  return (res as unknown as { res: { statusMessage: string } }).res.statusMessage;
}

/** The Set-Cookie headers of a response, as an array. */
export function setCookies(res: request.Response): string[] {
  const value = res.headers["set-cookie"] as unknown;
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as string[]) : [String(value)];
}

/** The `name=value` pair of the device cookie a login reply set, ready for a Cookie header. */
export function deviceCookieOf(res: request.Response, name = "ssa_device"): string {
  const header = setCookies(res).find((value) => value.startsWith(`${name}=`));
  if (header === undefined) throw new Error(`no ${name} cookie in ${JSON.stringify(setCookies(res))}`);
  return header.slice(0, header.indexOf(";"));
}
