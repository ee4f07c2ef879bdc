import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { ioredisCounterStore, ioredisSessionStore } from "services-session-auth/ioredis";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
import type { CounterStore, SessionStore } from "services-session-auth";
import { createTestApp, login } from "../helpers/app.js";
import { faultProxy, type FaultProxy } from "../helpers/fault-proxy.js";
import { freePort, hasBinary, privateRedis, type PrivateRedis } from "./redis-helpers.js";

const canRun = hasBinary("redis-server") && hasBinary("redis-cli");
if (!canRun) it.skip("redis-server/redis-cli not on PATH: the Redis fault tests are skipped", () => {});

/** What one request got, and when it was sent, in ms after the fault was ended. */
interface Outcome {
  readonly at: number;
  readonly status: number;
}

/** The clients as docs/scaling-out.md sets them up, through the proxy. */
const CLIENTS = {
  "node-redis": async (port: number) => {
    const client = createClient({
      url: `redis://127.0.0.1:${port}`,
      disableOfflineQueue: true,
      pingInterval: 500,
      socket: {
        connectTimeout: 1000,
        socketTimeout: 1000,
        keepAlive: true,
        keepAliveInitialDelay: 1000,
        reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 500),
      },
    });
    client.on("error", () => undefined);
    await client.connect();
    return {
      stores: (prefix: string) => ({ sessionStore: redisSessionStore({ client, prefix }), counterStore: redisCounterStore({ client, prefix: `${prefix}c:` }) }),
      close: () => client.destroy(),
    };
  },
  ioredis: async (port: number) => {
    const client = new Redis(port, "127.0.0.1", {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: 1000,
      socketTimeout: 1000,
      keepAlive: 1000,
      retryStrategy: (times) => Math.min(50 * 2 ** times, 500),
    });
    client.on("error", () => undefined);
    await client.connect();
    return {
      stores: (prefix: string) => ({
        sessionStore: ioredisSessionStore({ client, prefix }),
        counterStore: ioredisCounterStore({ client, prefix: `${prefix}c:` }),
      }),
      close: () => client.disconnect(),
    };
  },
} satisfies Record<string, (port: number) => Promise<{ stores(prefix: string): { sessionStore: SessionStore; counterStore: CounterStore }; close(): void }>>;

describe.skipIf(!canRun)("Redis stores behind a faulty network", () => {
  let server: PrivateRedis;
  let proxy: FaultProxy;

  beforeAll(async () => {
    server = privateRedis(await freePort(21620));
    await server.start();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it("node-redis with a connection for writes: back within 2 s of a black hole while every GET also writes (a touch due)", async () => {
    const through = await faultProxy(server.port);
    const options = {
      disableOfflineQueue: true,
      pingInterval: 500,
      socket: { connectTimeout: 1000, socketTimeout: 1000, keepAlive: true, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 500) },
    };
    const client = createClient({ url: `redis://127.0.0.1:${through.port}`, ...options });
    client.on("error", () => undefined);
    await client.connect();
    const writeClient = client.duplicate();
    writeClient.on("error", () => undefined);
    await writeClient.connect();
    try {
      const { agent, app } = createTestApp({
        sessionStore: redisSessionStore({ client, writeClient, prefix: "touch-bh:" }),
        counterStore: redisCounterStore({ client, writeClient, prefix: "touch-bh:c:" }),
        storeTimeout: 1,
        touchInterval: 0,
      });
      const session = await login(app);
      const players = () => agent.get("/services/json/players").set("Cookie", session.cookie);
      through.stall();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      through.blackHole();
      const start = Date.now();
      const after: Outcome[] = [];
      while (Date.now() - start < 5000) {
        const at = Date.now() - start;
        after.push({ at, status: (await players()).status });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const last503 = after.filter((one) => one.status !== 200).at(-1)?.at ?? 0;
      console.log(`node-redis, writes on their own connection, a touch on every GET: last 503 ${last503} ms after new connections pass`);
      expect(after.filter((one) => one.at >= 2000).every((one) => one.status === 200)).toBe(true);
    } finally {
      client.destroy();
      writeClient.destroy();
      await through.close();
    }
  });

  for (const [name, connect] of Object.entries(CLIENTS)) {
    describe(name, () => {
      let client: Awaited<ReturnType<typeof connect>>;
      beforeAll(async () => {
        proxy = await faultProxy(server.port);
        client = await connect(proxy.port);
      });
      afterAll(async () => {
        client.close();
        await proxy.close();
      });

      /** Guarded GETs every `everyMs` for `count` rounds, from the moment the fault ends. */
      async function probe(cookie: string, agent: ReturnType<typeof createTestApp>["agent"], count: number, everyMs: number): Promise<Outcome[]> {
        const start = Date.now();
        const sent: Promise<Outcome>[] = [];
        for (let i = 0; i < count; i++) {
          const at = Date.now() - start;
          sent.push(
            agent
              .get("/services/json/players")
              .set("Cookie", cookie)
              .then((res) => ({ at, status: res.status })),
          );
          await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
        return Promise.all(sent);
      }

      it("recovers from a black hole (connections open go silent for ever, new ones pass) within 2 s, and serves no 200 while it lasts", async () => {
        const { agent, app } = createTestApp({ ...client.stores(`bh-${name}:`), storeTimeout: 1 });
        const session = await login(app);
        expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);

        proxy.stall();
        const during = await probe(session.cookie, agent, 10, 100);
        proxy.blackHole();
        const after = await probe(session.cookie, agent, 40, 100);
        const recovered = after.filter((one) => one.status !== 200).at(-1)?.at ?? 0;
        console.log(`${name}: black hole after a 1 s stall: last 503 sent ${recovered} ms after new connections pass`);
        expect(during.every((one) => one.status === 503)).toBe(true);
        expect(after.every((one) => one.status === 200 || one.status === 503)).toBe(true);
        expect(after.filter((one) => one.at >= 2000).every((one) => one.status === 200)).toBe(true);
      });

      it("answers 503 at once while connections are refused, and is back within 2 s of the first one taken", async () => {
        const { agent, app } = createTestApp({ ...client.stores(`refuse-${name}:`), storeTimeout: 1 });
        const session = await login(app);
        await proxy.refuse();
        proxy.cut();
        const asked = Date.now();
        const during = await probe(session.cookie, agent, 10, 100);
        const slowest = Date.now() - asked;
        await proxy.accept();
        const after = await probe(session.cookie, agent, 30, 100);
        const last503 = after.filter((one) => one.status !== 200).at(-1)?.at ?? 0;
        console.log(`${name}: refused connections: 10 requests answered in ${slowest} ms; last 503 sent ${last503} ms after connections are taken again`);
        expect(during.every((one) => one.status === 503)).toBe(true);
        expect(after.filter((one) => one.at >= 2000).every((one) => one.status === 200)).toBe(true);
      });

      it("is back within 2 s of a killed Redis starting again; a session it lost is a 401, never a 200", async () => {
        const { agent, app } = createTestApp({ ...client.stores(`kill-${name}:`), storeTimeout: 1 });
        const session = await login(app);
        await server.stop();
        const during = await probe(session.cookie, agent, 5, 100);
        await server.start();
        const after = await probe(session.cookie, agent, 30, 100);
        const last = after.filter((one) => one.status !== 200 && one.status !== 401).at(-1)?.at ?? 0;
        console.log(`${name}: killed Redis (no persistence): last 503 sent ${last} ms after it started again`);
        expect(during.every((one) => one.status === 503)).toBe(true);
        // Without persistence the session went with the server: a 401, never a 200 without the store.
        expect(after.filter((one) => one.at >= 2000).every((one) => one.status === 401)).toBe(true);
        expect((await login(app)).sessid).toBeTruthy();
      });
    });
  }
});
