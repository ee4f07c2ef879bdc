/**
 * Registration and a password reset through the real client library apps shipped: the unmodified
 * jDrupal 7.x-1.x build (read from ../shared/clients at test time, GPL-2.0, never copied here),
 * in real Chromium, against a real Drupal 7.101 site serving the whole user resource and against
 * the app beside it on the same database. Each flow runs on both, the same calls, the same outcome.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { browserRequired, chromiumPresent, launchChromium } from "../helpers/chromium.js";
import { describeBesideDrupal } from "../drupal/helpers/drupal7-site.js";
import { startAccountsNodeSide, type AccountsNodeSide } from "./helpers/accounts-node-side.js";
import { drupalMails, setVariables } from "./helpers/drupal-site-state.js";

const JDRUPAL = fileURLToPath(new URL("../../../shared/clients/jdrupal-7.x-1.x/jdrupal.js", import.meta.url));
const ready = chromiumPresent && existsSync(JDRUPAL);
if (!ready && !browserRequired) console.warn(`[skip] jDrupal's account flows: Chromium or ${JDRUPAL} missing (REQUIRE_BROWSER=1 makes this a failure)`);

/** The page: jDrupal, and promises over its callbacks. */
const HARNESS = `<!doctype html><meta charset="utf-8"><script src="/jdrupal.js"></script><script>
jDrupal.settings.site_path = location.origin;
jDrupal.settings.endpoint = "services/json";
window.settle = function (start) {
  return new Promise(function (resolve) {
    start(function (data) { resolve({ ok: true, data: data }); }, function (xhr, status, message) { resolve({ ok: false, status: status, message: message }); });
  });
};
window.call = function (method, path, data) {
  return settle(function (ok, err) {
    jDrupal.services.call({ method: method, path: path, service: "user", resource: "x", data: data === undefined ? undefined : JSON.stringify(data), success: ok, error: err });
  });
};
</script>`;

/** A front for one side: jDrupal and the page, everything else passed to the side, the Host the browser used kept. */
async function front(targetPort: number): Promise<{ origin: string; close(): Promise<void> }> {
  const jdrupal = readFileSync(JDRUPAL);
  const server: Server = createServer((req, res) => {
    if (req.url === "/jdrupal.js") return void res.writeHead(200, { "Content-Type": "text/javascript" }).end(jdrupal);
    if (req.url === "/harness.html") return void res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(HARNESS);
    const upstream = httpRequest({ host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Settled {
  readonly ok: boolean;
  readonly data?: unknown;
  readonly status?: number;
}

describeBesideDrupal(
  "jDrupal's account flows beside Drupal",
  48,
  (site) => {
    let node: AccountsNodeSide;
    let browser: Browser;
    const fronts: Array<{ origin: string; close(): Promise<void> }> = [];

    beforeAll(async () => {
      node = await startAccountsNodeSide(site());
      if (ready) browser = await launchChromium();
      fronts.push(await front(site().port), await front(node.port));
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      for (const one of fronts) await one.close();
      await node?.close();
    });

    async function page(side: number): Promise<Page> {
      const tab = await (await browser.newContext()).newPage();
      tab.setDefaultTimeout(15_000);
      await tab.goto(`${fronts[side]!.origin}/harness.html`);
      return tab;
    }

    const run = (tab: Page, script: string, args: unknown[] = []) =>
      tab.evaluate(({ script, args }) => new Function("args", `return (async () => { ${script} })();`)(args), { script, args }) as Promise<Settled>;

    it.runIf(ready || browserRequired)("registers with user_register() and is logged in, on Drupal and on the app alike", async () => {
      await setVariables(site(), { user_register: 1, user_email_verification: false });
      const outcomes: unknown[] = [];
      for (const [side, name] of [
        [0, "jd-drupal"],
        [1, "jd-node"],
      ] as const) {
        const tab = await page(side);
        const registered = await run(
          tab,
          "return settle((ok, err) => user_register({ name: args[0], mail: args[0] + '@example.com', pass: 'jd-password' }, { success: ok, error: err }));",
          [name],
        );
        expect(registered.ok, JSON.stringify(registered)).toBe(true);
        const connected = await run(tab, "jDrupal.sessid = null; return settle((ok, err) => system_connect({ success: ok, error: err }));");
        expect((connected.data as { user: { name: string } }).user.name).toBe(name);
        const refused = await run(
          tab,
          "return settle((ok, err) => user_register({ name: args[0], mail: args[0] + '@example.com', pass: 'x' }, { success: ok, error: err }));",
          ["other"],
        );
        outcomes.push({ registered: Object.keys(registered.data as object), refused: [refused.ok, refused.status] });
      }
      // Logged in, a second registration is an admin's: refused the same on both.
      expect(outcomes[1]).toEqual(outcomes[0]);
    });

    it.runIf(ready || browserRequired)(
      "asks for a new password with user_request_new_password(), uses the link and sets a password, on Drupal and on the app alike",
      async () => {
        await setVariables(site(), { user_register: 1, user_email_verification: false });
        for (const [side, name] of [
          [0, "jd-drupal"],
          [1, "jd-node"],
        ] as const) {
          const tab = await page(side);
          // Logged in (at registration) a while ago, so that using the link moves `login` and spends it even within the same second.
          await site().sql("UPDATE users SET login = login - 100 WHERE name = ?", [name]);
          const asked = await run(tab, "return settle((ok, err) => user_request_new_password(args[0], { success: ok, error: err }));", [name]);
          expect(asked).toMatchObject({ ok: true, data: [true] });
          const mails = side === 0 ? await drupalMails(site()) : node.sent;
          const body = mails.findLast((mail) => mail.id === "user_password_reset" && mail.to === `${name}@example.com`)!.body;
          const [, uid, timestamp, hash] = /\/user\/reset\/(\d+)\/(\d+)\/([\w-]{43})/.exec(body)!;
          const opened = await run(tab, "return call('POST', 'user/user_pass_reset.json', { uid: args[0], timestamp: args[1], hashed_pass: args[2] });", [
            uid,
            timestamp,
            hash,
          ]);
          expect(opened.ok, JSON.stringify(opened)).toBe(true);
          // Logged in now (a new session, so a new CSRF token, as after a login): the link says so.
          const reused = await run(
            tab,
            "jDrupal.sessid = null; return call('POST', 'user/user_pass_reset.json', { uid: args[0], timestamp: args[1], hashed_pass: args[2] });",
            [uid, timestamp, hash],
          );
          expect(reused).toMatchObject({ ok: false, status: 403 });
          const token = (opened.data as { pass_reset_token: string }).pass_reset_token;
          const saved = await run(tab, "return call('PUT', 'user/' + args[0] + '.json&pass-reset-token=' + args[1], { pass: 'jd-new-password' });", [
            uid,
            token,
          ]);
          expect(saved, JSON.stringify(saved)).toMatchObject({ ok: true, data: { uid, roles: { "2": "authenticated user" } } });
          const out = await run(tab, "return settle((ok, err) => user_logout({ success: ok, error: err }));");
          expect(out.ok).toBe(true);
          const back = await run(tab, "return settle((ok, err) => user_login(args[0], 'jd-new-password', { success: ok, error: err }));", [name]);
          expect(back.ok, JSON.stringify(back)).toBe(true);
        }
      },
    );
  },
  (variant) => variant.dialect === "mysql" && !variant.rawSids,
  { accounts: true },
);
