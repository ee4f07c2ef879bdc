import { CookieJar } from "tough-cookie";
import { describe, expect, it } from "vitest";
import { sessionCookieFor } from "services-session-auth";
import { createTestApp, login, setCookies } from "../helpers/app.js";
import { MAX_COOKIE_CANDIDATES } from "../../src/sessions/sessions.js";
import { countCalls } from "../helpers/doubles.js";

const HOST = "api.example.com";
const DELETED = "deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; path=/";

/** Logs in under the production-like host, where Drupal's rule gives the cookie a Domain. */
async function loginAt(agent: ReturnType<typeof createTestApp>["agent"]) {
  const res = await agent.post("/services/json/user/login").set("Host", HOST).send({ username: "demo", password: "demo-password" });
  return res.body as { sessid: string; session_name: string; token: string };
}

describe("several session cookies of one name", () => {
  it("uses the one that names a live session, whichever comes first, and writes no cookie", async () => {
    const { agent } = createTestApp();
    const live = await loginAt(agent);
    const stale = `${live.session_name}=drupal-era-session-id-00000000000000000000`;
    // A Drupal-era cookie for the same name, older, so a browser sends it first; or after.
    for (const header of [`${stale}; ${live.session_name}=${live.sessid}`, `${live.session_name}=${live.sessid}; ${stale}`]) {
      const res = await agent.post("/services/json/system/connect").set("Host", HOST).set("Cookie", header).set("X-CSRF-Token", live.token).send();
      expect((res.body as { sessid: string; user: { uid: unknown } }).user.uid).toBe("14");
      expect((res.body as { sessid: string }).sessid).toBe(live.sessid);
      // Which of them sits where is unknown: none is set or deleted (Drupal, too, wrote nothing).
      expect(setCookies(res)).toEqual([]);
    }
  });

  it("does the same for requireSession, on the reply of the route it lets through", async () => {
    const { agent } = createTestApp();
    const live = await loginAt(agent);
    const res = await agent
      .get("/services/json/players")
      .set("Host", HOST)
      .set("Cookie", `${live.session_name}=stale-one-0000000000000000000000000000000000; ${live.session_name}=${live.sessid}`);
    expect(res.status).toBe(200);
    expect(setCookies(res)).toEqual([]);
  });

  it("deletes none of several stale cookies: they may not be this client's own", async () => {
    const { agent } = createTestApp();
    const name = (await loginAt(agent)).session_name;
    const res = await agent.post("/services/json/system/connect").set("Host", HOST).set("Cookie", `${name}=gone-1; ${name}=gone-2`).send();
    expect((res.body as { sessid: string; user: { uid: unknown } }).user.uid).toBe(0);
    // Drupal's session_id() is the first value.
    expect((res.body as { sessid: string }).sessid).toBe("gone-1");
    expect(setCookies(res)).toEqual([]);
  });

  it("takes live sessions of two accounts as no session, with an event, and writes no cookie", async () => {
    const { app, agent, events } = createTestApp();
    const demo = await login(app);
    const admin = await login(app, "admin", "admin-password");
    for (const header of [`${admin.cookie}; ${demo.cookie}`, `${demo.cookie}; ${admin.cookie}`]) {
      const res = await agent.post("/services/json/system/connect").set("Cookie", header).set("X-CSRF-Token", demo.token).send();
      expect((res.body as { user: { uid: unknown } }).user.uid).toBe(0);
      expect(setCookies(res)).toEqual([]);
      const guarded = await agent.get("/services/json/players").set("Cookie", header);
      expect(guarded.status).toBe(401);
      expect(setCookies(guarded)).toEqual([]);
      // A logout whose token is neither session's finds none to end: both stay live (with one's
      // own token it ends that one: test/bindings/planted-session-logout.test.ts).
      const logout = await agent.post("/services/json/user/logout").set("Cookie", header).set("X-CSRF-Token", "x".repeat(43)).send();
      expect(logout.status).toBe(406);
      expect(setCookies(logout)).toEqual([]);
    }
    const ambiguous = events.filter((event) => event.type === "session.ambiguous");
    expect(ambiguous).toHaveLength(6);
    expect(ambiguous[0]).toEqual({ type: "session.ambiguous", reason: "accounts", cookies: 2, uids: ["1", "14"], timestamp: expect.any(Number) });
    // Two sessions of one account are that account's.
    const again = await login(app);
    const res = await agent.post("/services/json/system/connect").set("Cookie", `${demo.cookie}; ${again.cookie}`).set("X-CSRF-Token", demo.token).send();
    expect((res.body as { sessid: string; user: { uid: unknown } }).user.uid).toBe("14");
    expect((res.body as { sessid: string }).sessid).toBe(demo.sessid);
  });

  it(`looks up every value up to ${MAX_COOKIE_CANDIDATES}, and takes more as no session without a store read or a cookie written`, async () => {
    const counting = countCalls(createTestApp().sessionStore);
    const { app, agent, events } = createTestApp({ sessionStore: counting.proxy });
    const session = await login(app);
    const junk = (count: number) => Array.from({ length: count }, (_, i) => `${session.session_name}=junk-${String(i).padStart(38, "0")}`);
    // Three junk values ahead of the client's own: it is still found, and nothing is deleted.
    let before = counting.calls.get ?? 0;
    const found = await agent
      .post("/services/json/system/connect")
      .set("Cookie", [...junk(MAX_COOKIE_CANDIDATES - 1), session.cookie].join("; "))
      .set("X-CSRF-Token", session.token)
      .send();
    expect(counting.calls.get! - before).toBe(MAX_COOKIE_CANDIDATES);
    expect((found.body as { user: { uid: unknown } }).user.uid).toBe("14");
    expect(setCookies(found)).toEqual([]);
    // One more is more than a client of this server holds: no session, no read, nothing deleted.
    before = counting.calls.get!;
    const stuffed = await agent
      .post("/services/json/system/connect")
      .set("Cookie", [...junk(50), session.cookie].join("; "))
      .set("X-CSRF-Token", session.token)
      .send();
    expect(counting.calls.get! - before).toBe(0);
    expect((stuffed.body as { user: { uid: unknown } }).user.uid).toBe(0);
    expect(setCookies(stuffed)).toEqual([]);
    expect(events.filter((event) => event.type === "session.ambiguous")).toEqual([
      { type: "session.ambiguous", reason: "too-many-cookies", cookies: 51, uids: [], timestamp: expect.any(Number) },
    ]);
  });

  it("at logout over several cookies, ends the live session and deletes the cookie in every place this server writes it", async () => {
    const { agent } = createTestApp();
    const live = await loginAt(agent);
    const res = await agent
      .post("/services/json/user/logout")
      .set("Host", HOST)
      .set("Cookie", `${live.session_name}=stale-0; ${live.session_name}=${live.sessid}`)
      .set("X-CSRF-Token", live.token)
      .send();
    expect(res.text).toBe("[true]");
    expect(setCookies(res)).toEqual([`${live.session_name}=${DELETED}; domain=.api.example.com; HttpOnly`, `${live.session_name}=${DELETED}; HttpOnly`]);
  });

  it("deletes a lone stale cookie where this server sets it, once, as Drupal's session_destroy() does", async () => {
    const { agent } = createTestApp();
    const name = (await loginAt(agent)).session_name;
    const res = await agent
      .post("/services/json/system/connect")
      .set("Host", HOST)
      .set("Cookie", `${name}=gone-000000000000000000000000000000000000000`)
      .send();
    expect(setCookies(res)).toEqual([`${name}=${DELETED}; domain=.api.example.com; HttpOnly`]);
    // Drupal's session_id() is the cookie's value, live or not: connect echoes it, the token is its token.
    expect((res.body as { sessid: string }).sessid).toBe("gone-000000000000000000000000000000000000000");
  });

  it("at login over a carried cookie, sets the new one, deletes the other places a stale copy may sit, and sets it again", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/login").set("Host", HOST).set("Cookie", "SESSx=1").send({ username: "demo", password: "demo-password" });
    const { session_name, sessid } = res.body as { session_name: string; sessid: string };
    expect(setCookies(res)).toHaveLength(1);
    const stale = await agent
      .post("/services/json/user/login")
      .set("Host", HOST)
      .set("Cookie", `${session_name}=${sessid}x`)
      .send({ username: "demo", password: "demo-password" });
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
    const again = await restarted
      .post("/services/json/user/login")
      .set("Host", HOST)
      .set("Cookie", await jar.getCookieString(url))
      .send({ username: "demo", password: "demo-password" });
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
      const res = await agent
        .post("/services/json/user/login")
        .set("Host", HOST)
        .set("Cookie", `${name}=stale`)
        .send({ username: "demo", password: "demo-password" });
      const { session_name } = res.body as { session_name: string };
      expect(session_name).toBe(name);
      const headers = setCookies(res).filter((header) => header.startsWith(`${session_name}=`));
      // Set, the host-only copy deleted, set again: no deletion at the configured domain's own place.
      expect(
        headers.filter((header) => header.includes("=deleted;")),
        cookieDomain,
      ).toEqual([`${session_name}=${DELETED}; HttpOnly`]);
      expect(sessionCookieFor(`http://${HOST}/`, { cookieDomain }).alsoDeletedAt, cookieDomain).toEqual([undefined]);
    }
  });
});

describe("the session cookie of each scheme and host", () => {
  it("is never decided by a request over the other scheme, whatever its Host", async () => {
    const { agent } = createTestApp({ baseUrl: undefined }, undefined, (app) => app.set("trust proxy", "loopback"));
    // A plain-HTTP request whose Host, with an "s" in front of the real one's, once shared a cache key with HTTPS requests.
    await agent.post("/services/json/system/connect").set("Host", `s${HOST}`).send();
    const res = await agent
      .post("/services/json/user/login")
      .set("Host", HOST)
      .set("X-Forwarded-Proto", "https")
      .send({ username: "demo", password: "demo-password" });
    const expected = sessionCookieFor(`https://${HOST}/`);
    expect((res.body as { session_name: string }).session_name).toBe(expected.name);
    expect(setCookies(res)[0]).toMatch(/; domain=\.api\.example\.com; secure; HttpOnly$/);
  });

  it("gives a host with an underscore the Domain Drupal gave it", () => {
    expect(sessionCookieFor("https://my_api.example.com/").domain).toBe(".my_api.example.com");
  });
});

describe("session cookies planted from a sibling subdomain, in an RFC 6265 jar", () => {
  const site = `http://${HOST}`;
  const players = `${site}/services/json/players`;
  const connectUrl = `${site}/services/json/system/connect`;

  /** The victim's jar after logging in as demo at api.example.com, and the reply's cookie. */
  async function victim(agent: ReturnType<typeof createTestApp>["agent"]) {
    const jar = new CookieJar();
    const login = await agent.post("/services/json/user/login").set("Host", HOST).send({ username: "demo", password: "demo-password" });
    for (const header of setCookies(login)) await jar.setCookie(header, `${site}/services/json/user/login`);
    const { session_name, sessid, token } = login.body as { session_name: string; sessid: string; token: string };
    return { jar, name: session_name, sessid, token };
  }

  /** Sends a request with the jar's cookies for its URL, and stores what the reply sets. */
  async function through(agent: ReturnType<typeof createTestApp>["agent"], jar: CookieJar, method: "get" | "post", url: string, token?: string) {
    const req = agent[method](new URL(url).pathname)
      .set("Host", HOST)
      .set("Cookie", await jar.getCookieString(url));
    const res = await (token === undefined ? req : req.set("X-CSRF-Token", token)).send();
    for (const header of setCookies(res)) await jar.setCookie(header, url);
    return res;
  }

  it("never makes the attacker's session, planted for a narrower path, the victim's site-wide login, nor overwrites the victim's cookie", async () => {
    const { agent, events } = createTestApp();
    const { jar, name, sessid, token } = await victim(agent);
    // The attacker logs in to its own account, and plants that session from evil.example.com.
    const attacker = await agent.post("/services/json/user/login").set("Host", HOST).send({ username: "admin", password: "admin-password" });
    const planted = (attacker.body as { sessid: string }).sessid;
    await jar.setCookie(`${name}=${planted}; Domain=example.com; Path=/services/json/players; HttpOnly`, "http://evil.example.com/");
    // The planted cookie has the longer path, so the jar sends it first.
    expect(await jar.getCookieString(players)).toBe(`${name}=${planted}; ${name}=${sessid}`);

    const res = await through(agent, jar, "get", players);
    expect(res.status).toBe(401);
    expect(setCookies(res)).toEqual([]);
    expect(events.filter((event) => event.type === "session.ambiguous")).toMatchObject([{ reason: "accounts", uids: ["1", "14"] }]);
    // The victim's own cookie is untouched, and everywhere else the victim is still the victim.
    expect(await jar.getCookieString(connectUrl)).toBe(`${name}=${sessid}`);
    const connect = await through(agent, jar, "post", connectUrl, token);
    expect((connect.body as { user: { uid: unknown } }).user.uid).toBe("14");
  });

  it("keeps the victim's cookie behind three planted junk values, and the victim logged in", async () => {
    const { agent } = createTestApp();
    const { jar, name, sessid, token } = await victim(agent);
    for (const path of ["/services/json/players", "/services/json", "/services"]) {
      await jar.setCookie(`${name}=junk${path.replaceAll("/", "-")}; Domain=example.com; Path=${path}`, "http://evil.example.com/");
    }
    expect((await jar.getCookieString(players)).split("; ")).toHaveLength(4);
    const res = await through(agent, jar, "get", players, token);
    expect(res.status).toBe(200);
    expect((res.body as { uid: unknown }).uid).toBe("14");
    expect(setCookies(res)).toEqual([]);
    const connect = await through(agent, jar, "post", connectUrl, token);
    expect((connect.body as { user: { uid: unknown } }).user.uid).toBe("14");
    expect(await jar.getCookieString(`${site}/`)).toBe(`${name}=${sessid}`);
  });
});
