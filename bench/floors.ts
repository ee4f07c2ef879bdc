/**
 * The floor of a session check on each framework: the least guard work, written by hand. Parse
 * the session cookie, SHA-256 its id and read the session with one awaited call to the same
 * memory store the package's guard reads (`memorySessionStore().get`, which hashes the id), check
 * its deadlines, then answer the route. No user lookup, no CSRF, no events, no CORS, no `?q=`:
 * what no guard can do without, so a guard's ratio to it is what everything else costs.
 */
import type { IncomingMessage, Server } from "node:http";
import express, { type Express } from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { createAdaptorServer, type HttpBindings } from "@hono/node-server";
import type { SessionRecord } from "services-session-auth";
import { core } from "./built.js";
import { nodeFetchServer } from "./node-fetch.js";
import { credentialsOk, payload } from "./peer-apps.js";

/** A name of the shape ours derives (`SESS` + 32 hex digits), fixed: the floor derives nothing from the host. */
const COOKIE_NAME = `SESS${"0123456789abcdef".repeat(2)}`;
const IDLE_TIMEOUT = 2_000_000;
const ABSOLUTE_TIMEOUT = 2_000_000;

/** The floor's sessions: one memory store, as the guarded configurations have; a login puts one in. */
function floorSessions() {
  const store = core.memorySessionStore();

  /** The session cookie's value: the first `name=` pair, by hand. */
  function cookieValue(header: string | null | undefined): string | undefined {
    if (header === undefined || header === null) return undefined;
    const key = `${COOKIE_NAME}=`;
    const at = header.startsWith(key) ? 0 : header.indexOf(`; ${key}`) + 2;
    if (at === 1) return undefined;
    const start = at + key.length;
    const end = header.indexOf(";", start);
    return header.slice(start, end === -1 ? undefined : end);
  }

  /** Whether the request's cookie names a live session: the floor's whole check. */
  async function live(cookieHeader: string | null | undefined): Promise<boolean> {
    const sessid = cookieValue(cookieHeader);
    if (sessid === undefined) return false;
    const session = await store.get(sessid);
    if (session === null) return false;
    const now = Math.floor(Date.now() / 1000);
    const { record } = session;
    return now < record.createdAt + ABSOLUTE_TIMEOUT && now < record.lastSeenAt + IDLE_TIMEOUT;
  }

  /** A new session's `Set-Cookie`, for the floor's login. */
  async function start(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const record: SessionRecord = { uid: "1", createdAt: now, lastSeenAt: now, expiresAt: now + IDLE_TIMEOUT, ip: "127.0.0.1", userAgent: "bench" };
    return `${COOKIE_NAME}=${await store.create(record)}; path=/; HttpOnly`;
  }

  return { live, start };
}

const NO_SESSION = { error: "no session" };

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as unknown;
}

/** Express 5: the check as a middleware before the route's handler, as a guard is mounted. */
export function expressFloor(path: string): Express {
  const sessions = floorSessions();
  const app = express();
  app.post("/login", async (req, res) => {
    if (!credentialsOk(await jsonBody(req))) return void res.status(401).json({ error: "wrong credentials" });
    res.setHeader("Set-Cookie", await sessions.start());
    res.json({ ok: true });
  });
  app.get(
    path,
    async (req, res, next) => {
      if (!(await sessions.live(req.headers.cookie))) return void res.status(401).json(NO_SESSION);
      next();
    },
    (_req, res) => void res.json(payload),
  );
  return app;
}

/** Fastify 5: the check as the route's async `preHandler`. */
export async function fastifyFloor(path: string): Promise<Server> {
  const sessions = floorSessions();
  const app = Fastify();
  app.post("/login", async (request, reply) => {
    if (!credentialsOk(request.body)) return reply.code(401).send({ error: "wrong credentials" });
    reply.header("set-cookie", await sessions.start());
    return { ok: true };
  });
  app.get(
    path,
    {
      preHandler: async (request, reply) => {
        if (!(await sessions.live(request.headers.cookie))) return reply.code(401).send(NO_SESSION);
      },
    },
    async () => payload,
  );
  await app.ready();
  return app.server;
}

/**
 * Hono 4 on @hono/node-server: the check as the route's middleware, reading the cookie from the
 * headers Node parsed (`c.env.incoming`, @hono/node-server's documented `HttpBindings`): reading
 * `c.req.header()` would build the Web `Headers` first, which a floor need not pay for.
 */
export function honoFloor(path: string): Server {
  const sessions = floorSessions();
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.post("/login", async (c) => {
    if (!credentialsOk(await c.req.json())) return c.json({ error: "wrong credentials" }, 401);
    c.header("set-cookie", await sessions.start());
    return c.json({ ok: true });
  });
  app.get(
    path,
    async (c, next) => {
      if (!(await sessions.live(c.env.incoming.headers.cookie))) return c.json(NO_SESSION, 401);
      await next();
    },
    (c) => c.json(payload),
  );
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

/** A fetch handler on `node:http`, through the same glue as the package's: the check before the route's `Response`. */
export function fetchFloor(path: string): Server {
  const sessions = floorSessions();
  return nodeFetchServer(async (request) => {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname === "/login") {
      if (!credentialsOk(await request.json())) return Response.json({ error: "wrong credentials" }, { status: 401 });
      return Response.json({ ok: true }, { headers: { "set-cookie": await sessions.start() } });
    }
    if (pathname !== path) return new Response(null, { status: 404 });
    if (!(await sessions.live(request.headers.get("cookie")))) return Response.json(NO_SESSION, { status: 401 });
    return Response.json(payload);
  });
}

/** Bare fetch on `node:http`, the same glue and route, no check: where the fetch rows start. */
export function fetchBare(path: string): Server {
  return nodeFetchServer(async (request) => {
    const { pathname } = new URL(request.url);
    return pathname === path ? Response.json(payload) : new Response(null, { status: 404 });
  });
}
