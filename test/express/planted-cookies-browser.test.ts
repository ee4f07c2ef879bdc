/**
 * Issue 21's planted-cookie attack in a real browser: a page on a sibling subdomain
 * (evil.example.com) sets a session cookie of the site's name for `Domain=example.com` and a
 * narrower path. Chromium then sends it first on the victim's requests to api.example.com.
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
  const test = createTestApp({ baseUrl: undefined }, undefined, (app) => {
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
    expect((await context.cookies(`${site()}/services/json/players`)).map((cookie) => cookie.domain).sort()).toEqual([".api.example.com", ".example.com"]);

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
});
