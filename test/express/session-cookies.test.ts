import { CookieJar } from "tough-cookie";
import { describe, expect, it } from "vitest";
import { sessionCookieFor } from "services-session-auth";
import { createTestApp, login, setCookies } from "../helpers/app.js";
import { countCalls } from "../helpers/doubles.js";

const HOST = "api.example.com";
const DELETED = "deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; path=/";

/** Logs in under the production-like host, where Drupal's rule gives the cookie a Domain. */
async function loginAt(agent: ReturnType<typeof createTestApp>["agent"]) {
  const res = await agent.post("/services/json/user/login").set("Host", HOST).send({ username: "demo", password: "demo-password" });
  return res.body as { sessid: string; session_name: string; token: string };
}

describe("several session cookies of one name", () => {
  it("uses the one that names a live session, whichever comes first, and keeps only it", async () => {
    const { agent } = createTestApp();
    const live = await loginAt(agent);
    // A Drupal-era cookie for the same name, older, so a browser sends it first.
    const res = await agent
      .post("/services/json/system/connect")
      .set("Host", HOST)
      .set("Cookie", `${live.session_name}=drupal-era-session-id-00000000000000000000; ${live.session_name}=${live.sessid}`)
      .set("X-CSRF-Token", live.token)
      .send();
    expect((res.body as { sessid: string; user: { uid: unknown } }).user.uid).toBe("14");
    expect((res.body as { sessid: string }).sessid).toBe(live.sessid);
    // The live id set where this server keeps it (for the rest of its life), the host-only copy
    // deleted, and the live id set again for jars that take the two places for one.
    const [kept, deleted, again, ...rest] = setCookies(res);
    expect(kept).toMatch(new RegExp(`^${live.session_name}=${live.sessid}; expires=.+; Max-Age=\\d+; path=/; domain=\\.api\\.example\\.com; HttpOnly$`));
    expect(Number(/Max-Age=(\d+)/.exec(kept!)![1])).toBeGreaterThan(1_999_990);
    expect(deleted).toBe(`${live.session_name}=${DELETED}; HttpOnly`);
    expect(again).toBe(kept);
    expect(rest).toEqual([]);
  });

  it("does the same for requireSession, on the reply of the route it lets through", async () => {
    const { agent } = createTestApp();
    const live = await loginAt(agent);
    const res = await agent.get("/services/json/players").set("Host", HOST).set("Cookie", `${live.session_name}=stale-one-0000000000000000000000000000000000; ${live.session_name}=${live.sessid}`);
    expect(res.status).toBe(200);
    expect(setCookies(res)).toHaveLength(3);
  });

  it("tries at most three of them, so a header stuffed with copies costs three store reads", async () => {
    const counting = countCalls(createTestApp().sessionStore);
    const { app, agent } = createTestApp({ sessionStore: counting.proxy });
    const session = await login(app);
    const copies = Array.from({ length: 50 }, (_, i) => `${session.session_name}=stale-${String(i).padStart(38, "0")}`);
    const before = counting.calls.get ?? 0;
    const res = await agent.post("/services/json/system/connect").set("Cookie", [...copies, session.cookie].join("; ")).set("X-CSRF-Token", session.token).send();
    expect(counting.calls.get! - before).toBe(3);
    // The live one came too late to be looked at: the caller is anonymous, and the copies are deleted.
    expect((res.body as { user: { uid: unknown } }).user.uid).toBe(0);
    expect(setCookies(res)[0]).toMatch(/=deleted; /);
  });

  it("deletes a stale cookie where this server sets it and where a Drupal-era or older copy may sit", async () => {
    const { agent } = createTestApp();
    const name = (await loginAt(agent)).session_name;
    const res = await agent.post("/services/json/system/connect").set("Host", HOST).set("Cookie", `${name}=gone-000000000000000000000000000000000000000`).send();
    expect(setCookies(res)).toEqual([`${name}=${DELETED}; domain=.api.example.com; HttpOnly`, `${name}=${DELETED}; HttpOnly`]);
    // Drupal's session_id() is the cookie's value, live or not: connect echoes it, the token is its token.
    expect((res.body as { sessid: string }).sessid).toBe("gone-000000000000000000000000000000000000000");
  });

  it("at login over a carried cookie, sets the new one, deletes the other places a stale copy may sit, and sets it again", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/login").set("Host", HOST).set("Cookie", "SESSx=1").send({ username: "demo", password: "demo-password" });
    const { session_name, sessid } = res.body as { session_name: string; sessid: string };
    expect(setCookies(res)).toHaveLength(1);
    const stale = await agent.post("/services/json/user/login").set("Host", HOST).set("Cookie", `${session_name}=${sessid}x`).send({ username: "demo", password: "demo-password" });
    const [fresh, deleted, again, ...rest] = setCookies(stale);
    expect(fresh).toMatch(new RegExp(`^${session_name}=[\\w-]{43}; .*; domain=\\.api\\.example\\.com; HttpOnly$`));
    expect(deleted).toBe(`${session_name}=${DELETED}; HttpOnly`);
    expect([again, rest]).toEqual([fresh, []]);
  });

  it("keeps the new cookie in an RFC 6265 jar, which takes a host-only and a domain cookie of one host for one", async () => {
    const url = `http://${HOST}/services/json/user/login`;
    const jar = new CookieJar();
    const { agent } = createTestApp({ baseUrl: undefined });
    const first = await agent.post("/services/json/user/login").set("Host", HOST).send({ username: "demo", password: "demo-password" });
    for (const header of setCookies(first)) await jar.setCookie(header, url);
    // The session ended on the server (a restart of a memory store): the jar's cookie is stale.
    const { agent: restarted } = createTestApp({ baseUrl: undefined });
    const again = await restarted.post("/services/json/user/login").set("Host", HOST).set("Cookie", await jar.getCookieString(url)).send({ username: "demo", password: "demo-password" });
    for (const header of setCookies(again)) await jar.setCookie(header, url);
    const { session_name, sessid } = again.body as { session_name: string; sessid: string };
    expect(await jar.getCookieString(url)).toBe(`${session_name}=${sessid}`);
    // A client that reads only the last Set-Cookie (Java's getHeaderField) reads the new cookie too.
    expect(setCookies(again).at(-1)).toMatch(new RegExp(`^${session_name}=${sessid};`));
  });

  it("treats a configured cookieDomain without its dot, or in capitals, as the place Drupal derives, and never deletes the cookie it sets", async () => {
    for (const cookieDomain of ["api.example.com", ".API.example.com"]) {
      const { agent } = createTestApp({ baseUrl: undefined, cookieDomain });
      const name = sessionCookieFor(`http://${HOST}/`, { cookieDomain }).name;
      const res = await agent.post("/services/json/user/login").set("Host", HOST).set("Cookie", `${name}=stale`).send({ username: "demo", password: "demo-password" });
      const { session_name } = res.body as { session_name: string };
      expect(session_name).toBe(name);
      const headers = setCookies(res).filter((header) => header.startsWith(`${session_name}=`));
      // Set, the host-only copy deleted, set again: no deletion at the configured domain's own place.
      expect(headers.filter((header) => header.includes("=deleted;")), cookieDomain).toEqual([`${session_name}=${DELETED}; HttpOnly`]);
      expect(sessionCookieFor(`http://${HOST}/`, { cookieDomain }).alsoDeletedAt, cookieDomain).toEqual([undefined]);
    }
  });
});

describe("the session cookie of each scheme and host", () => {
  it("is never decided by a request over the other scheme, whatever its Host", async () => {
    const { agent } = createTestApp({ baseUrl: undefined }, undefined, (app) => app.set("trust proxy", "loopback"));
    // A plain-HTTP request whose Host, with an "s" in front of the real one's, once shared a cache key with HTTPS requests.
    await agent.post("/services/json/system/connect").set("Host", `s${HOST}`).send();
    const res = await agent.post("/services/json/user/login").set("Host", HOST).set("X-Forwarded-Proto", "https").send({ username: "demo", password: "demo-password" });
    const expected = sessionCookieFor(`https://${HOST}/`);
    expect((res.body as { session_name: string }).session_name).toBe(expected.name);
    expect(setCookies(res)[0]).toMatch(/; domain=\.api\.example\.com; secure; HttpOnly$/);
  });

  it("gives a host with an underscore the Domain Drupal gave it", () => {
    expect(sessionCookieFor("https://my_api.example.com/").domain).toBe(".my_api.example.com");
  });
});
