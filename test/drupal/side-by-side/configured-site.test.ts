/**
 * The example app beside real Drupal 7.101 sites edited the way production sites are: mixed-mode
 * HTTPS from settings.php (`$conf['https'] = TRUE`, one session keyed by a plain-HTTP and a
 * secure cookie), and the `variable` table's password cost, flood limits and write interval.
 * Each scenario asserts what Drupal itself does on the same site.
 */
import { createHash } from "node:crypto";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { showsLoggedIn, type Proxy } from "../helpers/beside-drupal.js";
import { describeBesideDrupal, type DrupalSite, type SiteVariant } from "../helpers/drupal7-site.js";
import { Browser, drupalIdle, exampleAndProxy } from "../helpers/example-beside.js";

const drupalHash = (id: string) => createHash("sha256").update(id).digest("base64url");
const portOf = (base: number, variant: SiteVariant) => base + (variant.dialect === "mysql" ? 0 : 1) + (variant.rawSids ? 2 : 0);
const now = () => Math.floor(Date.now() / 1000);
const credentials = { username: "demo", password: "demo-password" };

/** What each suite shares: the site's rows, and Drupal's side of the proxy. */
function sideBySide(site: () => DrupalSite, variant: SiteVariant, proxy: () => Proxy) {
  return {
    idOf: (sessid: string) => (variant.rawSids ? sessid : drupalHash(sessid)),
    rows: (where = "1 = 1", values: unknown[] = []) =>
      site().sql<Record<string, unknown>>(`SELECT uid, sid, ssid, hostname, timestamp FROM sessions WHERE ${where}`, values),
    async onDrupal<T>(step: () => Promise<T>): Promise<T> {
      proxy().mode = "drupal";
      try {
        return await step();
      } finally {
        proxy().mode = "split";
      }
    },
  };
}

describeBesideDrupal("the example app beside a mixed-mode HTTPS site ($conf['https'] = TRUE in settings.php)", 24, (site, variant) => {
  let proxy: Proxy;
  const both = exampleAndProxy(site, portOf(44, variant), {
    before: async () => {
      await site().settings("$conf['https'] = TRUE;");
      // Some sites set it in the variable table too: the app starts all the same.
      await site().variable("https", "b:1;");
    },
  });
  beforeAll(() => void ({ proxy } = both));
  const { idOf, rows, onDrupal } = sideBySide(site, variant, () => proxy);
  beforeEach(async () => {
    proxy.mode = "split";
    await drupalIdle(site());
    await site().sql("DELETE FROM sessions");
    await site().sql("DELETE FROM flood");
  });

  /** Logs demo in on Drupal over HTTPS: its secure cookie and its plain-HTTP twin, one row keyed by both. */
  async function drupalLogin(browser: Browser) {
    const reply = await onDrupal(() => browser.request("https", "POST", "/services/json/user/login", { json: credentials }));
    expect(reply.status).toBe(200);
    const secure = browser.cookie("SSESS")!;
    const plain = browser.cookie("SESS")!;
    expect([secure, plain].every((value) => value !== undefined) && secure !== plain).toBe(true);
    expect(await rows("ssid = ?", [idOf(secure)])).toMatchObject([{ sid: idOf(plain), ssid: idOf(secure) }]);
    return { secure, plain, token: reply.json<{ token: string }>().token };
  }

  it("serves a session Drupal began over HTTPS under both cookies, deletes neither, and gives each scheme Drupal's token", async () => {
    const browser = new Browser(proxy.port);
    const { secure, plain, token } = await drupalLogin(browser);
    const overHttps = await browser.request("https", "POST", "/services/json/system/connect", { headers: { "X-CSRF-Token": token } });
    expect([overHttps.status, overHttps.json<{ sessid: string; user: { uid: string } }>(), overHttps.setCookie]).toEqual([
      200,
      expect.objectContaining({ sessid: secure, user: expect.objectContaining({ uid: "2" }) }),
      [],
    ]);
    // Over plain HTTP the session is the plain cookie's, with its own token: the same as Drupal's there.
    const appToken = await browser.request("http", "GET", "/services/session/token");
    const drupalToken = await onDrupal(() => browser.request("http", "GET", "/services/session/token"));
    expect(appToken.text).toBe(drupalToken.text);
    const overHttp = await browser.request("http", "POST", "/services/json/system/connect", { headers: { "X-CSRF-Token": appToken.text } });
    expect([overHttp.status, overHttp.json<{ sessid: string }>().sessid, overHttp.setCookie]).toEqual([200, plain, []]);
    expect((await browser.request("http", "GET", "/services/json/players")).status).toBe(200);
    expect(showsLoggedIn((await browser.request("http", "GET", "/user")).text, "demo")).toBe(true);
    expect(showsLoggedIn((await browser.request("https", "GET", "/user")).text, "demo")).toBe(true);
  });

  it("a logout on the app over plain HTTP ends the session under both cookies, as Drupal's does", async () => {
    const browser = new Browser(proxy.port);
    await drupalLogin(browser);
    const token = (await browser.request("http", "GET", "/services/session/token")).text;
    expect((await browser.request("http", "POST", "/services/json/user/logout", { headers: { "X-CSRF-Token": token } })).text).toBe("[true]");
    expect(await rows()).toEqual([]);
    expect(showsLoggedIn((await browser.request("https", "GET", "/user")).text, "demo")).toBe(false);
  });

  it("a login on the app over HTTPS is a session Drupal serves over HTTPS; a refused one leaves no row; no request is a 503", async () => {
    const browser = new Browser(proxy.port);
    const refused = await browser.request("https", "POST", "/services/json/user/login", { json: { username: "demo", password: "wrong" } });
    expect(refused.status).toBe(401);
    expect(await rows()).toEqual([]);
    const { sessid } = (await browser.request("https", "POST", "/services/json/user/login", { json: credentials })).json<{ sessid: string }>();
    expect(await rows("uid = 2")).toMatchObject([{ sid: idOf(sessid), ssid: idOf(sessid) }]);
    expect(showsLoggedIn((await browser.request("https", "GET", "/user")).text, "demo")).toBe(true);
    // Drupal's own sessions of the user, with their two keys, beside it: every request answers.
    const other = new Browser(proxy.port);
    await drupalLogin(other);
    for (const scheme of ["http", "https"] as const) {
      for (const client of [browser, other]) expect((await client.request(scheme, "GET", "/services/json/players")).status).not.toBe(503);
    }
    expect((await other.request("http", "GET", "/services/json/players")).status).toBe(200);
  });
});

describeBesideDrupal("the example app beside a site with its own password cost, flood limits and write interval", 28, (site, variant) => {
  let proxy: Proxy;
  const both = exampleAndProxy(site, portOf(48, variant), {
    before: async () => {
      await site().variable("password_count_log2", "i:14;");
      await site().variable("user_failed_login_identifier_uid_only", "b:1;");
      await site().variable("user_failed_login_user_limit", "i:3;");
      await site().variable("session_write_interval", "i:60;");
    },
  });
  beforeAll(() => void ({ proxy } = both));
  const { idOf, rows, onDrupal } = sideBySide(site, variant, () => proxy);
  const pass = async () => String((await site().sql<{ pass: unknown }>("SELECT pass FROM users WHERE uid = 2"))[0]?.pass);
  beforeEach(async () => {
    proxy.mode = "split";
    await drupalIdle(site());
    await site().sql("DELETE FROM flood");
  });

  it("hashes at the site's password_count_log2, so Drupal never rehashes back (its user_save() would end every session)", async () => {
    expect(await pass()).toMatch(/^\$S\$D/);
    const onApp = new Browser(proxy.port);
    expect((await onApp.request("http", "POST", "/services/json/user/login", { json: credentials })).status).toBe(200);
    const rehashed = await pass();
    // _password_itoa64()[14]: the count Drupal itself would write.
    expect(rehashed).toMatch(/^\$S\$C/);
    const onDrupalToo = new Browser(proxy.port);
    expect((await onDrupal(() => onDrupalToo.request("http", "POST", "/services/json/user/login", { json: credentials }))).status).toBe(200);
    expect(await pass()).toBe(rehashed);
    // Both sessions live: no user_save(), no drupal_session_destroy_uid().
    expect((await onApp.request("http", "GET", "/services/json/players")).status).toBe(200);
    expect(showsLoggedIn((await onDrupalToo.request("http", "GET", "/user")).text, "demo")).toBe(true);
    expect((await new Browser(proxy.port).request("http", "POST", "/services/json/user/login", { json: credentials })).status).toBe(200);
    expect(await pass()).toBe(rehashed);
  });

  it("counts failures per account across addresses (user_failed_login_identifier_uid_only) to the site's limit, on both sides", async () => {
    const browser = new Browser(proxy.port);
    const attempt = (password: string, address: string) =>
      browser.request("http", "POST", "/services/json/user/login", {
        json: { username: "demo", password },
        headers: { "X-Forwarded-For": address },
        cookie: "",
      });
    expect((await onDrupal(() => attempt("wrong", "198.51.100.1"))).status).toBe(401);
    expect((await onDrupal(() => attempt("wrong", "198.51.100.2"))).status).toBe(401);
    expect((await attempt("wrong", "198.51.100.3")).status).toBe(401);
    const app = await attempt("demo-password", "198.51.100.4");
    const drupal = await onDrupal(() => attempt("demo-password", "198.51.100.5"));
    expect([app.status, app.text, drupal.status, drupal.text]).toEqual([
      406,
      '["Account is temporarily blocked."]',
      406,
      '["Account is temporarily blocked."]',
    ]);
    const identifiers = await site().sql<{ identifier: string }>("SELECT identifier FROM flood WHERE event = 'failed_login_attempt_user'");
    expect(new Set(identifiers.map((row) => row.identifier))).toEqual(new Set(["2"]));
  });

  it("writes a session's timestamp after the site's session_write_interval, as Drupal does", async () => {
    const browser = new Browser(proxy.port);
    const { sessid } = (await browser.request("http", "POST", "/services/json/user/login", { json: credentials })).json<{ sessid: string }>();
    await site().sql("UPDATE sessions SET timestamp = timestamp - 70 WHERE sid = ?", [idOf(sessid)]);
    const before = Number((await rows("sid = ?", [idOf(sessid)]))[0]?.timestamp);
    expect((await browser.request("http", "GET", "/services/json/players")).status).toBe(200);
    expect(Number((await rows("sid = ?", [idOf(sessid)]))[0]?.timestamp)).toBeGreaterThanOrEqual(before + 70);
    expect(Number((await rows("sid = ?", [idOf(sessid)]))[0]?.timestamp)).toBeGreaterThanOrEqual(now() - 5);
  });
});
