import type { Express } from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSessionAuthRouter, memorySessionStore, memoryUserStore, type SessionAuthRouter } from "services-session-auth";
import { createTestApp, fastHasher, login, SECRET, setCookies, USERS } from "../helpers/app.js";

const APP = "https://app.example.org";
const LOGIN = "/services/json/user/login.json";
const DEMO = { username: "demo", password: "demo-password" };
const CROSS_SITE = { trustedOrigins: [APP, "null"], sameSite: "none", cookieSecure: "always", baseUrl: "https://sports.test" } as const;

function preflight(agent: ReturnType<typeof createTestApp>["agent"], path: string, origin = APP, headers = "content-type,x-csrf-token") {
  return agent.options(path).set("Origin", origin).set("Access-Control-Request-Method", "POST").set("Access-Control-Request-Headers", headers);
}

describe("CORS for the app origins", () => {
  it("answers a listed origin's preflight on the endpoint, its ?q= spelling and services/session/token, before the endpoint", async () => {
    const { agent } = createTestApp(CROSS_SITE);
    for (const path of ["/services/json/system/connect.json", "/?q=services/json/user/login.json", "/services/session/token", "/services/json/players"]) {
      const res = await preflight(agent, path);
      expect(res.status, path).toBe(204);
      expect(res.headers["access-control-allow-origin"]).toBe(APP);
      expect(res.headers["access-control-allow-credentials"]).toBe("true");
      expect(res.headers["access-control-allow-headers"]).toBe("content-type, x-csrf-token");
      expect(res.headers["access-control-allow-methods"]).toContain("POST");
      expect(res.headers["access-control-max-age"]).toBe("600");
      expect(res.headers.vary).toContain("Origin");
    }
  });

  it("gives an unlisted origin no CORS header, and still refuses its login", async () => {
    const { agent, events } = createTestApp(CROSS_SITE);
    const res = await preflight(agent, "/services/json/user/login.json", "https://evil.example");
    expect(res.status).toBe(200); // Services' own OPTIONS reply
    expect(res.headers).not.toHaveProperty("access-control-allow-origin");
    const refused = await agent.post(LOGIN).set("Origin", "https://evil.example").type("form").send(DEMO);
    expect(refused.status).toBe(403);
    expect(refused.headers).not.toHaveProperty("access-control-allow-origin");
    expect(refused.headers.vary).toContain("Origin");
    expect(events.map((event) => event.type)).toEqual(["login.cross-site"]);
  });

  it("adds the headers to actual replies: token, login, error replies, guarded routes and their denials", async () => {
    const { app, agent } = createTestApp(CROSS_SITE);
    const token = await agent.get("/services/session/token").set("Origin", APP);
    expect(token.headers["access-control-allow-origin"]).toBe(APP);
    const ok = await agent.post(LOGIN).set("Origin", APP).set("X-CSRF-Token", token.text).type("form").send(DEMO);
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe(APP);
    expect(setCookies(ok)[0]).toMatch(/; secure; httponly; samesite=none$/i);
    const wrong = await agent.post(LOGIN).set("Origin", APP).type("form").send({ username: "demo", password: "nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["access-control-allow-origin"]).toBe(APP);
    // The endpoint's own Vary stays beside CORS's.
    const connect = await agent.post("/services/json/system/connect").set("Origin", APP);
    expect(connect.headers.vary).toBe("Origin, Accept");
    const denied = await agent.get("/services/json/players").set("Origin", APP);
    expect(denied.status).toBe(401);
    expect(denied.headers["access-control-allow-origin"]).toBe(APP);
    const session = await login(app);
    const allowed = await agent.get("/services/json/players").set("Origin", APP).set("Cookie", session.cookie);
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe(APP);
  });

  it("answers preflights on the app's own paths only where the cors option's paths say, and guards add the headers anywhere", async () => {
    const routes = (app: Express, auth: SessionAuthRouter) => {
      app.post("/api/notes", auth.requireSession(), (_req, res) => void res.json({ ok: true }));
      app.get("/elsewhere/me", auth.requireSession(), (_req, res) => void res.json({ ok: true }));
    };
    const { agent } = createTestApp({ ...CROSS_SITE, cors: { paths: ["/api/*"] } }, undefined, routes);
    expect((await preflight(agent, "/api/notes")).headers["access-control-allow-origin"]).toBe(APP);
    expect((await preflight(agent, "/elsewhere/me")).headers).not.toHaveProperty("access-control-allow-origin");
    expect((await agent.get("/elsewhere/me").set("Origin", APP)).headers["access-control-allow-origin"]).toBe(APP);
  });

  it("is off with cors: false, and refuses cors settings without trustedOrigins at start-up", async () => {
    const { agent } = createTestApp({ ...CROSS_SITE, cors: false });
    expect((await preflight(agent, "/services/json/system/connect.json")).headers).not.toHaveProperty("access-control-allow-origin");
    const options = { userStore: memoryUserStore(USERS, { hasher: fastHasher }), sessionStore: memorySessionStore(), secret: SECRET };
    expect(() => createSessionAuthRouter({ ...options, cors: { maxAge: 60 } })).toThrow(/cors: answers the origins of trustedOrigins/);
    expect(() => createSessionAuthRouter({ ...options, trustedOrigins: [APP], cors: { methods: ["GET\r\nX: y"] } })).toThrow(TypeError);
  });
});

describe("cookies from app origins of other sites", () => {
  afterEach(() => vi.restoreAllMocks());

  it("says once at start-up which origins' sessions a browser would drop, naming the options", () => {
    const { events } = createTestApp({ trustedOrigins: [APP, "https://m.sports.test", "null"], baseUrl: "https://sports.test" });
    expect(events).toEqual([
      {
        type: "config.cross-site-cookie",
        origins: [APP, "null"],
        message: expect.stringMatching(/sameSite: "none" and cookieSecure: "always"/),
        timestamp: expect.any(Number),
      },
    ]);
    expect(createTestApp(CROSS_SITE).events).toEqual([]);
  });

  it("writes that warning to stderr when there is no onEvent", () => {
    vi.stubEnv("NODE_ENV", "development");
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    createTestApp({ trustedOrigins: ["null"], onEvent: undefined });
    expect(write).toHaveBeenCalledTimes(1);
    expect(String(write.mock.calls[0]![0])).toMatch(/config\.cross-site-cookie origins=null message=.*sameSite: "none"/);
    vi.unstubAllEnvs();
  });

  it("without baseUrl, tells per login why the session will not stick: cookie attributes, then plain http", async () => {
    const lax = createTestApp({ trustedOrigins: [APP], baseUrl: undefined, sessionName: "SESSfixed" });
    expect(lax.events).toEqual([]);
    const res = await lax.agent.post(LOGIN).set("Origin", APP).set("X-CSRF-Token", "x").type("form").send(DEMO);
    expect(res.status).toBe(200);
    expect(lax.events.map((event) => event.type)).toEqual(["cookie.cross-site", "login.success"]);
    expect(lax.events[0]).toMatchObject({ origin: APP, message: expect.stringMatching(/sameSite: "none"/) });

    const http = createTestApp({ ...CROSS_SITE, baseUrl: undefined, sessionName: "SESSfixed" });
    await http.agent.post(LOGIN).set("Origin", APP).type("form").send(DEMO);
    expect(http.events[0]).toMatchObject({ type: "cookie.cross-site", message: expect.stringMatching(/plain http.*will not stick/) });
  });

  it("admits a scripted login marked cross-site without Origin only when admitCrossSiteWithoutOrigin is on", async () => {
    const off = createTestApp();
    expect((await off.agent.post(LOGIN).set("Sec-Fetch-Site", "cross-site").set("X-CSRF-Token", "x").type("form").send(DEMO)).status).toBe(403);
    const on = createTestApp({ admitCrossSiteWithoutOrigin: true });
    expect((await on.agent.post(LOGIN).set("Sec-Fetch-Site", "cross-site").set("X-CSRF-Token", "x").type("form").send(DEMO)).status).toBe(200);
    // A form cannot send the header: still refused.
    expect((await on.agent.post(LOGIN).set("Sec-Fetch-Site", "cross-site").type("form").send(DEMO)).status).toBe(403);
    // Nor does it admit an Origin that is not listed.
    expect(
      (await on.agent.post(LOGIN).set("Origin", "https://evil.example").set("Sec-Fetch-Site", "cross-site").set("X-CSRF-Token", "x").type("form").send(DEMO))
        .status,
    ).toBe(403);
  });
});
