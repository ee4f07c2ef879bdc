/**
 * The example app (`SESSION_STORE=drupal7`, `TRUST_PROXY=loopback`) beside a real Drupal 7.101
 * site served over HTTP and HTTPS at once, behind one proxy, on MariaDB and PostgreSQL, with
 * hashed and with raw session ids. Each scenario does the same thing on Drupal and on the app
 * and asserts what Drupal itself does: which scheme reads which row (`$is_https`), a login over
 * an anonymous visitor's row, the rows an unmodified Drupal writes that once stopped the store,
 * the per-user cap, `hostname`, the token call's write, a 9 MiB `$_SESSION`, integers PHP
 * writes, and one login budget in Drupal's `flood` table.
 */
import { createHash } from "node:crypto";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { createSessionId } from "services-session-auth";
import { drupal7SessionStore } from "services-session-auth/drupal";
import { showsLoggedIn, type Proxy } from "../helpers/beside-drupal.js";
import { describeBesideDrupal, type SiteVariant } from "../helpers/drupal7-site.js";
import { Browser, drupalIdle, exampleAndProxy, type Reply } from "../helpers/example-beside.js";

/** `drupal_hash_base64()`. */
const drupalHash = (id: string) => createHash("sha256").update(id).digest("base64url");
/** A suite's app port, one per variant. */
const portOf = (base: number, variant: SiteVariant) => base + (variant.dialect === "mysql" ? 0 : 1) + (variant.rawSids ? 2 : 0);
const now = () => Math.floor(Date.now() / 1000);
const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString("utf8") : String(value ?? ""));
const credentials = { username: "demo", password: "demo-password" };

describeBesideDrupal("the example app beside a site served over HTTP and HTTPS", 20, (site, variant) => {
  let proxy: Proxy;
  const both = exampleAndProxy(site, portOf(40, variant));
  beforeAll(() => void ({ proxy } = both));
  beforeEach(async () => {
    proxy.mode = "split";
    await drupalIdle(site());
    await site().sql("DELETE FROM sessions");
    await site().sql("DELETE FROM flood");
  });

  /** `sessions.sid` for a cookie value. */
  const idOf = (sessid: string) => (variant.rawSids ? sessid : drupalHash(sessid));
  const rows = (where = "1 = 1", values: unknown[] = []) =>
    site().sql<Record<string, unknown>>(`SELECT uid, sid, ssid, hostname, timestamp, session FROM sessions WHERE ${where} ORDER BY timestamp, sid`, values);
  /** An anonymous visitor's row as _drupal_session_write() writes it over `scheme`: a cart in $_SESSION. */
  async function anonymousRow(scheme: "http" | "https", sessid: string, data = "cart|a:1:{i:0;i:42;}", timestamp = now()) {
    await site().sql("INSERT INTO sessions (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (0, ?, ?, '127.0.0.1', ?, 0, ?)", [
      idOf(sessid),
      scheme === "https" ? idOf(sessid) : "",
      timestamp,
      Buffer.from(data),
    ]);
  }
  /** Sends a request to Drupal's own endpoint and pages (the proxy sends everything there for it). */
  async function onDrupal<T>(step: () => Promise<T>): Promise<T> {
    proxy.mode = "drupal";
    try {
      return await step();
    } finally {
      proxy.mode = "split";
    }
  }
  const login = (browser: Browser, scheme: "http" | "https") => browser.request(scheme, "POST", "/services/json/user/login", { json: credentials });
  const connect = (browser: Browser, scheme: "http" | "https", cookie?: string) =>
    browser.request(scheme, "POST", "/services/json/system/connect", cookie === undefined ? {} : { cookie });
  const uidOf = (reply: Reply) => String(reply.json<{ user: { uid: unknown } }>().user.uid);
  /** The names of the cookies a reply deletes. */
  const deleted = (reply: Reply) =>
    reply.setCookie
      .filter((one) => /=deleted|max-age=0|expires=thu, 01 jan 1970/i.test(one))
      .map((one) => one.split("=")[0])
      .sort();
  const name = (prefix: "SESS" | "SSESS") => `${prefix}${createHash("sha256").update(`127.0.0.1:${proxy.port}`).digest("hex").slice(0, 32)}`;

  it("a session Drupal began over HTTPS is served by the app over HTTPS, and over HTTP by its id, as Drupal reads sid there", async () => {
    const browser = new Browser(proxy.port);
    const loggedIn = await onDrupal(() => login(browser, "https"));
    const { sessid, token } = loggedIn.json<{ sessid: string; token: string }>();
    expect(await rows()).toMatchObject([{ sid: idOf(sessid), ssid: idOf(sessid) }]);
    const here = await browser.request("https", "POST", "/services/json/system/connect", {
      cookie: `${name("SSESS")}=${sessid}`,
      headers: { "X-CSRF-Token": token },
    });
    expect([here.status, uidOf(here), here.setCookie]).toEqual([200, "2", []]);
    expect((await browser.request("https", "GET", "/services/session/token")).text).toBe(token);
    // The same value as the plain-HTTP cookie: Drupal finds the row by sid, so does the app.
    const plain = `${name("SESS")}=${sessid}`;
    const drupal = await onDrupal(() => connect(browser, "http", plain));
    const app = await connect(browser, "http", plain);
    expect([drupal.status, app.status]).toEqual([401, 401]);
    expect([drupal.text, app.text]).toEqual(['["CSRF validation failed"]', '["CSRF validation failed"]']);
    expect((await browser.request("http", "GET", "/services/json/players", { cookie: plain })).status).toBe(200);
  });

  it("a session Drupal began over HTTP is anonymous over HTTPS on both sides, each deleting the same cookies, and goes on over HTTP", async () => {
    const browser = new Browser(proxy.port);
    const { sessid } = (await onDrupal(() => login(browser, "http"))).json<{ sessid: string }>();
    expect(await rows()).toMatchObject([{ sid: idOf(sessid), ssid: "" }]);
    // The secure cookie with the plain one's value, and the plain one beside it, as a browser sends both over HTTPS.
    const cookie = `${name("SSESS")}=${sessid}; ${name("SESS")}=${sessid}`;
    const drupal = await onDrupal(() => connect(browser, "https", cookie));
    const app = await connect(browser, "https", cookie);
    expect([uidOf(drupal), uidOf(app)]).toEqual(["0", "0"]);
    expect(deleted(app)).toEqual(deleted(drupal));
    expect(deleted(app)).toEqual([name("SESS"), name("SSESS")].sort());
    // Neither deleted the row: over HTTP the session is still served on both.
    expect((await browser.request("http", "GET", "/services/json/players", { cookie: `${name("SESS")}=${sessid}` })).status).toBe(200);
    expect(showsLoggedIn((await browser.request("http", "GET", "/user", { cookie: `${name("SESS")}=${sessid}` })).text, "demo")).toBe(true);
  });

  it("a login on the app writes the row Drupal writes for the request's scheme, and Drupal serves it there", async () => {
    const secure = new Browser(proxy.port);
    const overHttps = (await login(secure, "https")).json<{ sessid: string; session_name: string }>();
    expect(overHttps.session_name).toBe(name("SSESS"));
    expect(await rows("uid = 2")).toMatchObject([{ sid: idOf(overHttps.sessid), ssid: idOf(overHttps.sessid) }]);
    expect(showsLoggedIn((await secure.request("https", "GET", "/user")).text, "demo")).toBe(true);
    const plain = new Browser(proxy.port);
    const overHttp = (await login(plain, "http")).json<{ sessid: string; session_name: string }>();
    expect(overHttp.session_name).toBe(name("SESS"));
    expect((await rows("uid = 2 AND ssid = ''")).map((row) => row.sid)).toEqual([idOf(overHttp.sessid)]);
    expect(showsLoggedIn((await plain.request("http", "GET", "/user")).text, "demo")).toBe(true);
    // That session's id as the secure cookie: anonymous on Drupal, and on the app.
    const cookie = `${name("SSESS")}=${overHttp.sessid}`;
    expect(showsLoggedIn((await plain.request("https", "GET", "/user", { cookie })).text, "demo")).toBe(false);
    expect((await plain.request("https", "GET", "/services/json/players", { cookie })).status).toBe(401);
  });

  it("the row Drupal writes when a session begun over HTTPS logs in over HTTP (sid re-keyed, ssid kept) stops nothing", async () => {
    const visitor = createSessionId();
    await anonymousRow("https", visitor);
    const browser = new Browser(proxy.port);
    const loggedIn = await onDrupal(() =>
      browser.request("http", "POST", "/services/json/user/login", { json: credentials, cookie: `${name("SESS")}=${visitor}` }),
    );
    const { sessid } = loggedIn.json<{ sessid: string }>();
    // drupal_session_regenerate() over HTTP re-keys sid only; the write after it inserts the plain-HTTP row.
    expect((await rows()).map((row) => [Number(row.uid), row.sid, row.ssid]).sort()).toEqual(
      [
        [0, idOf(sessid), idOf(visitor)],
        [2, idOf(sessid), ""],
      ].sort(),
    );
    const cookie = `${name("SESS")}=${sessid}`;
    expect((await browser.request("http", "GET", "/services/json/players", { cookie })).status).toBe(200);
    // A store starting now (the app's next start) is ready, and serves the session.
    const restarted = drupal7SessionStore({ pool: site().pool, hashedSids: !variant.rawSids, gcInterval: 0 });
    await restarted.ready;
    await expect(restarted.get(sessid, { secure: false })).resolves.toMatchObject({ record: { uid: "2" } });
    // The old id over HTTPS names that anonymous row: anonymous on both, its cookie kept on both.
    const secure = `${name("SSESS")}=${visitor}`;
    const drupal = await onDrupal(() => connect(browser, "https", secure));
    const app = await connect(browser, "https", secure);
    expect([uidOf(drupal), uidOf(app), deleted(drupal), deleted(app)]).toEqual(["0", "0", [], []]);
  });

  it("a login over an anonymous visitor's row re-keys it and carries its $_SESSION, over HTTP and HTTPS, as Drupal's does", async () => {
    for (const scheme of ["http", "https"] as const) {
      const cookieName = name(scheme === "https" ? "SSESS" : "SESS");
      const results: Array<{ rows: number; carried: boolean; old: number }> = [];
      for (const side of ["drupal", "app"] as const) {
        await site().sql("DELETE FROM sessions");
        const visitor = createSessionId();
        await anonymousRow(scheme, visitor);
        const browser = new Browser(proxy.port);
        const send = () => browser.request(scheme, "POST", "/services/json/user/login", { json: credentials, headers: { Cookie: `${cookieName}=${visitor}` } });
        const reply = side === "drupal" ? await onDrupal(send) : await send();
        expect(reply.status).toBe(200);
        const { sessid } = reply.json<{ sessid: string }>();
        const [row] = await rows("uid = 2");
        results.push({
          rows: (await rows()).length,
          carried: text(row?.session).includes("cart|a:1:{i:0;i:42;}"),
          old: (await rows("sid = ?", [idOf(visitor)])).length,
        });
        expect(row).toMatchObject({ sid: idOf(sessid), ssid: scheme === "https" ? idOf(sessid) : "" });
        expect(showsLoggedIn((await browser.request(scheme, "GET", "/user", { cookie: `${cookieName}=${sessid}` })).text, "demo")).toBe(true);
      }
      expect(results[1]).toEqual(results[0]);
      expect(results[1]).toEqual({ rows: 1, carried: true, old: 0 });
    }
  });

  it("over HTTPS with a stale secure cookie, the new session gets a copy of the plain-HTTP twin's anonymous $_SESSION, as Drupal's read gives it", async () => {
    const results: unknown[] = [];
    for (const side of ["drupal", "app"] as const) {
      await site().sql("DELETE FROM sessions");
      const visitor = createSessionId();
      await anonymousRow("http", visitor);
      const browser = new Browser(proxy.port);
      const send = () =>
        browser.request("https", "POST", "/services/json/user/login", {
          json: credentials,
          headers: { Cookie: `${name("SSESS")}=${createSessionId()}; ${name("SESS")}=${visitor}` },
        });
      expect((side === "drupal" ? await onDrupal(send) : await send()).status).toBe(200);
      const [mine] = await rows("uid = 2");
      results.push({ carried: text(mine?.session).includes("cart|"), twinKept: (await rows("uid = 0 AND sid = ?", [idOf(visitor)])).length });
    }
    expect(results).toEqual([
      { carried: true, twinKept: 1 },
      { carried: true, twinKept: 1 },
    ]);
  });

  it("a login on the app past 20 sessions the user holds on Drupal ends none of them (Drupal has no cap)", async () => {
    const drupal = new Browser(proxy.port);
    const { sessid } = (await onDrupal(() => login(drupal, "http"))).json<{ sessid: string }>();
    // Nineteen more, as Drupal's logins write them.
    for (let i = 0; i < 19; i++)
      await site().sql("INSERT INTO sessions (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (2, ?, '', '127.0.0.1', ?, 0, '')", [
        idOf(createSessionId()),
        now() - i,
      ]);
    expect((await login(new Browser(proxy.port), "http")).status).toBe(200);
    expect(await rows("uid = 2")).toHaveLength(21);
    expect(showsLoggedIn((await drupal.request("http", "GET", "/user", { cookie: `${name("SESS")}=${sessid}` })).text, "demo")).toBe(true);
  });

  it("the periodic write sets hostname to the client's address, as Drupal's writes ip_address() each time", async () => {
    for (const side of ["drupal", "app"] as const) {
      await site().sql("DELETE FROM sessions");
      const browser = new Browser(proxy.port);
      const { sessid } = (await login(browser, "http")).json<{ sessid: string }>();
      await site().sql("UPDATE sessions SET timestamp = timestamp - 400");
      const send = () =>
        browser.request("http", "GET", side === "drupal" ? "/user" : "/services/json/players", { headers: { "X-Forwarded-For": "203.0.113.9" } });
      expect((side === "drupal" ? await onDrupal(send) : await send()).status).toBe(200);
      const [row] = await rows("sid = ?", [idOf(sessid)]);
      expect([side, row?.hostname, Number(row?.timestamp) >= now() - 5]).toEqual([side, "203.0.113.9", true]);
    }
  });

  it("services/session/token writes an anonymous visitor's row once per write interval, as Drupal does, so the cart outlives Drupal's GC", async () => {
    for (const side of ["drupal", "app"] as const) {
      await site().sql("DELETE FROM sessions");
      const visitor = createSessionId();
      await anonymousRow("http", visitor, "cart|a:1:{i:0;i:42;}", now() - 400);
      const browser = new Browser(proxy.port);
      const send = () =>
        browser.request("http", "GET", "/services/session/token", { headers: { Cookie: `${name("SESS")}=${visitor}`, "X-Forwarded-For": "198.51.100.3" } });
      const reply = side === "drupal" ? await onDrupal(send) : await send();
      expect([reply.status, deleted(reply)]).toEqual([200, []]);
      const [row] = await rows();
      expect([side, Number(row?.timestamp) >= now() - 5, row?.hostname, text(row?.session)]).toEqual([side, true, "198.51.100.3", "cart|a:1:{i:0;i:42;}"]);
      // Within the interval, nothing is written.
      await site().sql("UPDATE sessions SET timestamp = timestamp - 100");
      const before = Number((await rows())[0]?.timestamp);
      await (side === "drupal" ? onDrupal(send) : send());
      expect(Number((await rows())[0]?.timestamp)).toBe(before);
    }
  });

  it("a 9 MiB $_SESSION (which Drupal serves) is served, touched and logged out on the app, on both sides of the row's life", async () => {
    const browser = new Browser(proxy.port);
    const { sessid, token } = (await onDrupal(() => login(browser, "http"))).json<{ sessid: string; token: string }>();
    // Made on the server: 9 MiB in one statement is more than a client packet may carry on MariaDB's default 16 MiB as hex.
    const big =
      variant.dialect === "mysql"
        ? "CONCAT('big|s:9437184:\"', REPEAT('x', 9437184), '\";')"
        : "convert_to('big|s:9437184:\"' || repeat('x', 9437184) || '\";', 'UTF8')";
    await site().sql(`UPDATE sessions SET session = ${big}, timestamp = timestamp - 400 WHERE sid = ?`, [idOf(sessid)]);
    const cookie = `${name("SESS")}=${sessid}`;
    // The first read gives it the entry (the blob read once); then guarded GETs and a touch, all 200.
    for (let i = 0; i < 3; i++) expect((await browser.request("http", "GET", "/services/json/players", { cookie })).status).toBe(200);
    const [row] = await rows("sid = ?", [idOf(sessid)]);
    expect(text(row?.session).length).toBeGreaterThan(9 * 1024 * 1024);
    expect(text(row?.session)).toMatch(/^services_session_auth\|a:6:\{.*\}big\|s:9437184:"x/);
    expect(showsLoggedIn((await browser.request("http", "GET", "/user", { cookie })).text, "demo")).toBe(true);
    expect((await browser.request("http", "POST", "/services/json/user/logout", { cookie, headers: { "X-CSRF-Token": token } })).text).toBe("[true]");
    expect(await rows()).toEqual([]);
  }, 60_000);

  it("an integer of 16 digits or more anywhere in $_SESSION (valid PHP) keeps the app's entry", async () => {
    const browser = new Browser(proxy.port);
    const { sessid } = (await login(browser, "http")).json<{ sessid: string }>();
    const [before] = await rows("sid = ?", [idOf(sessid)]);
    // What PHP writes for integers past 2^53, appended by a Drupal request.
    await site().sql("UPDATE sessions SET session = ? WHERE sid = ?", [
      Buffer.concat([before!.session as Buffer, Buffer.from("counter|i:1234567890123456;ids|a:1:{i:0;i:9223372036854775807;}")]),
      idOf(sessid),
    ]);
    const cookie = `${name("SESS")}=${sessid}`;
    const seen = await browser.request("http", "GET", "/services/json/sessions", { cookie });
    expect(seen.status).toBe(200);
    // Still the app's own session: its user agent (only its entry keeps it), and the entry unchanged.
    expect(seen.json<Array<{ userAgent: string; current: boolean }>>().find((one) => one.current)?.userAgent).toBe("beside-drupal-browser/1.0");
    expect(text((await rows("sid = ?", [idOf(sessid)]))[0]?.session)).toBe(
      `${text(before?.session)}counter|i:1234567890123456;ids|a:1:{i:0;i:9223372036854775807;}`,
    );
  });

  it("one login budget: failures on Drupal and on the app count together in Drupal's flood table, and both refuse the right password", async () => {
    const browser = new Browser(proxy.port);
    const from = { "X-Forwarded-For": "198.51.100.20" };
    const wrong = () =>
      browser.request("http", "POST", "/services/json/user/login", { json: { username: "demo", password: "wrong" }, headers: from, cookie: "" });
    for (let i = 0; i < 3; i++) expect((await onDrupal(wrong)).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await wrong()).status).toBe(401);
    const right = () => browser.request("http", "POST", "/services/json/user/login", { json: credentials, headers: from, cookie: "" });
    const drupal = await onDrupal(right);
    const app = await right();
    expect([drupal.status, drupal.text]).toEqual([406, '["Account is temporarily blocked."]']);
    expect([app.status, app.text]).toEqual([406, '["Account is temporarily blocked."]']);
    const events = await site().sql<{ event: string; identifier: string }>(
      "SELECT event, identifier FROM flood WHERE event LIKE 'failed_login_attempt_%' ORDER BY fid",
    );
    expect(events.filter((event) => event.event === "failed_login_attempt_user").map((event) => event.identifier)).toEqual(Array(7).fill("2-198.51.100.20"));
    expect(events.filter((event) => event.event === "failed_login_attempt_ip").map((event) => event.identifier)).toEqual(Array(7).fill("198.51.100.20"));
    // From another address the account is not flooded (uid-ip identifiers): a login on the app clears the account's failures, as Drupal's does.
    const elsewhere = await browser.request("http", "POST", "/services/json/user/login", {
      json: credentials,
      headers: { "X-Forwarded-For": "198.51.100.21" },
      cookie: "",
    });
    expect(elsewhere.status).toBe(200);
    await site().sql("INSERT INTO flood (event, identifier, timestamp, expiration) VALUES ('failed_login_attempt_user', '2-198.51.100.22', ?, ?)", [
      now(),
      now() + 21_600,
    ]);
    const again = await browser.request("http", "POST", "/services/json/user/login", {
      json: credentials,
      headers: { "X-Forwarded-For": "198.51.100.22" },
      cookie: "",
    });
    expect(again.status).toBe(200);
    expect(await site().sql("SELECT fid FROM flood WHERE identifier = '2-198.51.100.22'")).toEqual([]);
  });
});
