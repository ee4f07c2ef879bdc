/**
 * CORS for hybrid apps on every binding, from one table: the same app (test/helpers/bindings.ts)
 * on the Express router, the Fastify plugin and the fetch handler in Hono, the same requests
 * from an app origin, the same headers. What CORS decides on its own is in test/cors; what only
 * Express has (a router mounted elsewhere) stays with Express.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { SessionAuthOptions } from "services-session-auth";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS, type Framework } from "../helpers/frameworks.js";

type Agent = ReturnType<typeof request>;

const APP = "https://app.example.org";
const LOGIN = "/services/json/user/login.json";
const DEMO = { username: "demo", password: "demo-password" };
const CROSS_SITE = { trustedOrigins: [APP], sameSite: "none", cookieSecure: "always", baseUrl: "https://sports.test" } as const;

/** The headers a preflight answered by the package carries, whatever the binding. */
const PREFLIGHT = {
  "access-control-allow-origin": APP,
  "access-control-allow-credentials": "true",
  "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
  // The Services version headers are a family: allowed without being listed. x-unknown is left out.
  "access-control-allow-headers": "content-type, x-csrf-token, services_user_login_version",
  "access-control-max-age": "600",
  "cache-control": "no-store",
  vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
};

function preflight(agent: Agent, path: string, origin = APP) {
  return agent
    .options(path)
    .set("Origin", origin)
    .set("Access-Control-Request-Method", "POST")
    .set("Access-Control-Request-Headers", "content-type,x-csrf-token,services_user_login_version,x-unknown");
}

async function login(agent: Agent) {
  const res = await agent.post(LOGIN).set("Origin", APP).set("X-CSRF-Token", "any").type("form").send(DEMO);
  expect([res.status, res.headers["access-control-allow-origin"]]).toEqual([200, APP]);
  // What a browser keeps from another site's reply.
  expect(String(res.headers["set-cookie"])).toMatch(/; secure; httponly; samesite=none$/i);
  const body = res.body as { sessid: string; session_name: string; token: string };
  return { ...body, cookie: `${body.session_name}=${body.sessid}` };
}

async function app(binding: Framework, overrides: Partial<SessionAuthOptions> = CROSS_SITE) {
  const { server, events } = await bindingApp(binding, overrides);
  return { agent: request(server), events };
}

describe.each(FRAMEWORKS)("CORS for the app origins on %s", (binding) => {
  it("answers a listed origin's preflight 204 on the endpoint, its ?q= spelling, services/session/token and routes below the endpoint", async () => {
    const { agent } = await app(binding);
    for (const path of ["/services/json/system/connect.json", "/?q=services/json/user/login.json", "/services/session/token", "/services/json/players"]) {
      const res = await preflight(agent, path);
      expect([res.status, res.text], path).toEqual([204, ""]);
      expect(res.headers, path).toMatchObject(PREFLIGHT);
      // RFC 9110 §8.6: no Content-Length on a 204.
      expect(res.headers, path).not.toHaveProperty("content-length");
    }
  });

  it("refuses null as a trusted origin at start-up, saying what a file: app does instead", async () => {
    for (const origin of ["null", " NULL ", "file://"]) {
      await expect(bindingApp(binding, { ...CROSS_SITE, trustedOrigins: [APP, origin] }), origin).rejects.toThrow(
        /trustedOrigins\.1: must not be null: every sandboxed iframe and data: document .* admitCrossSiteWithoutOrigin: true/s,
      );
    }
  });

  it("never gives Origin: null (a sandboxed frame, a data: document) CORS, a session's token or a login", async () => {
    // The most permissive set-up a file: app could ask for: every trusted origin and the Android file: opt-in.
    const { agent, events } = await app(binding, { ...CROSS_SITE, admitCrossSiteWithoutOrigin: true, cors: { paths: ["/*"] } });
    const { cookie, token } = await login(agent);
    for (const path of ["/services/session/token", "/services/json/system/connect.json", LOGIN, "/services/json/players", "/notes"]) {
      const res = await preflight(agent, path, "null");
      expect(res.status, path).not.toBe(204);
      expect(res.headers, path).not.toHaveProperty("access-control-allow-origin");
      expect(res.headers, path).not.toHaveProperty("access-control-allow-credentials");
    }
    // The reads a sandboxed frame would make with the victim's cookie: answered (the browser
    // sends them), but with nothing that lets the frame's script read the answer.
    const read = [
      await agent.get("/services/session/token").set("Origin", "null").set("Cookie", cookie),
      await agent.post("/services/json/system/connect.json").set("Origin", "null").set("Cookie", cookie).set("X-CSRF-Token", token),
      await agent.get("/services/json/players").set("Origin", "null").set("Cookie", cookie),
    ];
    for (const res of read) {
      expect(res.headers).not.toHaveProperty("access-control-allow-origin");
      expect(res.headers).not.toHaveProperty("access-control-allow-credentials");
    }
    // A login from null is refused however it is sent: a form, a header no form can send, JSON.
    const tries = [
      agent.post(LOGIN).set("Origin", "null").type("form").send(DEMO),
      agent.post(LOGIN).set("Origin", "null").set("Sec-Fetch-Site", "cross-site").set("X-CSRF-Token", "any").type("form").send(DEMO),
      agent.post(LOGIN).set("Origin", "null").send(DEMO),
      agent.post("/?q=services/json/user/login.json").set("Origin", "null").set("X-CSRF-Token", "any").send(DEMO),
    ];
    for (const res of await Promise.all(tries)) {
      expect([res.status, res.headers["set-cookie"], res.headers["access-control-allow-origin"]]).toEqual([403, undefined, undefined]);
    }
    const refusals = events.filter((event) => event.type === "login.cross-site");
    expect(refusals).toHaveLength(4);
    expect(refusals[0]).toMatchObject({ origin: "null", message: expect.stringContaining("never trusted") });
  });

  it("gives an unlisted origin no CORS header, only Vary: Origin, and still refuses its login", async () => {
    const { agent, events } = await app(binding);
    const res = await preflight(agent, "/services/json/user/login.json", "https://evil.example");
    expect(res.status).toBe(200); // Services' own OPTIONS reply
    expect(res.headers).not.toHaveProperty("access-control-allow-origin");
    const refused = await agent.post(LOGIN).set("Origin", "https://evil.example").type("form").send(DEMO);
    expect(refused.status).toBe(403);
    expect(refused.headers).not.toHaveProperty("access-control-allow-origin");
    expect(refused.headers.vary).toBe("Origin");
    const guarded = await agent.get("/services/json/players").set("Origin", "https://evil.example");
    expect([guarded.status, guarded.headers.vary, guarded.headers["access-control-allow-origin"]]).toEqual([401, "Origin", undefined]);
    expect(events.map((event) => event.type)).toEqual(["login.cross-site"]);
  });

  it("adds the headers to actual replies: the token, logins, Services' 404s, guarded routes and their 401s and 403s", async () => {
    const { agent } = await app(binding);
    const allowed = (res: request.Response) => [res.status, res.headers["access-control-allow-origin"], res.headers["access-control-allow-credentials"]];
    const token = await agent.get("/services/session/token").set("Origin", APP);
    expect(allowed(token)).toEqual([200, APP, "true"]);
    const wrong = await agent.post(LOGIN).set("Origin", APP).set("X-CSRF-Token", token.text).type("form").send({ username: "demo", password: "nope" });
    expect(allowed(wrong)).toEqual([401, APP, "true"]);
    // The endpoint's own Vary stays beside CORS's.
    expect((await agent.post("/services/json/system/connect").set("Origin", APP)).headers.vary).toBe("Origin, Accept");
    expect(allowed(await agent.get("/services/json/teams").set("Origin", APP))).toEqual([404, APP, "true"]);
    expect(allowed(await agent.get("/services/json/players").set("Origin", APP))).toEqual([401, APP, "true"]);
    const session = await login(agent);
    expect(allowed(await agent.get("/services/json/players").set("Origin", APP).set("Cookie", session.cookie))).toEqual([200, APP, "true"]);
    expect(allowed(await agent.post("/services/json/players").set("Origin", APP).set("Cookie", session.cookie).send({}))).toEqual([401, APP, "true"]);
    expect(allowed(await agent.get("/services/json/admin").set("Origin", APP).set("Cookie", session.cookie))).toEqual([403, APP, "true"]);
    const welcome = await agent.get("/welcome").set("Origin", APP).set("Cookie", session.cookie);
    expect([...allowed(welcome), welcome.body]).toEqual([200, APP, "true", { name: "demo" }]);
  });

  it("answers preflights on the app's own paths where cors.paths says, and where a guard sees one; guards add the headers anywhere", async () => {
    const { agent } = await app(binding);
    expect((await preflight(agent, "/welcome")).headers).not.toHaveProperty("access-control-allow-origin");
    // A guarded route that takes any method sees the preflight itself, and its guard answers it
    // on every binding (a 204 with no error: never a pass into the route without a session).
    const atGuard = await preflight(agent, "/notes");
    expect(atGuard.status).toBe(204);
    expect(atGuard.headers).toMatchObject(PREFLIGHT);
    const denied = await agent.post("/notes").set("Origin", APP).send({});
    expect([denied.status, denied.headers["access-control-allow-origin"]]).toEqual([401, APP]);
    const { agent: listed } = await app(binding, { ...CROSS_SITE, cors: { paths: ["wel*"] } });
    const res = await preflight(listed, "/welcome");
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject(PREFLIGHT);
  });

  it("is off with cors: false: no preflight answered, no CORS header on any reply", async () => {
    const { agent } = await app(binding, { ...CROSS_SITE, cors: false });
    const res = await preflight(agent, "/services/json/system/connect.json");
    expect([res.status, res.headers["access-control-allow-origin"]]).toEqual([200, undefined]);
    const guarded = await agent.get("/services/json/players").set("Origin", APP);
    expect([guarded.status, guarded.headers["access-control-allow-origin"], guarded.headers.vary]).toEqual([401, undefined, undefined]);
    const token = await agent.get("/services/session/token").set("Origin", APP);
    expect([token.status, token.headers["access-control-allow-origin"], token.headers.vary]).toEqual([200, undefined, undefined]);
  });

  it("says at start-up which listed origins' sessions a browser would drop", async () => {
    const { events } = await app(binding, {
      trustedOrigins: [APP, "https://m.sports.test"],
      admitCrossSiteWithoutOrigin: true,
      baseUrl: "https://sports.test",
    });
    expect(events).toEqual([
      {
        type: "config.cross-site-cookie",
        origins: [APP, "file:"],
        message: expect.stringMatching(/sameSite: "none" and cookieSecure: "always"/),
        timestamp: expect.any(Number),
      },
    ]);
    expect((await app(binding)).events).toEqual([]);
  });
});
