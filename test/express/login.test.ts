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

  it("reads a form body as PHP's parse_str does: the last of a repeated name wins, pairs past max_input_vars are dropped", async () => {
    const { agent } = createTestApp({ bodyLimit: 200_000 });
    const repeated = await agent.post("/services/json/user/login").type("form").send("username=nobody&password=x&username=demo&password=demo-password");
    expect(repeated.status).toBe(200);
    const padding = Array.from({ length: 1000 }, (_, i) => `f${i}=x`).join("&");
    const late = await agent.post("/services/json/user/login").type("form").send(`${padding}&username=demo&password=demo-password`);
    expect([late.status, late.text]).toEqual([401, '["Missing required argument username"]']);
    const inTime = await agent
      .post("/services/json/user/login")
      .type("form")
      .send(`${padding.split("&").slice(2).join("&")}&username=demo&password=demo-password`);
    expect(inTime.status).toBe(200);
  });

  it("sends the same id as a Set-Cookie written as Drupal's PHP writes it: no SameSite, no Domain for an IP host, no Secure over HTTP", async () => {
    const { app } = createTestApp();
    const before = Math.floor(Date.now() / 1000);
    const { res, sessid, session_name } = await login(app);
    const [cookie, ...rest] = setCookies(res);
    expect(rest).toEqual([]);
    const match = new RegExp(`^${session_name}=${sessid}; expires=(.+ GMT); Max-Age=2000000; path=/; HttpOnly$`).exec(cookie!);
    expect(match, cookie).not.toBeNull();
    const expires = Date.parse(match![1]!) / 1000;
    expect(expires).toBeGreaterThanOrEqual(before + 2_000_000);
    expect(expires).toBeLessThanOrEqual(before + 2_000_000 + 5);
  });

  it("sets Domain=.<host> by Drupal's rule: port dropped, www. kept, not for IPs, localhost or single labels", async () => {
    const { agent } = createTestApp();
    const cases: Record<string, string | undefined> = {
      "api.example.com": ".api.example.com",
      "www.example.com:8443": ".www.example.com",
      "Sports.Example.COM": ".sports.example.com",
      "example.com": ".example.com",
      localhost: undefined,
      "localhost:3000": undefined,
      "10.0.0.7:8080": undefined,
      "[::1]:3000": undefined,
      intranet: undefined,
      // Anything but a plain host name never reaches the Set-Cookie header.
      "api.example.com; domain=.com": undefined,
    };
    for (const [host, domain] of Object.entries(cases)) {
      const res = await agent.post("/services/json/user/login").set("Host", host).send({ username: "demo", password: "demo-password" });
      const [cookie] = setCookies(res);
      if (domain === undefined) expect(cookie, host).not.toContain("domain=");
      else expect(cookie, host).toMatch(new RegExp(`; path=/; domain=${domain.replaceAll(".", "\\.")}; HttpOnly$`));
    }
  });

  it("takes Domain from cookieDomain under the same rule, and adds SameSite only when configured", async () => {
    const domained = createTestApp({ cookieDomain: ".example.com", sameSite: "strict" });
    const [cookie] = setCookies(
      await domained.agent.post("/services/json/user/login").set("Host", "api.example.com").send({ username: "demo", password: "demo-password" }),
    );
    expect(cookie).toMatch(/; path=\/; domain=\.example\.com; HttpOnly; SameSite=Strict$/);
    // As in Drupal, a $cookie_domain without a second dot names the cookie but sets no Domain.
    const twoLabels = createTestApp({ cookieDomain: "example.com" });
    const [hostOnly] = setCookies(
      await twoLabels.agent.post("/services/json/user/login").set("Host", "api.example.com").send({ username: "demo", password: "demo-password" }),
    );
    expect(hostOnly).not.toContain("domain=");
    expect(() => createTestApp({ sameSite: "none" })).toThrow(/sameSite "none" needs cookieSecure: "always"/);
    const none = createTestApp({ sameSite: "none", cookieSecure: "always" });
    const [secure] = setCookies(await none.agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" }));
    expect(secure).toMatch(/^SSESS[0-9a-f]{32}=[\w-]{43}; .*; path=\/; secure; HttpOnly; SameSite=None$/);
  });

  it("marks the cookie secure and names it SSESS over HTTPS, with the same hash as over HTTP", async () => {
    const { app, agent } = createTestApp();
    app.set("trust proxy", true);
    const plain = await login(app);
    const res = await agent
      .post("/services/json/user/login")
      .set("X-Forwarded-Proto", "https")
      .set("Host", "api.example.com")
      .send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(200);
    const name = (res.body as { session_name: string }).session_name;
    expect(name).toBe(`S${plain.session_name}`);
    expect(setCookies(res)[0]).toMatch(
      new RegExp(`^${name}=[\\w-]{43}; expires=.+; Max-Age=2000000; path=/; domain=\\.api\\.example\\.com; secure; HttpOnly$`),
    );
  });

  it("reads only its API version's argument names: username/password at 1.0, name/pass at 1.1 or with a version header", async () => {
    const { agent } = createTestApp();
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(200);
    const v10 = await agent.post("/services/json/user/login").send({ name: "demo", pass: "demo-password" });
    expect([v10.status, v10.text]).toEqual([401, '["Missing required argument username"]']);
    for (const header of ["services_user_login_version", "Services-User-Login-Version", "services_node_index_version"]) {
      const v11 = await agent.post("/services/json/user/login").set(header, "1.1").send({ name: "demo", pass: "demo-password" });
      expect(v11.status, header).toBe(200);
    }
    const { agent: configured } = createTestApp({ loginApiVersion: "1.1" });
    expect((await configured.post("/services/json/user/login").send({ name: "demo", pass: "demo-password" })).status).toBe(200);
    expect((await configured.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).text).toBe(
      '["Missing required argument name"]',
    );
    expect(
      (await configured.post("/services/json/user/login").set("Services-User-Login-Version", "1.0").send({ username: "demo", password: "demo-password" }))
        .status,
    ).toBe(200);
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
    const second = await agent
      .post("/services/json/user/login")
      .set("Cookie", `${first.session_name}=attacker-chosen-value-000000000000000000000`)
      .send({ username: "demo", password: "demo-password" });
    expect(second.status).toBe(200);
    const body = second.body as { sessid: string };
    expect(body.sessid).not.toBe(first.sessid);
    expect(body.sessid).not.toBe("attacker-chosen-value-000000000000000000000");
  });

  it("answers 401 Wrong username or password. for a wrong password, an unknown user, an empty password", async () => {
    const { agent } = createTestApp();
    for (const body of [
      { username: "demo", password: "nope" },
      { username: "nobody", password: "demo-password" },
      { username: "demo", password: "" },
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

  it("answers an empty name as blocked, as Drupal's user_is_blocked('') finds its anonymous row, without counting a failure", async () => {
    const { agent } = createTestApp({ throttle: { ipLimit: 1 } });
    for (const password of ["", "demo-password"]) {
      const res = await agent.post("/services/json/user/login").send({ username: "", password });
      expect(res.status).toBe(403);
      expect(statusText(res)).toBe(": The username  has not been activated or is blocked.");
      expect(res.text).toBe('["The username <em class=\\"placeholder\\"></em> has not been activated or is blocked."]');
    }
    // With an IP limit of 1, a counted failure would have blocked this login.
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(200);
  });

  it("hides blocked accounts behind the usual 401 with blockedAccountResponse: generic", async () => {
    const { agent } = createTestApp({ blockedAccountResponse: "generic" });
    const res = await agent.post("/services/json/user/login").send({ username: "blocked", password: "blocked-password" });
    expect(res.status).toBe(401);
    expect(res.text).toBe('["Wrong username or password."]');
  });

  it("answers 406 Already logged in for a live session with a valid token, and 401 CSRF without one", async () => {
    const { app, agent } = createTestApp({}, [{ uid: "16", name: "O'Brien <b>", password: "obrien-password" }]);
    const session = await login(app, "O'Brien <b>", "obrien-password");
    const again = await agent
      .post("/services/json/user/login")
      .set("Cookie", session.cookie)
      .set("X-CSRF-Token", session.token)
      .send({ username: "x", password: "y" });
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
    const res = await agent
      .post("/services/json/user/login")
      .set("Cookie", `${session_name}=stale`)
      .set("X-CSRF-Token", "junk")
      .send({ username: "demo", password: "demo-password" });
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

describe("the endpoint's replies on Express", () => {
  it("keeps their headers readable by a logger on finish, even when nothing set one before", async () => {
    const express = (await import("express")).default;
    const { memorySessionStore, memoryUserStore } = await import("services-session-auth");
    const { createSessionAuthRouter } = await import("services-session-auth/express");
    const request = (await import("supertest")).default;
    const app = express().disable("x-powered-by");
    const seen: Record<string, unknown>[] = [];
    app.use((_req, res, next) => {
      res.on("finish", () => seen.push(res.getHeaders()));
      next();
    });
    app.use(createSessionAuthRouter({ userStore: memoryUserStore([]), sessionStore: memorySessionStore(), secret: "k3J9xQv2LmP8zR4tW7yB1nC6dF0gH5jK" }));
    await request(app).post("/services/json/system/connect").send();
    expect(seen[0]).toMatchObject({ "content-type": "application/json", "content-length": expect.any(Number) as unknown });
  });
});
