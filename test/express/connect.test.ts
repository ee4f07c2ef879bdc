import request from "supertest";
import { describe, expect, it } from "vitest";
import { createTestApp, login, setCookies, statusText } from "../helpers/app.js";

describe("POST system/connect", () => {
  it("answers an anonymous caller with uid 0, the anonymous role, a throw-away sessid and no cookie", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/system/connect.json").set("Content-Type", "application/json").send('""');
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["set-cookie"]).toBeUndefined();
    const body = res.body as { sessid: string; session_name: string; user: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(["sessid", "session_name", "user"]);
    expect(body.sessid).toMatch(/^[\w-]{43}$/);
    expect(body.session_name).toMatch(/^SESS[0-9a-f]{32}$/);
    expect(body.user).toEqual({ uid: 0, hostname: expect.any(String), roles: { "1": "anonymous user" }, cache: 0, timestamp: expect.any(Number) });
    expect(body).not.toHaveProperty("token");
    const again = await agent.post("/services/json/system/connect").send();
    expect((again.body as { sessid: string }).sessid).not.toBe(body.sessid);
  });

  it("answers a logged-in caller with the session-join row: strings, login included, and the hashed sid", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const res = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
    expect(res.status).toBe(200);
    const body = res.body as { sessid: string; session_name: string; user: Record<string, unknown> };
    expect(body.sessid).toBe(session.sessid);
    expect(body.session_name).toBe(session.session_name);
    expect(body.user).toMatchObject({
      uid: "14",
      name: "demo",
      status: "1",
      login: String(session.user.login),
      picture: "0",
      ssid: "",
      cache: "0",
      session: "",
    });
    expect(body.user.sid).toMatch(/^[\w-]{43}$/);
    expect(body.user.sid).not.toBe(session.sessid);
    expect(body.user.roles).toEqual({ "2": "authenticated user" });
    expect(body.user).not.toHaveProperty("pass");
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("over HTTPS, gives the user object's ssid the sid, as Drupal keys an HTTPS session by both", async () => {
    const { agent } = createTestApp({ baseUrl: undefined }, undefined, (app) => app.set("trust proxy", "loopback"));
    const https = (req: ReturnType<typeof agent.post>) => req.set("Host", "api.example.com").set("X-Forwarded-Proto", "https");
    const loggedIn = await https(agent.post("/services/json/user/login")).send({ username: "demo", password: "demo-password" });
    const { session_name, sessid, token } = loggedIn.body as { session_name: string; sessid: string; token: string };
    expect(session_name).toMatch(/^SSESS/);
    const res = await https(agent.post("/services/json/system/connect")).set("Cookie", `${session_name}=${sessid}`).set("X-CSRF-Token", token).send();
    const user = (res.body as { user: { sid: string; ssid: string } }).user;
    expect(user.sid).toMatch(/^[\w-]{43}$/);
    expect(user.ssid).toBe(user.sid);
  });

  it("requires the CSRF token from a logged-in caller, in the header or as services_token", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const denied = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).send();
    expect(denied.status).toBe(401);
    expect(statusText(denied)).toBe("Unauthorized : CSRF validation failed");
    expect(denied.text).toBe('["CSRF validation failed"]');
    const wrong = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).set("X-CSRF-Token", "x".repeat(43)).send();
    expect(wrong.status).toBe(401);
    const query = await agent.post(`/services/json/system/connect?services_token=${session.token}`).set("Cookie", session.cookie).send();
    expect(query.status).toBe(200);
    const form = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).type("form").send({ services_token: session.token });
    expect(form.status).toBe(200);
    const json = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).send({ services_token: session.token });
    expect(json.status).toBe(401);
  });

  it("treats stale, unknown and junk cookies as anonymous and deletes them", async () => {
    const { app, agent } = createTestApp();
    const { session_name } = await login(app);
    for (const value of ["", "junk", "A".repeat(43), "%00%ff", '"quoted"']) {
      const res = await agent.post("/services/json/system/connect").set("Cookie", `${session_name}=${value}`).set("X-CSRF-Token", "whatever").send();
      expect(res.status, value).toBe(200);
      expect((res.body as { user: { uid: unknown } }).user.uid).toBe(0);
    }
    const stale = await agent
      .post("/services/json/system/connect")
      .set("Cookie", `${session_name}=${"A".repeat(43)}`)
      .send();
    expect(setCookies(stale)[0]).toMatch(new RegExp(`^${session_name}=deleted;`));
  });

  it("shows an IPv4 client as Drupal does, without the ::ffff: a dual-stack socket reports", async () => {
    const { app } = createTestApp();
    const server = app.listen(0, "::");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as { port: number };
      const origin = `http://127.0.0.1:${port}`;
      const anonymous = await request(origin).post("/services/json/system/connect").send();
      expect((anonymous.body as { user: { hostname: string } }).user.hostname).toBe("127.0.0.1");
      const loggedIn = await request(origin).post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
      const { session_name, sessid, token } = loggedIn.body as { session_name: string; sessid: string; token: string };
      const connect = await request(origin).post("/services/json/system/connect").set("Cookie", `${session_name}=${sessid}`).set("X-CSRF-Token", token).send();
      expect((connect.body as { user: { hostname: string } }).user.hostname).toBe("127.0.0.1");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
