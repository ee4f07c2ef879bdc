/**
 * One benchmark server, run as its own process: `node --import tsx bench/server.ts <config>`.
 * Listens on 127.0.0.1 (a free port) and prints `PORT <n>` once it can take requests.
 * Every configuration serves the same small JSON body at `GET /data`; the protected ones
 * refuse it without a session.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express } from "express";
import Fastify from "fastify";
import { Hono, type MiddlewareHandler } from "hono";
import { createAdaptorServer } from "@hono/node-server";
import { getIronSession } from "iron-session";
import { createClient } from "redis";
import { RedisStore } from "connect-redis";
import type { PasswordHasher, SessionStore } from "services-session-auth";
import { ourExpressApp, ourFastifyApp, ourFetchApp, ourHonoApp } from "./bound-apps.js";
import { core, drupal, expressBinding, redis, sealed } from "./built.js";
import { expressFloor, fastifyFloor, fetchBare, fetchFloor, honoFloor } from "./floors.js";
import { credentialsOk, expressSessionApp, fastifySecureSessionApp, fastifySessionApp, honoSessionsApp, payload, sendData } from "./peer-apps.js";
import { BENCH_NAME, BENCH_PASSWORD, GUARDED_PATH, LEGACY_NAME, SECRET } from "./shared.js";

const { memoryCounterStore, memorySessionStore, memoryUserStore, scryptHasher } = core;
const { createSessionAuthRouter } = expressBinding;
const { redisSessionStore } = redis;
const { sealedCookieStore } = sealed;
const { drupal7Hasher, upgradingHasher } = drupal;
const GUARDED = GUARDED_PATH;

/** A hasher that costs nothing, so a login measures the framework and the store, not hashing. */
const trivialHasher: PasswordHasher = {
  async hash(password) {
    return `plain$${password}`;
  },
  async verify(hash, password) {
    const a = Buffer.from(hash);
    const b = Buffer.from(`plain$${password}`);
    return a.length === b.length && timingSafeEqual(a, b);
  },
  needsRehash: () => false,
};

async function redisClient() {
  const url = process.env.REDIS_URL;
  if (url === undefined) throw new Error("this configuration needs REDIS_URL");
  const client = await createClient({ url, disableOfflineQueue: true }).connect();
  client.on("error", () => undefined);
  return client;
}

function ironSessionApp(): Express {
  const app = express();
  const options = { password: SECRET, cookieName: "iron" };
  app.post("/login", express.json(), async (req, res) => {
    if (!credentialsOk(req.body)) return void res.status(401).json({ error: "wrong credentials" });
    const ironSession = await getIronSession<{ uid?: string }>(req, res, options);
    ironSession.uid = "1";
    await ironSession.save();
    res.json({ ok: true });
  });
  app.get(
    "/data",
    async (req, res, next) => {
      const ironSession = await getIronSession<{ uid?: string }>(req, res, options);
      if (ironSession.uid === undefined) return void res.status(401).json({ error: "no session" });
      next();
    },
    sendData,
  );
  return app;
}

async function ourApp(sessionStore: SessionStore, hasher: PasswordHasher, timing = false, deviceCookies = false): Promise<Express> {
  const userStore = memoryUserStore([{ name: BENCH_NAME, password: BENCH_PASSWORD }], { hasher });
  await userStore.ready;
  // The timing probe sends hundreds of failures from one address; flood control would refuse them unhashed.
  const throttle = timing ? { ipLimit: 1_000_000, userLimit: 1_000_000 } : undefined;
  const auth = createSessionAuthRouter({
    userStore,
    sessionStore,
    secret: SECRET,
    hasher,
    counterStore: memoryCounterStore(),
    deviceCookies,
    ...(throttle === undefined ? {} : { throttle }),
  });
  const app = express();
  app.use(auth);
  app.get("/data", auth.requireSession(), sendData);
  return app;
}

/**
 * A site in the middle of a Drupal 7 migration: `bench` already on scrypt, `legacy` still on
 * Drupal's `$S$D` hash, the upgrading hasher checking both. Throttling is lifted so the timing
 * probe's hundreds of failures are all checked.
 */
async function migratingApp(): Promise<Express> {
  const hasher = upgradingHasher({ current: scryptHasher(), legacy: [drupal7Hasher()] });
  const userStore = memoryUserStore([
    { name: BENCH_NAME, passwordHash: await scryptHasher().hash(BENCH_PASSWORD) },
    { name: LEGACY_NAME, passwordHash: await drupal7Hasher().hash(BENCH_PASSWORD) },
  ]);
  const auth = createSessionAuthRouter({
    userStore,
    sessionStore: memorySessionStore(),
    secret: SECRET,
    hasher,
    throttle: { ipLimit: 1_000_000, userLimit: 1_000_000 },
  });
  return express().use(auth);
}

async function build(config: string): Promise<Express | Server> {
  switch (config) {
    case "express":
    case "express-cookie":
      return express().get("/data", sendData);
    case "fastify":
    case "fastify-cookie": {
      const app = Fastify();
      app.get("/data", async () => payload);
      await app.ready();
      return app.server;
    }
    case "ours-fastify":
      return ourFastifyApp(GUARDED, trivialHasher);
    case "express-floor":
      return expressFloor(GUARDED);
    case "fastify-floor":
      return fastifyFloor(GUARDED);
    case "hono-floor":
      return honoFloor(GUARDED);
    case "fetch":
      return fetchBare("/data");
    case "fetch-floor":
      return fetchFloor(GUARDED);
    case "ours-fetch":
      return ourFetchApp(GUARDED, trivialHasher);
    case "hono":
    case "hono-cookie":
      // @hono/node-server's server is an http.Server unless told to make an HTTP/2 one.
      return createAdaptorServer({ fetch: new Hono().get("/data", (c) => c.json(payload)).fetch }) as Server;
    case "hono-headers":
      // Bare Hono reading the three headers a session check needs: what the Web-standard
      // Headers of @hono/node-server's Request cost by themselves (built on first touch).
      return createAdaptorServer({
        fetch: new Hono().get("/data", (c) => {
          const headers = c.req.raw.headers;
          if (headers.get("host") === null && headers.get("cookie") === null && headers.get("x-request-id") === "") return c.text("", 401);
          return c.json(payload);
        }).fetch,
      }) as Server;
    case "hono-middleware": {
      // Bare Hono with two pass-through middlewares where ours has the Services calls and the guard: what composing them costs.
      const pass: MiddlewareHandler = async (_c, next) => {
        await next();
      };
      return createAdaptorServer({ fetch: new Hono().use(pass).get("/data", pass, (c) => c.json(payload)).fetch }) as Server;
    }
    case "hono-async":
      // Bare Hono with its handler declared async: what one awaited step costs there, the floor
      // for any guard whose answer is a promise (Hono then leaves its synchronous response path).
      return createAdaptorServer({ fetch: new Hono().get("/data", async (c) => c.json(payload)).fetch }) as Server;
    case "ours-hono":
      return ourHonoApp(GUARDED, trivialHasher);
    case "fastify-session": {
      const app = await fastifySessionApp();
      await app.ready();
      return app.server;
    }
    case "fastify-secure-session": {
      const app = await fastifySecureSessionApp();
      await app.ready();
      return app.server;
    }
    case "hono-sessions":
      return createAdaptorServer({ fetch: honoSessionsApp().fetch }) as Server;
    case "express-session-memory":
    case "express-session-login":
      return expressSessionApp(undefined);
    case "express-session-redis":
      return expressSessionApp(new RedisStore({ client: await redisClient(), prefix: "bench-es:" }));
    case "iron-session":
      return ironSessionApp();
    case "ours-memory":
      return ourExpressApp(GUARDED, trivialHasher);
    case "ours-login-trivial":
      return ourApp(memorySessionStore(), trivialHasher);
    case "ours-redis":
      return ourApp(redisSessionStore({ client: await redisClient(), prefix: "bench-ours:" }), trivialHasher);
    case "ours-sealed":
      return ourApp(sealedCookieStore({ password: SECRET, revocations: memoryCounterStore({ whenFull: "reject" }) }), trivialHasher);
    case "ours-login-scrypt":
      return ourApp(memorySessionStore(), scryptHasher());
    case "ours-timing":
      return ourApp(memorySessionStore(), scryptHasher(), true);
    case "ours-attack":
      // As an app runs it: the default hasher, flood control and admission control.
      return ourApp(memorySessionStore(), scryptHasher());
    case "ours-attack-devices":
      // The same, with device cookies on, for a returning user during a many-address burst.
      return ourApp(memorySessionStore(), scryptHasher(), false, true);
    case "ours-timing-upgrade":
      return migratingApp();
    default:
      throw new Error(`unknown configuration ${config}`);
  }
}

const built = await build(process.argv[2] ?? "");
// Fastify's and Hono's come as Node servers; an Express app is one's handler.
const server = built instanceof Function ? createServer(built.disable("x-powered-by")) : built;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
// The runner stops a server with SIGTERM; exiting through process.exit lets --cpu-prof write its profile.
process.on("SIGTERM", () => process.exit(0));
// The runner asks for the CPU time used, before and after the measured window.
process.on("message", () => {
  const { user, system } = process.cpuUsage();
  process.send?.({ cpu: user + system });
});
