import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { ioredisCounterStore, ioredisSessionStore } from "services-session-auth/ioredis";
import { nowSeconds } from "../../src/clock.js";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
import type { CounterStore, SessionRecord, SessionStore } from "../../src/types.js";
import { createTestApp, login, statusText } from "../helpers/app.js";
import { freePort, hasBinary, privateRedis, type PrivateRedis } from "./redis-helpers.js";

const canRun = hasBinary("redis-server") && hasBinary("redis-cli");
if (!canRun) console.warn("redis-outage.test.ts: redis-server or redis-cli not on PATH, skipping the outage test");
if (!canRun) it.skip("redis-server/redis-cli not on PATH: outage test skipped", () => {});

function record(): SessionRecord {
  const now = nowSeconds();
  return { uid: "7", createdAt: now, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "outage" };
}

/**
 * How a store call ended: resolved, or rejected with an error. A call that hung instead would
 * never settle, and the test's own timeout would fail it; no clock is read here.
 */
async function settle(promise: Promise<unknown>): Promise<{ rejected: boolean; error: unknown }> {
  try {
    await promise;
    return { rejected: false, error: undefined };
  } catch (error) {
    return { rejected: true, error };
  }
}

// Its own server on a free loopback port: the shared server on 6379 is never stopped.
describe.skipIf(!canRun)("Redis stores during an outage", () => {
  let server: PrivateRedis;
  let url: string;

  beforeAll(async () => {
    server = privateRedis(await freePort(6390));
    url = `redis://127.0.0.1:${server.port}`;
    await server.start();
  });

  afterAll(async () => {
    await server.dispose();
  });

  /**
   * Stops the server under a session and a counter store: every call then rejects (refused by
   * the client with its offline queue off, or cut off by the server going away), never waits;
   * once the server is back (`up` waits for the client to see it), the same stores work again.
   */
  async function expectOutageAndRecovery(sessions: SessionStore, counters: CounterStore, client: { down(): Promise<unknown>; up(): Promise<unknown> }) {
    const sessid = await sessions.create(record());
    await expect(sessions.get(sessid)).resolves.not.toBeNull();

    await server.stop();
    await client.down();
    const calls = [sessions.get(sessid), sessions.create(record()), sessions.listByUser("7"), sessions.destroyByUser("7"), counters.increment("k", 60)];
    for (const outcome of await Promise.all(calls.map(settle))) {
      expect(outcome.rejected).toBe(true);
      expect(outcome.error).toBeInstanceOf(Error);
    }

    await server.start();
    await client.up();
    const again = await sessions.create(record());
    await expect(sessions.get(again)).resolves.not.toBeNull();
    await expect(counters.increment("k", 60)).resolves.toBe(1);
  }

  it("rejects, never hangs, while Redis is down and recovers without a new store (disableOfflineQueue)", async () => {
    const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 100 } });
    client.on("error", () => {});
    await client.connect();
    try {
      await expectOutageAndRecovery(redisSessionStore({ client, prefix: "outage:" }), redisCounterStore({ client, prefix: "outage:c:" }), {
        down: async () => undefined,
        up: () => expect.poll(() => client.isReady, { timeout: 5000 }).toBe(true),
      });
    } finally {
      client.destroy();
      // A failed assertion above must not leave the next test without its server.
      if (!server.running) await server.start();
    }
  });

  it("over ioredis too: rejects, never hangs, while Redis is down and recovers (enableOfflineQueue: false)", async () => {
    const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => 100 });
    client.on("error", () => {});
    await client.connect();
    try {
      await expectOutageAndRecovery(ioredisSessionStore({ client, prefix: "io-outage:" }), ioredisCounterStore({ client, prefix: "io-outage:c:" }), {
        down: () => expect.poll(() => client.status, { timeout: 5000 }).not.toBe("ready"),
        up: () => expect.poll(() => client.status, { timeout: 5000 }).toBe("ready"),
      });
    } finally {
      client.disconnect();
      if (!server.running) await server.start();
    }
  });

  it("through the router: a wire-format 503 while Redis is down, and the same cookie works again once it is back", async () => {
    // A server of its own that keeps its data across a kill (AOF, fsync on every write),
    // so the session outlives the outage as it would on a production Redis.
    const durable = privateRedis(await freePort(server.port + 1), ["--appendonly", "yes", "--appendfsync", "always"]);
    await durable.start();
    const client = createClient({ url: `redis://127.0.0.1:${durable.port}`, disableOfflineQueue: true, socket: { reconnectStrategy: () => 100 } });
    client.on("error", () => {});
    await client.connect();
    try {
      const { app, agent } = createTestApp({
        sessionStore: redisSessionStore({ client, prefix: "outage-router:" }),
        counterStore: redisCounterStore({ client, prefix: "outage-router:c:" }),
      });
      const session = await login(app);
      const players = () => agent.get("/services/json/players").set("Cookie", session.cookie);
      expect((await players()).status).toBe(200);

      await durable.stop();
      const down = [await players(), await agent.post("/services/json/user/login").type("form").send({ username: "demo", password: "demo-password" })];
      for (const res of down) {
        expect(res.status).toBe(503);
        expect(statusText(res)).toBe(": Service temporarily unavailable.");
        expect(res.text).toBe('["Service temporarily unavailable."]');
        expect(res.headers["content-type"]).toBe("application/json");
      }

      await durable.start();
      await expect.poll(() => client.isReady, { timeout: 5000 }).toBe(true);
      // The same app, store and client: nothing was restarted but Redis.
      const back = await players();
      expect(back.status).toBe(200);
      expect((back.body as { uid: string }).uid).toBe("14");
      expect((await login(app)).sessid).not.toBe(session.sessid);
    } finally {
      client.destroy();
      await durable.dispose();
    }
  });

  it("with the offline queue on, a command timeout still bounds every call", async () => {
    const client = createClient({ url, commandOptions: { timeout: 300 }, socket: { reconnectStrategy: () => 100 } });
    client.on("error", () => {});
    await client.connect();
    try {
      const sessions = redisSessionStore({ client, prefix: "outage2:" });
      const sessid = await sessions.create(record());
      await server.stop();
      const outcome = await settle(sessions.get(sessid));
      // The command timeout fired: the queued command was not left waiting for the reconnection.
      expect(outcome.rejected).toBe(true);
      expect(outcome.error).toBeInstanceOf(Error);
      await server.start();
      await expect.poll(() => client.isReady, { timeout: 5000 }).toBe(true);
      await expect(sessions.get(await sessions.create(record()))).resolves.not.toBeNull();
    } finally {
      client.destroy();
      if (!server.running) await server.start();
    }
  });
});
