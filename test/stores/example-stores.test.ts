import { afterEach, describe, expect, it, vi } from "vitest";
import request from "supertest";
import { createApp, demoUserStore } from "../../examples/sports-api/app.js";
import { storesFromEnv } from "../../examples/sports-api/stores.js";
import { fastHasher, SECRET } from "../helpers/app.js";

/** The example app on the stores `SESSION_STORE=sealed` picks without Redis, logged in as demo. */
async function sealedExample() {
  const stores = await storesFromEnv({ SESSION_STORE: "sealed" }, SECRET);
  const userStore = demoUserStore(fastHasher);
  await userStore.ready;
  const app = createApp({ secret: SECRET, userStore, hasher: fastHasher, extra: { ...stores.authOptions, baseUrl: "http://localhost:3000" }, log: () => {} });
  const res = await request(app).post("/services/json/user/login.json").type("form").send("username=demo&password=demo-password");
  expect(res.status).toBe(200);
  const { sessid, session_name, token } = res.body as { sessid: string; session_name: string; token: string };
  return { stores, app, cookie: `${session_name}=${sessid}`, token };
}

describe("examples/sports-api stores (SESSION_STORE=sealed, no REDIS_URL)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps a logout when the login throttle's counter store is flooded past its size", async () => {
    const { stores, app, cookie, token } = await sealedExample();
    const logout = await request(app).post("/services/json/user/logout.json").set("Cookie", cookie).set("X-CSRF-Token", token);
    expect(logout.text).toBe("[true]");
    // More distinct keys than the throttle store keeps (100 000): were revocations kept
    // there, the logout's mark would be evicted and the old cookie live again.
    for (let i = 0; i <= 100_000; i++) await stores.counterStore.increment(`ip:${i}`, 3600);
    expect((await request(app).get("/services/json/players").set("Cookie", cookie)).status).toBe(401);
  });

  it("ends a sealed session at the absolute timeout, not one idle period after login", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { stores, app, cookie } = await sealedExample();
    expect(stores.authOptions.idleTimeout).toBe(stores.authOptions.absoluteTimeout);
    const absolute = stores.authOptions.absoluteTimeout!;
    vi.setSystemTime(Date.now() + 200_001 * 1000);
    expect((await request(app).get("/services/json/players").set("Cookie", cookie)).status).toBe(200);
    vi.setSystemTime(Date.now() + (absolute - 200_001) * 1000);
    expect((await request(app).get("/services/json/players").set("Cookie", cookie)).status).toBe(401);
  });
});
