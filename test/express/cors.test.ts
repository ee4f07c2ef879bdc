import { afterEach, describe, expect, it, vi } from "vitest";
import { memorySessionStore, memoryUserStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { createTestApp, fastHasher, SECRET, USERS } from "../helpers/app.js";

const APP = "https://app.example.org";
const LOGIN = "/services/json/user/login.json";
const DEMO = { username: "demo", password: "demo-password" };
const CROSS_SITE = { trustedOrigins: [APP], sameSite: "none", cookieSecure: "always", baseUrl: "https://sports.test" } as const;

// What CORS answers on each binding (preflights, headers on replies and denials, cors.paths,
// cors: false, the start-up warning) is one table in test/bindings/cors.test.ts.
describe("CORS options", () => {
  it("refuses cors settings without trustedOrigins, and header-breaking values, at start-up", () => {
    const options = { userStore: memoryUserStore(USERS, { hasher: fastHasher }), sessionStore: memorySessionStore(), secret: SECRET };
    expect(() => createSessionAuthRouter({ ...options, cors: { maxAge: 60 } })).toThrow(/cors: answers the origins of trustedOrigins/);
    expect(() => createSessionAuthRouter({ ...options, trustedOrigins: [APP], cors: { methods: ["GET\r\nX: y"] } })).toThrow(TypeError);
  });
});

describe("cookies from app origins of other sites", () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes the start-up warning (config.cross-site-cookie) to stderr when there is no onEvent", () => {
    vi.stubEnv("NODE_ENV", "development");
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    createTestApp({ admitCrossSiteWithoutOrigin: true, baseUrl: undefined, onEvent: undefined });
    expect(write).toHaveBeenCalledTimes(1);
    expect(String(write.mock.calls[0]![0])).toMatch(/config\.cross-site-cookie origins=file: message=an app loaded from file: .*sameSite: "none"/);
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
