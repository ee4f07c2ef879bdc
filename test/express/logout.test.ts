import { describe, expect, it } from "vitest";
import { createTestApp, login, setCookies, statusText } from "../helpers/app.js";

describe("POST user/logout", () => {
  it("destroys the session, expires the cookie and answers [true]; the old cookie is then anonymous", async () => {
    const { app, agent, sessionStore } = createTestApp();
    const session = await login(app);
    const res = await agent
      .post("/services/json/user/logout.json")
      .set("Cookie", session.cookie)
      .set("X-CSRF-Token", session.token)
      .set("Content-Type", "application/json")
      .send('""');
    expect(res.status).toBe(200);
    expect(res.text).toBe("[true]");
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["cache-control"]).toBe("no-store");
    // Clear-Site-Data would clear every cookie of the origin, a Drupal site's beside this one too: opt-in.
    expect(res.headers["clear-site-data"]).toBeUndefined();
    expect(setCookies(res)).toEqual([`${session.session_name}=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; path=/; HttpOnly`]);
    expect(await sessionStore.get(session.sessid)).toBeNull();
    const connect = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
    expect((connect.body as { user: { uid: unknown } }).user.uid).toBe(0);
  });

  it("sends Clear-Site-Data only when configured, and API 1.1's anonymous user for a version header", async () => {
    const { app, agent } = createTestApp({ clearSiteData: true });
    const session = await login(app);
    const res = await agent
      .post("/services/json/user/logout")
      .set("Cookie", session.cookie)
      .set("X-CSRF-Token", session.token)
      .set("services_user_logout_version", "1.1")
      .send();
    expect(res.headers["clear-site-data"]).toBe('"cookies"');
    expect(res.text).toBe('{"uid":0,"hostname":"127.0.0.1","roles":{"1":"anonymous user"},"cache":0}');
  });

  it("answers API 1.1's anonymous user when logoutApiVersion says so, and [true] for a 1.0 version header", async () => {
    const { app, agent } = createTestApp({ logoutApiVersion: "1.1" });
    const first = await login(app);
    const v11 = await agent.post("/services/json/user/logout").set("Cookie", first.cookie).set("X-CSRF-Token", first.token).send();
    expect(v11.text).toBe('{"uid":0,"hostname":"127.0.0.1","roles":{"1":"anonymous user"},"cache":0}');
    const second = await login(app);
    const v10 = await agent
      .post("/services/json/user/logout")
      .set("Cookie", second.cookie)
      .set("X-CSRF-Token", second.token)
      .set("Services-User-Logout-Version", "1.0")
      .send();
    expect(v10.text).toBe("[true]");
  });

  it("deletes the cookie with the Domain it was set with, once, as Drupal does; a host-only copy too when the request carried two", async () => {
    const { agent } = createTestApp();
    const loggedIn = await agent.post("/services/json/user/login").set("Host", "api.example.com").send({ username: "demo", password: "demo-password" });
    const { sessid, session_name, token } = loggedIn.body as { sessid: string; session_name: string; token: string };
    const res = await agent
      .post("/services/json/user/logout")
      .set("Host", "api.example.com")
      .set("Cookie", `${session_name}=${sessid}`)
      .set("X-CSRF-Token", token)
      .send();
    expect(res.text).toBe("[true]");
    const atDomain = `${session_name}=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; path=/; domain=.api.example.com; HttpOnly`;
    const hostOnly = `${session_name}=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; path=/; HttpOnly`;
    expect(setCookies(res)).toEqual([atDomain]);
    // The cookie is dead now: a token call or a logout with it gets the same one deletion.
    const token2 = await agent.get("/services/session/token").set("Host", "api.example.com").set("Cookie", `${session_name}=${sessid}`);
    expect(setCookies(token2)).toEqual([atDomain]);
    const again = await agent.post("/services/json/user/logout").set("Host", "api.example.com").set("Cookie", `${session_name}=${sessid}`).send();
    expect(again.status).toBe(406);
    expect(setCookies(again)).toEqual([atDomain]);

    const second = await agent.post("/services/json/user/login").set("Host", "api.example.com").send({ username: "demo", password: "demo-password" });
    const live = second.body as { sessid: string; token: string };
    const both = await agent
      .post("/services/json/user/logout")
      .set("Host", "api.example.com")
      .set("Cookie", `${session_name}=${sessid}; ${session_name}=${live.sessid}`)
      .set("X-CSRF-Token", live.token)
      .send();
    expect(both.text).toBe("[true]");
    expect(setCookies(both)).toEqual([atDomain, hostOnly]);
  });

  it("answers 406 User is not logged in. without a session", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/logout").send();
    expect(res.status).toBe(406);
    expect(statusText(res)).toBe("Not Acceptable : User is not logged in.");
    expect(res.text).toBe('["User is not logged in."]');
  });

  it("needs the CSRF token and leaves the session alone without it", async () => {
    const { app, agent, sessionStore } = createTestApp();
    const session = await login(app);
    const res = await agent.post("/services/json/user/logout").set("Cookie", session.cookie).send();
    expect(res.status).toBe(401);
    expect(res.text).toBe('["CSRF validation failed"]');
    expect(await sessionStore.get(session.sessid)).not.toBeNull();
  });

  it("ends only the session that logged out", async () => {
    const { app, agent, sessionStore } = createTestApp();
    const phone = await login(app);
    const tablet = await login(app);
    await agent.post("/services/json/user/logout").set("Cookie", phone.cookie).set("X-CSRF-Token", phone.token).send();
    expect(await sessionStore.get(tablet.sessid)).not.toBeNull();
  });
});
