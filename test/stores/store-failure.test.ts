import { describe, expect, it } from "vitest";
import type { SessionStore } from "services-session-auth";
import { createTestApp, login, statusText } from "../helpers/app.js";
import { aroundMethods } from "../helpers/doubles.js";

type Mode = "ok" | "error" | "hang";

/** A store double that passes through, throws, or never answers, switchable at run time. */
function flaky(store: SessionStore) {
  const state = { mode: "ok" as Mode };
  const proxy = aroundMethods(store, (_name, call) => {
    if (state.mode === "error") return Promise.reject(new Error("ECONNREFUSED 10.1.2.3:6379 secret-host"));
    if (state.mode === "hang") return new Promise(() => undefined);
    return call();
  });
  return { proxy, state };
}

describe("store failures", () => {
  for (const mode of ["error", "hang"] as const) {
    it(`answers a wire-format 503 when the store ${mode === "error" ? "fails" : "hangs"}, then recovers without a restart`, async () => {
      const base = createTestApp();
      const { proxy, state } = flaky(base.sessionStore);
      const { app, agent, events } = createTestApp({ sessionStore: proxy, storeTimeout: 0.1 });
      const session = await login(app);
      state.mode = mode;
      const calls = [
        agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" }),
        agent.post("/services/json/system/connect").set("Cookie", session.cookie).send(),
        agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send(),
        agent.get("/services/json/players").set("Cookie", session.cookie),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(503);
        expect(statusText(res)).toBe(": Service temporarily unavailable.");
        expect(res.text).toBe('["Service temporarily unavailable."]');
        expect(res.headers["content-type"]).toBe("application/json");
        expect(res.headers["retry-after"]).toBe("5");
        expect(res.text).not.toContain("secret-host");
      }
      expect(events.some((e) => e.type === "store.failure")).toBe(true);
      state.mode = "ok";
      expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    });
  }

  it("never treats a protected request as anonymous when the store is down", async () => {
    const base = createTestApp();
    const { proxy, state } = flaky(base.sessionStore);
    const { app, agent } = createTestApp({ sessionStore: proxy, storeTimeout: 0.05 });
    const session = await login(app);
    state.mode = "error";
    const res = await agent.get("/services/json/players").set("Cookie", session.cookie);
    expect(res.status).toBe(503);
  });

  it("answers 503 when the counter store fails during login", async () => {
    const { counterStore } = createTestApp();
    const down = () => Promise.reject(new Error("down"));
    const broken = { ...counterStore, increment: down, decrement: down, get: down, delete: down };
    const { agent } = createTestApp({ counterStore: broken, storeTimeout: 0.05 });
    const res = await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(503);
  });
});
