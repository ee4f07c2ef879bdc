import { describe, expect, it } from "vitest";
import { memoryCounterStore, type CounterStore, type SessionStore } from "services-session-auth";
import { redisCounterStore, redisSessionStore } from "services-session-auth/redis";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import { createTestApp, login, setCookies } from "../helpers/app.js";
import { redisUrl, useSharedRedis } from "./redis-helpers.js";

/** Login, an authenticated call, logout, and the old cookie refused: the router over a given store. */
function describeBehindRouter(name: string, stores: () => { sessionStore: SessionStore; counterStore: CounterStore }) {
  describe(`the router over ${name}`, () => {
    it("logs in, serves a protected route, logs out, and refuses the old cookie", async () => {
      const { sessionStore, counterStore } = stores();
      const { app, agent } = createTestApp({ sessionStore, counterStore });
      const session = await login(app);
      expect(setCookies(session.res)[0]!.length).toBeLessThan(4096);

      const players = await agent.get("/services/json/players").set("Cookie", session.cookie);
      expect(players.status).toBe(200);
      expect((players.body as { uid: string }).uid).toBe("14");

      const logout = await agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
      expect(logout.text).toBe("[true]");
      await expect(sessionStore.get(session.sessid)).resolves.toBeNull();
      const after = await agent.get("/services/json/players").set("Cookie", session.cookie);
      expect(after.status).not.toBe(200);
    });

    it("counts failed logins in the given counter store", async () => {
      const { sessionStore, counterStore } = stores();
      const { agent, events } = createTestApp({ sessionStore, counterStore, throttle: { userLimit: 2 } });
      for (let i = 0; i < 2; i++) {
        const res = await agent.post("/services/json/user/login").type("form").send({ username: "demo", password: "wrong" });
        expect(res.status).toBe(401);
      }
      const failed = events.find((event) => event.type === "login.failure");
      const ip = failed?.type === "login.failure" ? failed.ip : undefined;
      expect(ip).toBeTruthy();
      // Per client IP and per account + IP, as Drupal's flood control keys them.
      await expect(counterStore.get(`ip:${ip}`)).resolves.toBe(2);
      const blocked = await agent.post("/services/json/user/login").type("form").send({ username: "demo", password: "demo-password" });
      expect([blocked.status, blocked.text]).toEqual([406, '["Account is temporarily blocked."]']);
    });
  });
}

describeBehindRouter("sealedCookieStore", () => {
  // Revocations in a store of their own that never forgets a mark; the throttle's may evict.
  const revocations = memoryCounterStore({ whenFull: "reject" });
  return { sessionStore: sealedCookieStore({ password: "router-test-password-of-32-characters+", revocations }), counterStore: memoryCounterStore() };
});

describe.skipIf(!redisUrl)("with REDIS_URL", () => {
  const { client, prefix } = useSharedRedis("router");

  describeBehindRouter("redisSessionStore", () => ({
    sessionStore: redisSessionStore({ client, prefix }),
    counterStore: redisCounterStore({ client, prefix: `${prefix}c:` }),
  }));
});
