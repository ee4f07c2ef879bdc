import express, { type Express, type Response } from "express";
import {
  openApiDocument,
  memorySessionStore,
  reasonPhrase,
  memoryUserStore,
  type AuthEvent,
  type GuardedRoute,
  type OpenApiObject,
  type MemoryUserStore,
  type PasswordHasher,
  type SessionAuthOptions,
  type SessionStore,
  type UserStore,
} from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { z } from "zod";
import { courseSchema, courses, eventSchema, events, playerSchema, players } from "./data.js";
import { demoPage } from "./page.js";

/** What the example app is configured with (from the environment in server.ts). */
export interface SportsApiConfig {
  readonly secret: string;
  /** @default demoUserStore(hasher) */
  readonly userStore?: UserStore;
  readonly sessionStore?: SessionStore;
  readonly hasher?: PasswordHasher;
  readonly extra?: Partial<SessionAuthOptions>;
  readonly log?: (line: string) => void;
  /**
   * Express's `trust proxy`, for a TLS-terminating proxy in front: `req.secure` (so the
   * cookie's `secure` flag and the `SSESS` name) then follows `X-Forwarded-Proto`, and
   * `req.ip` (what the login throttle counts) `X-Forwarded-For`. @default not set: no proxy trusted
   */
  readonly trustProxy?: boolean | number | string;
}

/**
 * `TRUST_PROXY` as Express's `trust proxy` takes it: `true`/`false`, a hop count, or the
 * proxies' addresses and names (`loopback`, `10.0.0.1, 10.0.0.2`). Unset or blank: none.
 */
export function trustProxySetting(value: string | undefined): boolean | number | string | undefined {
  const text = value?.trim() ?? "";
  if (text === "") return undefined;
  if (text === "true" || text === "false") return text === "true";
  return /^\d+$/.test(text) ? Number(text) : text;
}

/** The demo accounts: `demo` / `demo-password` and `admin` / `admin-password` (administrator). */
export const DEMO_USERS = [
  { name: "admin", password: "admin-password", mail: "admin@example.com", roles: ["administrator"] },
  { name: "demo", password: "demo-password", mail: "demo@example.com", roles: ["authenticated user"] },
] as const;

function reply(res: Response, status: number, value: unknown): void {
  // Node's own setHeader/end: Express's res.type/res.json would add "; charset=utf-8", and
  // the app's replies should look like the auth calls' to Drupal-era clients.
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify(value));
}

/** One entry of GET /services/json/sessions: the store's handle (a hash, safe to show) and the record. */
export const sessionListItem = z.object({
  id: z.string(),
  current: z.boolean(),
  uid: z.string(),
  createdAt: z.number().int(),
  lastSeenAt: z.number().int(),
  expiresAt: z.number().int(),
  ip: z.string(),
  userAgent: z.string(),
});

/** Logs an audit event as one JSON line; session handles are hashes, never raw ids. */
export function logEvent(log: (line: string) => void) {
  return (event: AuthEvent) => {
    const { type, timestamp, ...rest } = event;
    const safe = "err" in rest ? { ...rest, err: String(rest.err) } : rest;
    log(JSON.stringify({ at: new Date(timestamp).toISOString(), event: type, ...safe }));
  };
}

/** The demo accounts in a memory store; await its `ready` before serving. */
export function demoUserStore(hasher?: PasswordHasher): MemoryUserStore {
  return memoryUserStore(
    DEMO_USERS.map((user) => ({ ...user, roles: [...user.roles] })),
    hasher === undefined ? {} : { hasher },
  );
}

/** The package's options for the example, whichever framework serves it. */
export function sportsAuthOptions(config: SportsApiConfig): SessionAuthOptions {
  const log = config.log ?? ((line: string) => console.log(line));
  return {
    userStore: config.userStore ?? demoUserStore(config.hasher),
    sessionStore: config.sessionStore ?? memorySessionStore(),
    secret: config.secret,
    onEvent: logEvent(log),
    ...(config.hasher === undefined ? {} : { hasher: config.hasher }),
    ...config.extra,
  };
}

/** The resources of the example below the endpoint: a miss below them is `Could not find the controller.` */
export const SPORTS_RESOURCES = ["players", "events", "courses", "sessions", "admin"];

/** The collections under the endpoint, each with the schema of one row. */
export const COLLECTIONS = [
  ["players", players, playerSchema],
  ["events", events, eventSchema],
  ["courses", courses, courseSchema],
] as const;

/** The row an `:id` names (a `.json` suffix allowed), if there is one. */
export function rowById(rows: readonly { readonly id: number }[], id: string): unknown {
  return rows.find((item) => String(item.id) === id.replace(/\.json$/, ""));
}

/** What the administrators' route answers. */
export function sportsStats(): Record<string, number> {
  return { players: players.length, events: events.length, courses: courses.length };
}

/**
 * Every guarded route of the sports API, on every framework, as the OpenAPI document describes
 * it (the `.json` aliases left out); test/openapi/openapi.test.ts drives each one.
 */
export const SPORTS_ROUTES: readonly GuardedRoute[] = [
  ...COLLECTIONS.flatMap(([name, , schema]): GuardedRoute[] => [
    { method: "get", path: `/services/json/${name}`, summary: `All ${name}`, response: z.array(schema) },
    {
      method: "get",
      path: `/services/json/${name}/{id}`,
      summary: `One of the ${name}`,
      response: schema,
      responses: { 404: `No such id among the ${name}.` },
    },
  ]),
  { method: "get", path: "/services/json/sessions", summary: "The signed-in user's sessions", response: z.array(sessionListItem) },
  { method: "post", path: "/services/json/sessions/revoke-all", summary: "Log out everywhere", response: z.object({ ended: z.number().int() }) },
  {
    method: "get",
    path: "/services/json/admin/stats",
    summary: "Counts (administrators)",
    roles: ["administrator"],
    response: z.record(z.string(), z.number().int()),
  },
];

/** The sports API's OpenAPI document, under the router's own options. */
export function sportsApiDocument(options: SessionAuthOptions): OpenApiObject {
  return openApiDocument({ auth: options, info: { title: "Sports API", version: "1.0.0" }, routes: SPORTS_ROUTES });
}

/** Builds the sports API: the demo page at /, Services auth at /services/json, protected players/events/courses. */
export function createApp(config: SportsApiConfig): Express {
  const options = sportsAuthOptions(config);
  const auth = createSessionAuthRouter(options);
  const signedIn = auth.requireSession();
  const admin = auth.requireSession({ roles: ["administrator"] });

  const app = express();
  app.disable("x-powered-by");
  if (config.trustProxy !== undefined) app.set("trust proxy", config.trustProxy);
  app.use(auth);
  app.use(demoPage());

  // Each guarded route below is described in SPORTS_ROUTES, for the OpenAPI document.
  for (const [name, rows] of COLLECTIONS) {
    app.get([`/services/json/${name}`, `/services/json/${name}.json`], signedIn, (_req, res) => reply(res, 200, rows));
    app.get(`/services/json/${name}/:id`, signedIn, (req, res) => {
      const id = String(req.params.id);
      const row = rowById(rows, id);
      if (row !== undefined) return reply(res, 200, row);
      // The id is the client's: reasonPhrase keeps CR/LF, controls and length out of the status line.
      const message = `Could not find ${name} ${id}.`;
      res.statusMessage = reasonPhrase(404, message);
      reply(res, 404, [message]);
    });
  }

  // Recipe: a user's own devices, and "log out everywhere".
  app.get("/services/json/sessions", signedIn, async (req, res) => {
    const sessions = await auth.listSessions(req.auth!.user.uid);
    reply(
      res,
      200,
      sessions.map(({ handle, record }) => ({ id: handle, current: handle === req.auth!.session.handle, ...record })),
    );
  });
  app.post("/services/json/sessions/revoke-all", signedIn, async (req, res) => {
    reply(res, 200, { ended: await auth.endUserSessions(req.auth!.user.uid) });
  });
  // Recipe: a role-protected route.
  app.get("/services/json/admin/stats", admin, (_req, res) => reply(res, 200, sportsStats()));

  const document = sportsApiDocument(options);
  app.get("/openapi.json", (_req, res) => reply(res, 200, document));

  // Last: Services' own 404 below the endpoint, Drupal's 404 status line everywhere else,
  // and no HTML error page (or stack trace) on any path.
  app.use("/services/json", auth.notFound({ resources: SPORTS_RESOURCES }));
  app.use(auth.notFound());
  app.use(auth.errorHandler());
  return app;
}
