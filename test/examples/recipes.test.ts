import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createSessionAuthRouter } from "services-session-auth/express";
import { mapSessionStore } from "../../examples/recipes/map-session-store.js";
import { ioredisStores, logOutEverywhere, protectARoute, redisStores, requireARole } from "../../examples/recipes/recipes.js";
import { createTestApp, login } from "../helpers/app.js";
import { describeSessionStore } from "../stores/contract.js";

/** An app with the router and the recipes' routes, on the test helper's options. */
function recipeApp(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const { options } = createTestApp(overrides);
  const auth = createSessionAuthRouter(options);
  const app = express();
  app.use(auth);
  protectARoute(app, auth, (_req, res) => void res.status(201).json({ added: true }));
  requireARole(app, auth);
  logOutEverywhere(app, auth);
  return { app, auth };
}

describe("README recipes", () => {
  it("protect a route: req.auth for GET, the CSRF token for POST", async () => {
    const { app } = recipeApp();
    const demo = await login(app);
    const me = await request(app).get("/services/json/me").set("Cookie", demo.cookie);
    expect(me.body).toMatchObject({ name: "demo", roles: ["authenticated user"] });
    expect((await request(app).get("/services/json/me")).status).toBe(401);
    const noToken = await request(app).post("/services/json/players").set("Cookie", demo.cookie);
    expect([noToken.status, noToken.body]).toEqual([401, ["CSRF validation failed"]]);
    expect((await request(app).post("/services/json/players").set("Cookie", demo.cookie).set("X-CSRF-Token", demo.token)).status).toBe(201);
  });

  it("require a role: 403 for a user without it", async () => {
    const { app } = recipeApp();
    expect(
      (
        await request(app)
          .get("/services/json/admin/stats")
          .set("Cookie", (await login(app)).cookie)
      ).status,
    ).toBe(403);
    const admin = await login(app, "admin", "admin-password");
    expect((await request(app).get("/services/json/admin/stats").set("Cookie", admin.cookie)).body).toEqual({ players: 4 });
  });

  it("log out everywhere: every session of the user ends", async () => {
    const { app } = recipeApp();
    const phone = await login(app);
    const laptop = await login(app);
    const res = await request(app).post("/services/json/sessions/revoke-all").set("Cookie", phone.cookie).set("X-CSRF-Token", phone.token);
    expect(res.body).toEqual({ ended: 2 });
    for (const device of [phone, laptop]) expect((await request(app).get("/services/json/me").set("Cookie", device.cookie)).status).toBe(401);
  });

  it("write your own store: the Map store works behind the router", async () => {
    const { app } = recipeApp({ sessionStore: mapSessionStore() });
    const demo = await login(app);
    expect((await request(app).get("/services/json/me").set("Cookie", demo.cookie)).status).toBe(200);
    await request(app).post("/services/json/user/logout.json").set("Cookie", demo.cookie).set("X-CSRF-Token", demo.token);
    expect((await request(app).get("/services/json/me").set("Cookie", demo.cookie)).status).toBe(401);
  });
});

describeSessionStore("mapSessionStore (README recipe)", () => mapSessionStore());

const redisUrl = process.env.REDIS_URL;
if (redisUrl === undefined) console.warn("\n  [skip] README recipe 'use Redis': set REDIS_URL (e.g. redis://127.0.0.1:6379)\n");

describe.skipIf(redisUrl === undefined)("README recipe: use Redis", () => {
  it.each([
    ["node-redis", redisStores],
    ["ioredis", ioredisStores],
  ])("logs in, reads a protected route and logs out everywhere through Redis (%s)", async (_client, recipe) => {
    const { sessionStore, counterStore, close } = await recipe();
    try {
      const { app } = recipeApp({ sessionStore, counterStore });
      const demo = await login(app);
      expect((await request(app).get("/services/json/me").set("Cookie", demo.cookie)).status).toBe(200);
      expect((await sessionStore.listByUser("14")).length).toBeGreaterThanOrEqual(1);
      await request(app).post("/services/json/sessions/revoke-all").set("Cookie", demo.cookie).set("X-CSRF-Token", demo.token);
      expect((await request(app).get("/services/json/me").set("Cookie", demo.cookie)).status).toBe(401);
    } finally {
      await close();
    }
  });
});
