/**
 * Issue 21's planted-cookie attack in a real browser: a page on a sibling subdomain
 * (evil.example.com) sets a session cookie of the site's name for `Domain=example.com` and a
 * narrower path. Chromium then sends it first on the victim's requests to api.example.com.
 * Issue 29's: the same with the attacker's live session beside the victim's at logout, and with
 * device-cookie values planted before the victim's own (device cookies on, the account locked
 * by others' failures from other addresses, named through a trusted loopback proxy).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/app.js";
import { browserRequired, CHROMIUM, chromiumPresent, launchChromium } from "../helpers/chromium.js";

if (!chromiumPresent && !browserRequired) {
  console.warn(
    `\n  [skip] planted session cookies in a browser: ${CHROMIUM} not found (apt-get install -y chromium; REQUIRE_BROWSER=1 makes this a failure)\n`,
  );
}

describe.skipIf(!chromiumPresent && !browserRequired)("session cookies planted from a sibling subdomain, in Chromium", () => {
  /** What the page on evil.example.com plants, one Set-Cookie value per entry. */
  let plant: string[] = [];
  const test = createTestApp({ baseUrl: undefined, deviceCookies: true, throttle: { perAccountOnly: true } }, undefined, (app) => {
    app.set("trust proxy", "loopback");
    app.get("/plant", (_req, res) => {
      res.append("Set-Cookie", plant).type("html").send("<!doctype html><title>planted</title>");
    });
    app.get("/home", (_req, res) => void res.type("html").send("<!doctype html><title>home</title>"));
  });
  let server: Server;
  let browser: Browser;
  let port = 0;

  beforeAll(async () => {
    server = test.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as AddressInfo).port;
    browser = await launchChromium(["--host-resolver-rules=MAP *.example.com 127.0.0.1"]);
  });

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  });

  const site = () => `http://api.example.com:${port}`;

  /** A fresh profile logged in as demo on api.example.com, through the page's own fetch. */
  async function victim(): Promise<{ context: BrowserContext; page: Page; name: string; sessid: string; token: string }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${site()}/home`);
    const body = await page.evaluate(async () => {
      const res = await fetch("/services/json/user/login", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "demo", password: "demo-password" }),
      });
      return (await res.json()) as { session_name: string; sessid: string; token: string };
    });
    return { context, page, name: body.session_name, sessid: body.sessid, token: body.token };
  }

  /** The page's GET of the protected players list, and its connect with the token. */
  async function visit(page: Page, token: string) {
    return page.evaluate(async (csrf) => {
      const players = await fetch("/services/json/players");
      const connect = await fetch("/services/json/system/connect", { method: "POST", headers: { "X-CSRF-Token": csrf } });
      const user = ((await connect.json()) as { user: { uid: unknown } }).user;
      return { players: players.status, playersUid: players.status === 200 ? ((await players.json()) as { uid: unknown }).uid : null, connectUid: user.uid };
    }, token);
  }

  it("never makes the attacker's planted session the victim's login, nor overwrites the victim's cookie", async () => {
    const { context, page, name, sessid, token } = await victim();
    const attacker = await request(test.app)
      .post("/services/json/user/login")
      .set("Host", `api.example.com:${port}`)
      .send({ username: "admin", password: "admin-password" });
    plant = [`${name}=${(attacker.body as { sessid: string }).sessid}; Domain=example.com; Path=/services/json/players; HttpOnly`];
    const planter = await context.newPage();
    await planter.goto(`http://evil.example.com:${port}/plant`);
    expect(
      (await context.cookies(`${site()}/services/json/players`))
        .filter((cookie) => cookie.name === name)
        .map((cookie) => cookie.domain)
        .sort(),
    ).toEqual([".api.example.com", ".example.com"]);

    // Under the planted path the two accounts' sessions cancel out; everywhere else the victim is the victim.
    expect(await visit(page, token)).toEqual({ players: 401, playersUid: null, connectUid: "14" });
    const own = (await context.cookies(`${site()}/`)).filter((cookie) => cookie.name === name);
    expect(own.map((cookie) => [cookie.domain, cookie.path, cookie.value])).toEqual([[".api.example.com", "/", sessid]]);
    await context.close();
  });

  it("keeps the victim logged in, and its cookie, behind three planted junk values", async () => {
    const { context, page, name, sessid, token } = await victim();
    plant = ["/services/json/players", "/services/json", "/services"].map(
      (path) => `${name}=junk${path.replaceAll("/", "-")}; Domain=example.com; Path=${path}`,
    );
    const planter = await context.newPage();
    await planter.goto(`http://evil.example.com:${port}/plant`);
    expect((await context.cookies(`${site()}/services/json/players`)).filter((cookie) => cookie.name === name)).toHaveLength(4);

    expect(await visit(page, token)).toEqual({ players: 200, playersUid: "14", connectUid: "14" });
    expect((await context.cookies(`${site()}/`)).filter((cookie) => cookie.name === name).map((cookie) => cookie.value)).toEqual([sessid]);
    await context.close();
  });

  /** A request from outside the browser, to the site as the browser sees it. */
  const direct = () => request(test.app);
  const host = () => `api.example.com:${port}`;

  it("ends the victim's own session at a logout beside the attacker's planted live session, never the attacker's", async () => {
    const { context, page, name, sessid, token } = await victim();
    const attacker = (await direct().post("/services/json/user/login").set("Host", host()).send({ username: "admin", password: "admin-password" })).body as {
      sessid: string;
      token: string;
    };
    // Under the logout's own path: sent first there.
    plant = [`${name}=${attacker.sessid}; Domain=example.com; Path=/services/json/user; HttpOnly`];
    await (await context.newPage()).goto(`http://evil.example.com:${port}/plant`);
    const logout = await page.evaluate(async (csrf) => {
      const res = await fetch("/services/json/user/logout", { method: "POST", headers: { "X-CSRF-Token": csrf } });
      return [res.status, await res.text()];
    }, token);
    expect(logout).toEqual([200, "[true]"]);
    const whoIs = async (sid: string, csrf: string) =>
      (
        (await direct().post("/services/json/system/connect").set("Host", host()).set("Cookie", `${name}=${sid}`).set("X-CSRF-Token", csrf).send()).body as {
          user: { uid: unknown };
        }
      ).user.uid;
    expect([await whoIs(sessid, token), await whoIs(attacker.sessid, attacker.token)]).toEqual([0, "1"]);
    // The victim's own cookie is deleted; the planted one is left where it was put.
    const left = (await context.cookies(`${site()}/services/json/user/logout`)).filter((cookie) => cookie.name === name);
    expect(left.map((cookie) => [cookie.domain, cookie.path])).toEqual([[".example.com", "/services/json/user"]]);
    await context.close();
  });

  it("keeps the victim's device cookie working behind device-cookie values planted before it", async () => {
    const { context, page, token } = await victim();
    expect((await context.cookies(`${site()}/`)).map((cookie) => cookie.name)).toContain("ssa_device");
    await page.evaluate(async (csrf) => void (await fetch("/services/json/user/logout", { method: "POST", headers: { "X-CSRF-Token": csrf } })), token);
    // More than the four values that used to be read, each on a path of its own longer than the
    // victim's (one name, domain and path is one cookie): all are sent before the victim's.
    const paths = ["/services/json/user/login", "/services/json/user/", "/services/json/user", "/services/json/", "/services/json", "/services/"];
    plant = paths.map(
      (path, i) => `ssa_device=${"A".repeat(22)}.${"B".repeat(22)}.1.${"C".repeat(21)}${i}.${"D".repeat(43)}; Domain=example.com; Path=${path}`,
    );
    await (await context.newPage()).goto(`http://evil.example.com:${port}/plant`);
    expect((await context.cookies(`${site()}/services/json/user/login`)).filter((cookie) => cookie.name === "ssa_device")).toHaveLength(7);
    // Others lock the account from their own addresses.
    for (let i = 0; i < 5; i += 1) {
      await direct()
        .post("/services/json/user/login")
        .set("Host", host())
        .set("X-Forwarded-For", `192.0.2.${i + 1}`)
        .send({ username: "demo", password: `guess-${i}` });
    }
    const stranger = await direct().post("/services/json/user/login").set("Host", host()).send({ username: "demo", password: "demo-password" });
    expect(stranger.status).toBe(406);
    const status = await page.evaluate(async () => {
      const res = await fetch("/services/json/user/login", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "demo", password: "demo-password" }),
      });
      return res.status;
    });
    expect(status).toBe(200);
    await context.close();
  });
});
