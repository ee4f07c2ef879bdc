/**
 * No account can take what other users need: a user's own sessions are capped by default
 * (the oldest ends), and a session store at its capacity refuses the new login with a 503
 * instead of ending someone else's session.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { memorySessionStore, type SessionStore } from "services-session-auth";
import { redisSessionStore } from "services-session-auth/redis";
import { createTestApp, login, statusText } from "../helpers/app.js";
import { listen, postJson } from "../helpers/clients.js";
import { redisUrl, useSharedRedis } from "../stores/redis-helpers.js";

function describeUserCap(name: string, makeStore: () => SessionStore) {
  describe(`the default per-user session cap, over ${name}`, () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("is 20: the 21st login ends that user's oldest session and no one else's", async () => {
      const sessionStore = makeStore();
      const { app, agent, events } = createTestApp({ sessionStore });
      const other = await login(app, "admin", "admin-password");
      const mine = [];
      // A second apart, so "oldest" is one session (records keep whole seconds).
      vi.useFakeTimers({ toFake: ["Date"] });
      for (let i = 0; i < 21; i++) {
        vi.setSystemTime(Date.now() + 1000);
        mine.push(await login(app));
      }
      expect(await sessionStore.listByUser("14")).toHaveLength(20);
      expect((await agent.get("/services/json/players").set("Cookie", mine[0]!.cookie)).status).toBe(401);
      for (const session of [mine[1]!, mine[20]!, other]) expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
      const revoked = events.filter((event) => event.type === "session.revoked");
      expect(revoked).toEqual([{ type: "session.revoked", uid: "14", session: expect.any(String), reason: "session-limit", timestamp: expect.any(Number) }]);
    });

    it("holds under a burst: 30 logins at once leave the user at the cap", async () => {
      const sessionStore = makeStore();
      // The longest wait: 30 hashes on a busy CI machine may take seconds, and this test is about the cap, not admission.
      const { app } = createTestApp({ sessionStore, maxSessionsPerUser: 3, hashing: { concurrency: 4, maxWait: 120 } });
      const server = await listen(app);
      try {
        // From 30 addresses: from one, the login throttle would refuse all but 5 at once (each counts until its password is checked).
        const replies = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            postJson(server.port, "/services/json/user/login", { username: "demo", password: "demo-password" }, { from: `127.0.0.${10 + i}` }),
          ),
        );
        expect(replies.filter((reply) => reply.status !== 200).map((reply) => `${reply.status} ${reply.reason} ${reply.body}`)).toEqual([]);
        const live = await sessionStore.listByUser("14");
        expect(live.length).toBeLessThanOrEqual(3);
        expect(live.length).toBeGreaterThan(0);
      } finally {
        await server.close();
      }
    });
  });
}

describeUserCap("the memory store", () => memorySessionStore());

describe.skipIf(!redisUrl)("with REDIS_URL", () => {
  const { client, prefix } = useSharedRedis("limits");
  describeUserCap("the Redis store", () => redisSessionStore({ client, prefix }));
});

describe("a memory session store at its capacity", () => {
  it("refuses a new login with a 503 in the wire format and a store.full event, and ends no one's session", async () => {
    const sessionStore = memorySessionStore({ maxSessions: 3 });
    const { app, agent, events } = createTestApp({ sessionStore });
    const sessions = [await login(app, "admin", "admin-password"), await login(app), await login(app, "O'Brien <b>", "obrien-password")];

    // One account logging in again and again: before, each login evicted the oldest session in the store.
    for (const name of ["demo", "admin"]) {
      const res = await agent.post("/services/json/user/login").send({ username: name, password: `${name}-password` });
      expect(res.status).toBe(503);
      expect(statusText(res)).toBe(": Too many open sessions: try again later.");
      expect(res.text).toBe('["Too many open sessions: try again later."]');
      expect(res.headers["retry-after"]).toBe("60");
      expect(res.headers["content-type"]).toBe("application/json");
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    expect(events.filter((event) => event.type === "store.full")).toEqual([
      { type: "store.full", operation: "sessionStore.create", timestamp: expect.any(Number) },
      { type: "store.full", operation: "sessionStore.create", timestamp: expect.any(Number) },
    ]);
    expect(events.some((event) => event.type === "store.failure")).toBe(false);
    for (const session of sessions) expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);

    // A logout frees a place at once.
    const logout = await agent.post("/services/json/user/logout").set("Cookie", sessions[1]!.cookie).set("X-CSRF-Token", sessions[1]!.token);
    expect(logout.status).toBe(200);
    expect((await login(app)).res.status).toBe(200);
    sessionStore.close();
  });
});
