/**
 * What the benchmark's servers share: the one small body every configuration serves at
 * `GET /data`, the peers' cheap login check, express-session's app over any store (its
 * MemoryStore, connect-redis, connect-pg-simple), and the Fastify and Hono peers, each set up
 * as its own docs show.
 */
import fastifyCookie from "@fastify/cookie";
import fastifySecureSession from "@fastify/secure-session";
import fastifySession from "@fastify/session";
import express, { type Express, type RequestHandler } from "express";
import session from "express-session";
import Fastify, { type FastifyInstance } from "fastify";
import { Hono } from "hono";
import { MemoryStore, sessionMiddleware, type Session as HonoSession } from "hono-sessions";
import { BENCH_NAME, BENCH_PASSWORD, SECRET } from "./shared.js";

/** The small JSON body every configuration serves at `GET /data`. */
export const payload = {
  players: [
    { id: 1, name: "Ada" },
    { id: 2, name: "Grace" },
    { id: 3, name: "Edsger" },
  ],
};
/** `GET /data`'s answer, the same for every configuration. */
export const sendData: RequestHandler = (_req, res) => void res.json(payload);

/** The peers' cheap login check, the same for every peer. */
export function credentialsOk(body: unknown): boolean {
  const { username, password } = (body ?? {}) as { username?: unknown; password?: unknown };
  return username === BENCH_NAME && password === BENCH_PASSWORD;
}

declare module "express-session" {
  interface SessionData {
    uid: string;
  }
}

declare module "fastify" {
  interface Session {
    uid?: string;
  }
}

declare module "@fastify/secure-session" {
  interface SessionData {
    uid: string;
  }
}

/** express-session over `store` (its MemoryStore when undefined): `POST /login` as its docs show it, `GET /data` for a session only. */
export function expressSessionApp(store: session.Store | undefined): Express {
  const app = express();
  app.use(session({ secret: SECRET, resave: false, saveUninitialized: false, ...(store === undefined ? {} : { store }) }));
  app.post("/login", express.json(), (req, res, next) => {
    if (!credentialsOk(req.body)) return void res.status(401).json({ error: "wrong credentials" });
    // express-session's documented login: a new id, then the user on it.
    req.session.regenerate((error) => {
      if (error) return next(error);
      req.session.uid = "1";
      res.json({ ok: true });
    });
  });
  app.get("/data", (req, res, next) => (req.session.uid === undefined ? void res.status(401).json({ error: "no session" }) : next()), sendData);
  return app;
}

/** @fastify/session over its memory store, with @fastify/cookie: the login its docs show (a new id, then the user), `GET /data` for a session only. */
export async function fastifySessionApp(): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(fastifyCookie);
  await app.register(fastifySession, { secret: SECRET, cookie: { secure: false } });
  app.post("/login", async (request, reply) => {
    if (!credentialsOk(request.body)) return reply.code(401).send({ error: "wrong credentials" });
    await request.session.regenerate();
    request.session.set("uid", "1");
    return { ok: true };
  });
  app.get("/data", async (request, reply) => (request.session.get("uid") === undefined ? reply.code(401).send({ error: "no session" }) : payload));
  return app;
}

/** @fastify/secure-session (a sealed cookie, as its docs set it up from a secret and salt), `GET /data` for a session only. */
export async function fastifySecureSessionApp(): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(fastifySecureSession, { secret: SECRET, salt: "mq9hDxBVDbspDR6n", cookie: { path: "/", httpOnly: true } });
  app.post("/login", async (request, reply) => {
    if (!credentialsOk(request.body)) return reply.code(401).send({ error: "wrong credentials" });
    request.session.set("uid", "1");
    return { ok: true };
  });
  app.get("/data", async (request, reply) => (request.session.get("uid") === undefined ? reply.code(401).send({ error: "no session" }) : payload));
  return app;
}

/** hono-sessions over its memory store, as its README mounts it (`app.use("*", sessionMiddleware(…))`), `GET /data` for a session only. */
export function honoSessionsApp(): Hono<{ Variables: { session: HonoSession<{ uid: string }>; session_key_rotation: boolean } }> {
  const app = new Hono<{ Variables: { session: HonoSession<{ uid: string }>; session_key_rotation: boolean } }>();
  app.use(
    "*",
    sessionMiddleware({
      store: new MemoryStore(),
      encryptionKey: SECRET,
      expireAfterSeconds: 900,
      cookieOptions: { sameSite: "Lax", path: "/", httpOnly: true },
    }),
  );
  app.post("/login", async (c) => {
    if (!credentialsOk(await c.req.json())) return c.json({ error: "wrong credentials" }, 401);
    c.get("session").set("uid", "1");
    return c.json({ ok: true });
  });
  // A missing key reads as null here.
  app.get("/data", (c) => ((c.get("session").get("uid") ?? undefined) === undefined ? c.json({ error: "no session" }, 401) : c.json(payload)));
  return app;
}
