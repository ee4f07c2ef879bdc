import { describe, expect, it } from "vitest";
import { createTestApp, login, setCookies, statusText } from "../helpers/app.js";

describe("POST user/login", () => {
  it("logs in with form credentials and answers sessid, session_name, token and user", async () => {
    const { app } = createTestApp();
    const { res, sessid, session_name, token, user } = await login(app);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(Object.keys(res.body as object)).toEqual(["sessid", "session_name", "token", "user"]);
    expect(sessid).toMatch(/^[\w-]{43}$/);
    expect(session_name).toMatch(/^SESS[0-9a-f]{32}$/);
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(user).toMatchObject({ uid: "14", name: "demo", mail: "demo@example.com", status: "1", roles: { "2": "authenticated user" } });
    expect(typeof user.login).toBe("number");
    expect(typeof user.created).toBe("string");
    expect(typeof user.access).toBe("string");
    expect(user).not.toHaveProperty("pass");
    expect(user).not.toHaveProperty("passwordHash");
    expect(user).not.toHaveProperty("init");
  });

  it("sends the same id as a Set-Cookie with Path=/, HttpOnly, SameSite=Lax and no Secure over HTTP", async () => {
    const { app } = createTestApp();
    const { res, sessid, session_name } = await login(app);
    const [cookie] = setCookies(res);
    expect(cookie).toMatch(new RegExp(`^${session_name}=${sessid}; `));
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Max-Age=2000000");
    expect(cookie).not.toContain("Secure");
  });

  it("marks the cookie Secure and names it SSESS over HTTPS", async () => {
    const { app } = createTestApp();
    app.set("trust proxy", true);
    const res = await (await import("supertest")).default(app)
      .post("/services/json/user/login")
      .set("X-Forwarded-Proto", "https")
      .send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(200);
    expect((res.body as { session_name: string }).session_name).toMatch(/^SSESS[0-9a-f]{32}$/);
    expect(setCookies(res)[0]).toContain("; Secure");
  });

  it("accepts JSON and the API 1.1 names name/pass", async () => {
    const { agent } = createTestApp();
    const json = await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(json.status).toBe(200);
    const v11 = await agent.post("/services/json/user/login").send({ name: "demo", pass: "demo-password" });
    expect(v11.status).toBe(200);
  });

  it("works without the .json suffix and with a trailing slash", async () => {
    const { agent } = createTestApp();
    for (const path of ["/services/json/user/login", "/services/json/user/login.json", "/services/json/user/login/"]) {
      const res = await agent.post(path).type("form").send("username=demo&password=demo-password");
      expect(res.status, path).toBe(200);
    }
  });

  it("issues a new id on every login, even when the client sent one", async () => {
    const { app, agent } = createTestApp();
    const first = await login(app);
    const second = await agent.post("/services/json/user/login").set("Cookie", `${first.session_name}=attacker-chosen-value-000000000000000000000`).send({ username: "demo", password: "demo-password" });
    expect(second.status).toBe(200);
    const body = second.body as { sessid: string };
    expect(body.sessid).not.toBe(first.sessid);
    expect(body.sessid).not.toBe("attacker-chosen-value-000000000000000000000");
  });

  it("answers 401 Wrong username or password. for a wrong password, an unknown user, an empty name or password", async () => {
    const { agent } = createTestApp();
    for (const body of [
      { username: "demo", password: "nope" },
      { username: "nobody", password: "demo-password" },
      { username: "", password: "demo-password" },
      { username: "demo", password: "   " },
      { username: "0", password: "x" },
    ]) {
      const res = await agent.post("/services/json/user/login").send(body);
      expect(res.status).toBe(401);
      expect(statusText(res)).toBe("Unauthorized : Wrong username or password.");
      expect(res.text).toBe('["Wrong username or password."]');
      expect(res.headers["content-type"]).toBe("application/json");
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("matches user names case-insensitively, as Drupal on MySQL", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/login").send({ username: "DEMO", password: "demo-password" });
    expect(res.status).toBe(200);
  });

  it("answers 401 Missing required argument for a missing username or password", async () => {
    const { agent } = createTestApp();
    const noName = await agent.post("/services/json/user/login").send({ password: "x" });
    expect(noName.status).toBe(401);
    expect(statusText(noName)).toBe("Unauthorized : Missing required argument username");
    expect(noName.text).toBe('["Missing required argument username"]');
    const noPass = await agent.post("/services/json/user/login").send({ username: "demo", password: null });
    expect(noPass.text).toBe('["Missing required argument password"]');
    const v11 = await agent.post("/services/json/user/login").set("Services-User-Login-Version", "1.1").send({});
    expect(v11.text).toBe('["Missing required argument name"]');
  });

  it("answers 403 for a blocked account, with the name escaped as Drupal's %placeholder", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/login").send({ username: "blocked", password: "blocked-password" });
    expect(res.status).toBe(403);
    expect(statusText(res)).toBe(": The username blocked has not been activated or is blocked.");
    expect(res.text).toBe('["The username <em class=\\"placeholder\\">blocked</em> has not been activated or is blocked."]');
  });

  it("hides blocked accounts behind the usual 401 with blockedAccountResponse: generic", async () => {
    const { agent } = createTestApp({ blockedAccountResponse: "generic" });
    const res = await agent.post("/services/json/user/login").send({ username: "blocked", password: "blocked-password" });
    expect(res.status).toBe(401);
    expect(res.text).toBe('["Wrong username or password."]');
  });

  it("answers 406 Already logged in for a live session with a valid token, and 401 CSRF without one", async () => {
    const { app, agent } = createTestApp({}, [
      { uid: "16", name: "O'Brien <b>", password: "obrien-password" },
    ]);
    const session = await login(app, "O'Brien <b>", "obrien-password");
    const again = await agent.post("/services/json/user/login").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send({ username: "x", password: "y" });
    expect(again.status).toBe(406);
    expect(statusText(again)).toBe("Not Acceptable : Already logged in as O&#039;Brien &lt;b&gt;.");
    expect(again.text).toBe('["Already logged in as O&#039;Brien &lt;b&gt;."]');
    const noToken = await agent.post("/services/json/user/login").set("Cookie", session.cookie).send({ username: "x", password: "y" });
    expect(noToken.status).toBe(401);
    expect(statusText(noToken)).toBe("Unauthorized : CSRF validation failed");
    expect(noToken.text).toBe('["CSRF validation failed"]');
  });

  it("checks arguments before CSRF, as Services' pipeline does", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const res = await agent.post("/services/json/user/login").set("Cookie", session.cookie).send({});
    expect(res.text).toBe('["Missing required argument username"]');
  });

  it("ignores a stale cookie and a junk token from an anonymous client, and deletes the stale cookie", async () => {
    const { app, agent } = createTestApp();
    const { session_name } = await login(app);
    const res = await agent.post("/services/json/user/login").set("Cookie", `${session_name}=stale`).set("X-CSRF-Token", "junk").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(200);
    const failed = await agent.post("/services/json/user/login").set("Cookie", `${session_name}=stale`).send({ username: "demo", password: "bad" });
    expect(failed.status).toBe(401);
    expect(setCookies(failed)[0]).toMatch(new RegExp(`^${session_name}=deleted; .*Max-Age=0`));
  });

  it("shows init to administrators only", async () => {
    const { app } = createTestApp();
    const admin = await login(app, "admin", "admin-password");
    expect(admin.user.init).toBe("admin@example.com");
    expect(admin.user.roles).toEqual({ "2": "authenticated user", "3": "administrator" });
  });

  it("sends a NULL users.mail as null, as Drupal does", async () => {
    const { app } = createTestApp({}, [{ uid: "21", name: "nomail", password: "pw-nomail-1", mail: "", fields: { mail: null } }]);
    const { user } = await login(app, "nomail", "pw-nomail-1");
    expect(user.mail).toBeNull();
    expect(Object.keys(user).slice(0, 4)).toEqual(["uid", "name", "mail", "theme"]);
  });

  it("writes the login time to the user store", async () => {
    const { app, userStore } = createTestApp();
    const { user } = await login(app);
    expect((await userStore.findById("14"))?.login).toBe(user.login);
  });

  it("escapes non-ASCII as lower-case \\u escapes and leaves / bare, as PHP's json_encode", async () => {
    const { app } = createTestApp({}, [{ uid: "20", name: "Tomás/ü", password: "pw-tomas-1", mail: "t@example.com" }]);
    const { res } = await login(app, "Tomás/ü", "pw-tomas-1");
    expect(res.text).toContain('"name":"Tom\\u00e1s/\\u00fc"');
  });
});
