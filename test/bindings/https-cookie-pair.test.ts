/**
 * Over HTTPS the session cookie is `SSESS…`; a client that once used the site over plain HTTP
 * may still hold the `SESS…` cookie of the same hash. Drupal's `_drupal_session_destroy()`
 * deletes that one too (without `secure`), and only the cookie: the recording in
 * test/fixtures/drupal7-transcript/https-transcript.json shows it, and the conformance replay
 * compares every header. Here the same, on every binding, behind a trusted loopback proxy.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";
import { setCookies } from "../helpers/app.js";

const DELETED = "=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; path=/";

describe.each(FRAMEWORKS)("the SESS… twin of an HTTPS session cookie on %s", (binding) => {
  it("is deleted beside the SSESS… cookie at logout and with a stale cookie, and only when the request carried it", async () => {
    const { server } = await bindingApp(binding, {}, "loopback");
    const agent = request(server);
    const login = async (https: boolean) => {
      const res = await agent
        .post("/services/json/user/login")
        .set("X-Forwarded-Proto", https ? "https" : "http")
        .send({ username: "demo", password: "demo-password" });
      return res.body as { sessid: string; session_name: string; token: string };
    };
    const plain = await login(false);
    const secure = await login(true);
    expect(secure.session_name).toBe(`S${plain.session_name}`);
    const both = `${plain.session_name}=${plain.sessid}; ${secure.session_name}=${secure.sessid}`;

    const logout = await agent.post("/services/json/user/logout").set("X-Forwarded-Proto", "https").set("Cookie", both).set("X-CSRF-Token", secure.token);
    expect([logout.status, setCookies(logout)]).toEqual([
      200,
      [`${secure.session_name}${DELETED}; secure; HttpOnly`, `${plain.session_name}${DELETED}; HttpOnly`],
    ]);
    // Only the cookie: the plain-HTTP session is not the one that logged out, as in Drupal.
    const connect = await agent.post("/services/json/system/connect").set("Cookie", `${plain.session_name}=${plain.sessid}`).set("X-CSRF-Token", plain.token);
    expect((connect.body as { user: { uid: unknown } }).user.uid).toBe("14");

    const stale = await agent.get("/services/session/token").set("X-Forwarded-Proto", "https").set("Cookie", both);
    expect(setCookies(stale)).toEqual([`${secure.session_name}${DELETED}; secure; HttpOnly`, `${plain.session_name}${DELETED}; HttpOnly`]);
    const alone = await agent.get("/services/session/token").set("X-Forwarded-Proto", "https").set("Cookie", `${secure.session_name}=${secure.sessid}`);
    expect(setCookies(alone)).toEqual([`${secure.session_name}${DELETED}; secure; HttpOnly`]);
  });
});
