/**
 * The example app's account calls as it runs them: enabled from its environment, mail printed to
 * its log, and the mailed one-time link opening the app's own page, driven in real Chromium to a
 * new password.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsFromEnv } from "../../examples/sports-api/accounts-env.js";
import { createApp, demoUserStore } from "../../examples/sports-api/app.js";
import { fastHasher, SECRET } from "../helpers/app.js";
import { browserRequired, CHROMIUM, chromiumPresent, launchChromium } from "../helpers/chromium.js";

describe("the example app's account calls", () => {
  const log: string[] = [];
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    const userStore = demoUserStore(fastHasher);
    await userStore.ready;
    const accounts = accountsFromEnv({ SITE_NAME: "Sports" }, (line) => void log.push(line));
    const app = createApp({ secret: SECRET, userStore, hasher: fastHasher, extra: { accounts }, log: (line) => void log.push(line) });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (path: string, body: unknown) =>
    fetch(`${origin}/services/json/${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

  it("reads which calls to serve from the environment", () => {
    expect(accountsFromEnv({ ACCOUNT_CALLS: "none" }, () => undefined)).toBeUndefined();
    expect(accountsFromEnv({ ACCOUNT_CALLS: "register, retrieve" }, () => undefined)?.calls).toEqual(["register", "retrieve"]);
    expect(() => accountsFromEnv({ ACCOUNT_CALLS: "register,nope" }, () => undefined)).toThrow(/unknown call nope/);
    expect(() => accountsFromEnv({ REGISTER: "anyone" }, () => undefined)).toThrow(/REGISTER must be/);
  });

  it("registers a visitor and prints the welcome mail to its log", async () => {
    const reply = await post("user/register.json", { name: "ana", mail: "ana@example.com", pass: "ana-password" });
    expect(reply.status).toBe(200);
    expect(reply.headers.getSetCookie()).toHaveLength(1);
    expect(log.find((line) => line.startsWith("--- mail user_register_no_approval_required to ana@example.com"))).toContain(
      "Subject: Account details for ana at Sports",
    );
  });

  describe.skipIf(!chromiumPresent && !browserRequired)("in a browser", () => {
    let browser: Browser;
    beforeAll(async () => {
      if (!chromiumPresent) throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing`);
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("mails a link to its own page, where a new password is chosen and the user is logged in", async () => {
      expect((await post("user/request_new_password.json", { name: "demo" })).status).toBe(200);
      const mail = log.findLast((line) => line.startsWith("--- mail user_password_reset to demo@example.com"))!;
      const link = /(http:\/\/\S+\/reset\.html\?uid=\d+&timestamp=\d+&hash=[\w-]{43})/.exec(mail)![1]!;
      expect(link.startsWith(`${origin}/reset.html?uid=2&`)).toBe(true);
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(link);
      await page.fill("input[name=pass1]", "brand-new-password");
      await page.fill("input[name=pass2]", "brand-new-password");
      await page.click("button[type=submit]");
      await page.waitForSelector("#message[data-kind=ok]");
      // The page's session is the demo user's.
      await page.goto(`${origin}/`);
      await page.waitForSelector("#user-name");
      expect(await page.textContent("#user-name")).toBe("demo");
      // Used: the link opens no session again.
      const again = await page.context().newPage();
      await again.goto(link);
      await again.fill("input[name=pass1]", "x");
      await again.fill("input[name=pass2]", "x");
      await again.click("button[type=submit]");
      await again.waitForSelector("#message[data-kind=error]");
      const login = await post("user/login.json", { username: "demo", password: "brand-new-password" });
      expect(login.status).toBe(200);
    });
  });
});
