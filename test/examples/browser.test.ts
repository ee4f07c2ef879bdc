import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drupalSessionName, memorySessionStore } from "services-session-auth";
import { createApp, demoUserStore } from "../../examples/sports-api/app.js";
import { fastHasher, SECRET } from "../helpers/app.js";
import { browserRequired, CHROMIUM, chromiumPresent, launchChromium } from "../helpers/chromium.js";

const OUTPUT = join(process.cwd(), "test-output");
const present = chromiumPresent;
const required = browserRequired;

if (!present && !required) {
  console.warn(`\n  [skip] examples/sports-api in a browser: ${CHROMIUM} not found (apt-get install -y chromium; REQUIRE_BROWSER=1 makes this a failure)\n`);
}

describe.skipIf(!present && !required)("examples/sports-api in a real browser", () => {
  const sessionStore = memorySessionStore();
  const userStore = demoUserStore(fastHasher);
  const log: string[] = [];
  let server: Server;
  let attacker: Server;
  let attackerOrigin: string;
  let browser: Browser;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    if (!present) throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: apt-get install -y chromium`);
    await userStore.ready;
    // Three failures per account and IP, so the throttle message can be reached in the test.
    const app = createApp({
      secret: SECRET,
      userStore,
      sessionStore,
      hasher: fastHasher,
      extra: { throttle: { userLimit: 3 } },
      log: (line) => void log.push(line),
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Another site (127.0.0.2 is another host name, so another site to the browser) whose page
    // posts our login form as soon as it loads: login CSRF, with the attacker's credentials.
    attacker = createServer((_req, res) => {
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end(
        `<!doctype html><title>Win a prize</title><form method="post" action="${origin}/services/json/user/login.json">` +
          `<input name="username" value="admin"><input name="password" value="admin-password"></form>` +
          `<script>document.forms[0].submit()</script>`,
      );
    });
    attacker.listen(0, "127.0.0.2");
    await new Promise((resolve) => attacker.once("listening", resolve));
    attackerOrigin = `http://127.0.0.2:${(attacker.address() as AddressInfo).port}`;
    browser = await launchChromium();
    // One browser profile for the tabs of a test: the victim's page and the attacker's share cookies.
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    await new Promise((resolve) => (attacker === undefined ? resolve(undefined) : attacker.close(resolve)));
    sessionStore.close();
  });

  async function logIn(name: string, password: string) {
    await page.fill("#login-form input[name=username]", name);
    await page.fill("#login-form input[name=password]", password);
    await page.click("#login-form button[type=submit]");
  }

  it("logs in, shows the players table, and keeps the session across a reload", async () => {
    await page.goto(`${origin}/`);
    await page.waitForSelector("#login-form", { state: "visible" });
    await logIn("demo", "demo-password");
    await page.waitForSelector("#players tbody tr");
    expect(await page.textContent("#user-name")).toBe("demo");
    expect(await page.locator("#players tbody tr").count()).toBe(4);
    expect(await page.textContent("#players tbody")).toContain("Grace Okafor");
    expect(await page.textContent("#events tbody")).toContain("Old Links");

    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name.startsWith("SESS"));
    expect(session?.httpOnly).toBe(true);

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, "sports-api-logged-in.png"), fullPage: true });

    await page.reload();
    await page.waitForSelector("#players tbody tr");
    expect(await page.isVisible("#login-view")).toBe(false);
    expect(await page.textContent("#user-name")).toBe("demo");
  });

  it("refuses a login form another site posts, and the victim stays logged in as before", async () => {
    // The victim is logged in as demo (also when this test runs alone).
    await page.goto(`${origin}/`);
    await page.locator("#login-form:visible, #players tbody tr:visible").first().waitFor();
    if (await page.isVisible("#login-form")) await logIn("demo", "demo-password");
    await page.waitForSelector("#players tbody tr");
    const attackerPage = await page.context().newPage();
    const refused = attackerPage.waitForResponse((response) => response.url().endsWith("/services/json/user/login.json"));
    await attackerPage.goto(`${attackerOrigin}/`);
    expect((await refused).status()).toBe(403);
    await attackerPage.close();
    const seen = log.map((line) => JSON.parse(line) as { event: string; origin?: string }).filter((entry) => entry.event === "login.cross-site");
    expect(seen).toMatchObject([{ origin: attackerOrigin }]);
    // Still demo, on the same session: the attacker's account never replaced it.
    await page.reload();
    await page.waitForSelector("#players tbody tr");
    expect(await page.textContent("#user-name")).toBe("demo");
  });

  it("tells the user when the session ended on the server", async () => {
    // Log out everywhere from outside the page, as an admin or another device would.
    const demo = await userStore.findByName("demo");
    expect(await sessionStore.destroyByUser(demo!.uid)).toBe(1);
    await page.click("#refresh");
    await page.waitForSelector("#login-form", { state: "visible" });
    expect(await page.textContent("#message")).toBe("Your session has expired or was ended. Please log in again.");
  });

  it("logs out and is back at the login form", async () => {
    await logIn("demo", "demo-password");
    await page.waitForSelector("#players tbody tr");
    await page.click("#logout");
    await page.waitForSelector("#login-form", { state: "visible" });
    expect(await page.isVisible("#app-view")).toBe(false);
    expect(await page.textContent("#message")).toBe("You are logged out.");
    expect((await page.context().cookies()).filter((cookie) => cookie.name.startsWith("SESS"))).toEqual([]);
    await page.reload();
    await page.waitForSelector("#login-form", { state: "visible" });
  });

  it("says so when the password is wrong, then when the account is throttled", async () => {
    await logIn("admin", "not-the-password");
    await page.waitForSelector("#message:not([hidden])");
    expect(await page.textContent("#message")).toBe("Wrong user name or password.");
    expect(await page.isVisible("#login-form")).toBe(true);

    // The button is disabled while a login is under way: wait for each reply before the next.
    for (const wrong of ["still-wrong", "wrong-again"]) {
      await logIn("admin", wrong);
      await page.waitForSelector("#login-form button:not([disabled])");
    }
    // The right password, too late: the account is blocked for this IP now.
    await logIn("admin", "admin-password");
    await page.locator("#message", { hasText: "temporarily blocked" }).waitFor();
    expect(await page.textContent("#message")).toBe("Too many failed logins: account is temporarily blocked. Try again later.");
    expect(await page.isVisible("#app-view")).toBe(false);
  });

  // A Drupal-era browser holds a cookie Drupal set for the dotted host (Domain=.api.sports.test).
  // This browser resolves that name to loopback, so cookies are stored under a real dotted host.
  it("on a dotted host name, replaces a stale Drupal-era domain cookie on login, stays logged in, and removes it on logout", async () => {
    const host = "api.sports.test";
    const dotted = await launchChromium([`--host-resolver-rules=MAP ${host} 127.0.0.1`]);
    try {
      const site = `http://${host}:${(server.address() as AddressInfo).port}`;
      const tab = await (await dotted.newContext()).newPage();
      tab.setDefaultTimeout(10_000);
      // The name Drupal gave the site: from the Host header, port included.
      const name = drupalSessionName({ secure: false, host: new URL(site).host });
      await tab
        .context()
        .addCookies([{ name, value: "drupal-era-session-id", domain: `.${host}`, path: "/", httpOnly: true, expires: Math.floor(Date.now() / 1000) + 86_400 }]);
      await tab.goto(`${site}/`);
      await tab.waitForSelector("#login-form", { state: "visible" });
      await tab.fill("#login-form input[name=username]", "demo");
      await tab.fill("#login-form input[name=password]", "demo-password");
      await tab.click("#login-form button[type=submit]");
      await tab.waitForSelector("#players tbody tr");

      const sessions = (await tab.context().cookies()).filter((cookie) => cookie.name.startsWith("SESS"));
      expect(sessions.map(({ name, domain, path }) => ({ name, domain, path }))).toEqual([{ name, domain: `.${host}`, path: "/" }]);
      expect(sessions[0]!.value).not.toBe("drupal-era-session-id");
      await tab.reload();
      await tab.waitForSelector("#players tbody tr");
      expect(await tab.textContent("#user-name")).toBe("demo");

      await tab.click("#logout");
      await tab.waitForSelector("#login-form", { state: "visible" });
      expect((await tab.context().cookies()).filter((cookie) => cookie.name.startsWith("SESS"))).toEqual([]);
    } finally {
      await dotted.close();
    }
  });
});
