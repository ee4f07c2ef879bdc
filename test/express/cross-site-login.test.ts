import { describe, expect, it, vi } from "vitest";
import { createSessionAuthRouter } from "services-session-auth/express";
import { createTestApp, login, setCookies, statusText } from "../helpers/app.js";

const LOGIN = "/services/json/user/login.json";
const DEMO = { username: "demo", password: "demo-password" };

describe("cross-site login", () => {
  it("refuses a login posted from another site's page with a 403 that changes nothing", async () => {
    const { app, agent, sessionStore, counterStore, events } = createTestApp();
    const victim = await login(app, "admin", "admin-password");
    const before = sessionStore.size;
    // What a form on https://evil.example posts: a browser sends no cookie of ours there.
    const res = await agent.post(LOGIN).type("form").set("Origin", "https://evil.example").set("Sec-Fetch-Site", "cross-site").send(DEMO);
    expect(res.status).toBe(403);
    expect(statusText(res)).toBe(": Access denied: cross-site login refused.");
    expect(res.text).toBe('["Access denied: cross-site login refused."]');
    expect(res.headers["content-type"]).toBe("application/json");
    expect(setCookies(res)).toEqual([]);
    expect(sessionStore.size).toBe(before);
    await expect(counterStore.get("ip:127.0.0.1")).resolves.toBe(0);
    // The victim is still logged in as before.
    const connect = await agent.post("/services/json/system/connect").set("Cookie", victim.cookie).set("X-CSRF-Token", victim.token);
    expect(connect.body.user.uid).toBe("1");
    const refused = events.filter((event) => event.type === "login.cross-site");
    expect(refused).toEqual([
      {
        type: "login.cross-site",
        origin: "https://evil.example",
        fetchSite: "cross-site",
        ip: "127.0.0.1",
        message: expect.stringContaining("trustedOrigins"),
        timestamp: expect.any(Number),
      },
    ]);
  });

  it("refuses a login a browser marks cross-site even without Origin, and one from an Origin that is not the site's", async () => {
    const { agent } = createTestApp();
    expect((await agent.post(LOGIN).set("Sec-Fetch-Site", "cross-site").send(DEMO)).status).toBe(403);
    expect((await agent.post(LOGIN).set("Origin", "http://sports.test.evil.example").send(DEMO)).status).toBe(403);
    expect((await agent.post(LOGIN).set("Origin", "https://sports.test").send(DEMO)).status).toBe(403); // another scheme: another origin
    expect((await agent.post(LOGIN).set("Origin", "null").send(DEMO)).status).toBe(403);
    expect((await agent.post(LOGIN).set("Origin", "not an origin").send(DEMO)).status).toBe(403);
  });

  it("lets native clients (no Origin, no Sec-Fetch-*) and the site's own pages log in", async () => {
    const { agent } = createTestApp(); // baseUrl http://sports.test
    expect((await agent.post(LOGIN).send(DEMO)).status).toBe(200);
    expect((await agent.post(LOGIN).set("Origin", "http://sports.test").set("Sec-Fetch-Site", "same-origin").send(DEMO)).status).toBe(200);
    expect((await agent.post(LOGIN).set("Origin", "HTTP://SPORTS.TEST:80").send(DEMO)).status).toBe(200);
  });

  it("takes the site's origin from the request's scheme and Host when there is no baseUrl", async () => {
    const { agent } = createTestApp({ baseUrl: undefined, sessionName: "SESSfixed" });
    expect((await agent.post(LOGIN).set("Host", "api.example.com").set("Origin", "http://api.example.com").send(DEMO)).status).toBe(200);
    expect((await agent.post(LOGIN).set("Host", "api.example.com").set("Origin", "http://www.example.com").send(DEMO)).status).toBe(403);
  });

  it("lets hybrid apps in once their origins are listed in trustedOrigins", async () => {
    const trustedOrigins = ["capacitor://localhost", "ionic://localhost", "http://localhost", "https://app.example.com/"];
    const { agent } = createTestApp({ trustedOrigins });
    for (const origin of ["capacitor://localhost", "ionic://localhost", "http://localhost", "https://app.example.com"]) {
      const res = await agent.post(LOGIN).type("form").set("Origin", origin).set("Sec-Fetch-Site", "cross-site").send(DEMO);
      expect([origin, res.status]).toEqual([origin, 200]);
    }
    expect((await agent.post(LOGIN).set("Origin", "http://localhost:8100").send(DEMO)).status).toBe(403);
  });

  it("never admits a login from Origin: null, which any site's sandboxed frame sends, however it is sent", async () => {
    const { agent, events } = createTestApp({ admitCrossSiteWithoutOrigin: true });
    const form = await agent.post(LOGIN).type("form").set("Origin", "null").set("Sec-Fetch-Site", "cross-site").send(DEMO);
    const withHeader = await agent.post(LOGIN).type("form").set("Origin", "null").set("X-CSRF-Token", "anything").send(DEMO);
    const json = await agent.post(LOGIN).set("Origin", " Null ").set("Sec-Fetch-Site", "cross-site").send(DEMO);
    expect([form.status, withHeader.status, json.status]).toEqual([403, 403, 403]);
    const refusals = events.filter((event) => event.type === "login.cross-site");
    expect(refusals).toHaveLength(3);
    // The event says where a file: app goes instead.
    expect(refusals[1]).toMatchObject({ origin: "null", message: expect.stringMatching(/never trusted.*admitCrossSiteWithoutOrigin.*custom scheme/) });
  });

  it("names the fix in the event, and once on stderr, when the Origin differs only in scheme (a TLS-terminating proxy not trusted)", async () => {
    // Behind a proxy that ends TLS, without trust proxy, the request looks like plain HTTP.
    const { agent, events } = createTestApp({ baseUrl: undefined, sessionName: "SESSfixed" });
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => written.push(String(chunk)) > 0);
    vi.stubEnv("NODE_ENV", "production");
    try {
      for (let i = 0; i < 2; i++) {
        const res = await agent.post(LOGIN).set("Host", "api.example.com").set("Origin", "https://api.example.com").send(DEMO);
        expect(res.status).toBe(403);
      }
    } finally {
      vi.unstubAllEnvs();
      stderr.mockRestore();
    }
    const event = events.find((e) => e.type === "login.cross-site") as { message: string };
    expect(event.message).toContain("http://api.example.com");
    // Express's own setting, not another framework's.
    expect(event.message).toMatch(/only in scheme.*app\.set\("trust proxy", 1\).*baseUrl.*trustedOrigins/);
    expect(written.filter((line) => line.includes("only in scheme"))).toHaveLength(1);
    // Another site's origin is only an event: nothing more on stderr.
    expect(written).toHaveLength(1);
  });

  it("checks only login: connect, logout and the token calls of a cross-site page change no session of ours", async () => {
    const { agent } = createTestApp();
    const connect = await agent.post("/services/json/system/connect").set("Origin", "https://evil.example").set("Sec-Fetch-Site", "cross-site");
    expect(connect.status).toBe(200);
    expect(connect.body.user.uid).toBe(0);
  });

  it("refuses an invalid trustedOrigins entry at start-up", () => {
    const { options } = createTestApp();
    expect(() => createSessionAuthRouter({ ...options, trustedOrigins: ["https://app.example.com/login"] })).toThrow(/trustedOrigins\.0: must be an origin/);
    expect(() => createSessionAuthRouter({ ...options, trustedOrigins: ["*"] })).toThrow(TypeError);
  });
});
