/**
 * Hybrid and browser apps on other origins, in real Chromium: the unmodified jDrupal 7.x-1.x
 * build (read at test time from ../shared/clients beside the repository: it is GPL-2.0, and
 * never copied here) with the documented one-line shim, and plain fetch with
 * `credentials: "include"`, against the example app configured only through its environment
 * variables (on Express; the cross-site scenario on Fastify and Hono too). Each scenario runs
 * connect, login, connect, a protected GET, logout, connect.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Frame } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, demoUserStore } from "../../examples/sports-api/app.js";
import { sportsApiServer } from "../../examples/sports-api/frameworks.js";
import { hybridOptionsFromEnv } from "../../examples/sports-api/hybrid.js";
import { fastHasher, SECRET } from "../helpers/app.js";
import { browserRequired, CHROMIUM, QUIET_CHROMIUM_FLAGS } from "../helpers/chromium.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const JDRUPAL = join(ROOT, "..", "shared", "clients", "jdrupal-7.x-1.x", "jdrupal.js");
const required = browserRequired;
const missing = [
  existsSync(CHROMIUM) ? undefined : `${CHROMIUM} (apt-get install -y chromium)`,
  existsSync(JDRUPAL) ? undefined : `${JDRUPAL} (the jDrupal 7.x-1.x build, in ../shared/clients beside the repository)`,
  hasOpenssl() ? undefined : "openssl (for a test certificate)",
].filter((item) => item !== undefined);

if (missing.length > 0 && !required) {
  console.warn(`\n  [skip] hybrid apps in a browser: missing ${missing.join(", ")} (REQUIRE_BROWSER=1 makes this a failure)\n`);
}

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The shim docs/hybrid-apps.md gives: jDrupal 7 never sets withCredentials, so every XHR gets it as it is opened. */
const SHIM =
  "(function (open) { XMLHttpRequest.prototype.open = function () { open.apply(this, arguments); this.withCredentials = true; }; })(XMLHttpRequest.prototype.open);";

/** What the app page runs: the six steps through jDrupal's own functions, and the same through fetch. Each step's outcome as a short string. */
const HARNESS = `
function settle(start) { return new Promise(function (resolve) { start(function (data) { resolve({ ok: true, data: data }); }, function (xhr, status) { resolve({ ok: false, status: status }); }); }); }
function who(r) { return r.ok ? "uid " + r.data.user.uid + (r.data.user.name ? " " + r.data.user.name : "") : "error " + r.status; }
window.runJdrupal = async function (api) {
  jDrupal.settings.site_path = api;
  jDrupal.settings.endpoint = "services/json";
  var steps = [];
  var connect = function () { return settle(function (ok, err) { system_connect({ success: ok, error: err }); }); };
  steps.push("connect: " + who(await connect()));
  var login = await settle(function (ok, err) { user_login("demo", "demo-password", { success: ok, error: err }); });
  steps.push("login: " + (login.ok ? "ok " + login.data.user.name : "error " + login.status));
  steps.push("connect: " + who(await connect()));
  var players = await settle(function (ok, err) { jDrupal.services.call({ method: "GET", path: "players.json", service: "players", resource: "index", success: ok, error: err }); });
  steps.push("players: " + (players.ok ? players.data.length + " rows" : "error " + players.status));
  var logout = await settle(function (ok, err) { user_logout({ success: ok, error: err }); });
  steps.push("logout: " + (logout.ok ? "ok" : "error " + logout.status));
  steps.push("connect: " + who(await connect()));
  return steps;
};
window.runFetch = async function (api) {
  var step = async function (name, run) { try { return name + ": " + (await run()); } catch (e) { return name + ": blocked"; } };
  var token = async function () { return (await fetch(api + "/services/session/token", { credentials: "include" })).text(); };
  var post = function (path, csrf, body) {
    var headers = { "X-CSRF-Token": csrf };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(api + "/services/json/" + path, { method: "POST", credentials: "include", headers: headers, body: body === undefined ? undefined : JSON.stringify(body) });
  };
  var connect = async function () { var r = await post("system/connect.json", await token()); var j = await r.json(); return "uid " + j.user.uid + (j.user.name ? " " + j.user.name : ""); };
  var steps = [];
  steps.push(await step("connect", connect));
  steps.push(await step("login", async function () { var r = await post("user/login.json", await token(), { username: "demo", password: "demo-password" }); return r.ok ? "ok " + (await r.json()).user.name : "error " + r.status; }));
  steps.push(await step("connect", connect));
  steps.push(await step("players", async function () { var r = await fetch(api + "/services/json/players.json", { credentials: "include" }); return r.ok ? (await r.json()).length + " rows" : "error " + r.status; }));
  steps.push(await step("logout", async function () { var r = await post("user/logout.json", await token()); return r.ok ? "ok" : "error " + r.status; }));
  steps.push(await step("connect", connect));
  return steps;
};`;

/**
 * What a page of any site can run in a document whose Origin is null, against a victim who is
 * signed in to the API: read the session's token and sessid, read a guarded route, and log
 * the browser in to an account of the attacker's choosing (fetch with a header, then a form,
 * which needs no preflight). Each outcome as a short string.
 */
const ATTACK = `
window.attack = async function (api) {
  var out = [];
  var step = async function (name, run) { try { out.push(name + ": " + (await run())); } catch (e) { out.push(name + ": blocked"); } };
  await step("token", async function () { return (await fetch(api + "/services/session/token", { credentials: "include" })).text(); });
  await step("connect", async function () { var r = await fetch(api + "/services/json/system/connect.json", { method: "POST", credentials: "include" }); return JSON.stringify((await r.json()).sessid); });
  await step("players", async function () { var r = await fetch(api + "/services/json/players.json", { credentials: "include" }); return r.status; });
  await step("login", async function () { var r = await fetch(api + "/services/json/user/login.json", { method: "POST", credentials: "include", headers: { "Content-Type": "application/json", "X-CSRF-Token": "x" }, body: JSON.stringify({ username: "admin", password: "admin-password" }) }); return r.status; });
  var form = document.createElement("form");
  form.method = "POST";
  form.action = api + "/services/json/user/login.json";
  form.innerHTML = '<input name="username" value="admin"><input name="password" value="admin-password">';
  document.body.appendChild(form);
  form.submit();
  return out;
};`;

function escapeAttribute(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
}

// Every host name is this machine; the test certificate is trusted.
const ARGS = [...QUIET_CHROMIUM_FLAGS, "--host-resolver-rules=MAP * 127.0.0.1", "--ignore-certificate-errors"];

const PASSED = ["connect: uid 0", "login: ok demo", "connect: uid 2 demo", "players: 4 rows", "logout: ok", "connect: uid 0"];

/** A browser profile that accepts third-party cookies, as "Allow third-party cookies" in Chromium's settings. */
function allowingThirdPartyCookies(): string {
  const profile = mkdtempSync(join(tmpdir(), "hybrid-profile-"));
  mkdirSync(join(profile, "Default"));
  writeFileSync(join(profile, "Default", "Preferences"), JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }));
  return profile;
}

/** A server of the app's pages, over http or https. */
function pageServer(handler: (req: IncomingMessage, res: ServerResponse) => void, tls?: { cert: Buffer; key: Buffer }): Server {
  return tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
}

/** The app's pages: jDrupal (served from ../shared, as read) with or without the shim, and a page whose sandboxed frame (origin null) is the app. */
function servePages(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://page");
  if (url.pathname === "/jdrupal.js") {
    res.setHeader("Content-Type", "text/javascript");
    res.end(readFileSync(JDRUPAL));
    return;
  }
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  if (url.pathname === "/attack.html") {
    // Both kinds of document any site can make whose Origin is null: a sandboxed frame and a data: one.
    const api = url.searchParams.get("api") ?? "";
    const script = `<script>${ATTACK}</script>`;
    res.end(
      `<!doctype html><title>attack</title><iframe sandbox="allow-scripts allow-forms" srcdoc="${escapeAttribute(script)}"></iframe>` +
        `<iframe src="data:text/html;base64,${Buffer.from(script).toString("base64")}"></iframe><script>window.api = ${JSON.stringify(api)};</script>`,
    );
    return;
  }
  const shim = url.searchParams.get("shim") === "1" ? `<script>${SHIM}</script>` : "";
  res.end(`<!doctype html><meta charset="utf-8"><title>app</title>${shim}<script src="/jdrupal.js"></script><script>${HARNESS}</script>`);
}

async function listen(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return (server.address() as AddressInfo).port;
}

describe("docs/hybrid-apps.md", () => {
  it("gives the shim these tests run", () => {
    expect(readFileSync(join(ROOT, "docs", "hybrid-apps.md"), "utf8")).toContain(`\n${SHIM}\n`);
  });
});

describe.skipIf(missing.length > 0 && !required)("hybrid and browser apps on other origins, in Chromium", () => {
  const servers: Server[] = [];
  const log: { event: string; origin?: string; message?: string }[] = [];
  let browser: BrowserContext;
  let pageHttp: number;
  let pageHttps: number;
  let apiHttp: number;
  let apiHttps: number;
  let apiLax: number;
  let apiOldCordova: number;
  let apiPermissive: number;
  const apiOn: Record<"fastify" | "hono", number> = { fastify: 0, hono: 0 };

  /** The example app, configured only through the environment variables of server.ts; on Express unless `framework` (EXAMPLE_FRAMEWORK) says otherwise. */
  async function exampleApi(env: NodeJS.ProcessEnv, tls?: { cert: Buffer; key: Buffer }, framework?: "fastify" | "hono"): Promise<number> {
    const userStore = demoUserStore(fastHasher);
    await userStore.ready;
    const config = { secret: SECRET, userStore, hasher: fastHasher, extra: hybridOptionsFromEnv(env), log: (line: string) => void log.push(JSON.parse(line)) };
    let server: Server;
    if (framework !== undefined) server = await sportsApiServer(framework, config, tls);
    else server = tls === undefined ? createHttpServer(createApp(config)) : createHttpsServer(tls, createApp(config));
    servers.push(server);
    return listen(server);
  }

  beforeAll(async () => {
    if (missing.length > 0) throw new Error(`REQUIRE_BROWSER=1 but missing: ${missing.join(", ")}`);
    const dir = mkdtempSync(join(tmpdir(), "hybrid-tls-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=sports.test",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-addext",
        "subjectAltName=DNS:api.sports.test,DNS:app.example.org,DNS:localhost",
      ],
      { stdio: "ignore" },
    );
    const tls = { cert: readFileSync(join(dir, "cert.pem")), key: readFileSync(join(dir, "key.pem")) };
    const http = pageServer(servePages);
    const https = pageServer(servePages, tls);
    servers.push(http, https);
    [pageHttp, pageHttps] = await Promise.all([listen(http), listen(https)]);
    // Same site, another port, plain http: the default cookie (no SameSite) is enough.
    apiHttp = await exampleApi({ TRUSTED_ORIGINS: `http://localhost:${pageHttp}` });
    // Another site: SameSite=None and Secure, so HTTPS.
    apiHttps = await exampleApi(
      { TRUSTED_ORIGINS: `https://app.example.org:${pageHttps}, http://localhost:${pageHttp}`, SESSION_SAMESITE: "none", COOKIE_SECURE: "always" },
      tls,
    );
    // The same on the other frameworks of the example (EXAMPLE_FRAMEWORK).
    for (const framework of ["fastify", "hono"] as const) {
      apiOn[framework] = await exampleApi(
        { TRUSTED_ORIGINS: `https://app.example.org:${pageHttps}`, SESSION_SAMESITE: "none", COOKIE_SECURE: "always" },
        tls,
        framework,
      );
    }
    // Another site, with the cookie left as Drupal 7 sent it: the documented failure.
    apiLax = await exampleApi({ TRUSTED_ORIGINS: `https://app.example.org:${pageHttps}` }, tls);
    // A Cordova app on Android: a file: page in a WebView that exempts it from CORS (universal
    // access from file URLs, which Cordova turns on; web security off here) sends no Origin.
    apiOldCordova = await exampleApi({ SESSION_SAMESITE: "none", COOKIE_SECURE: "always", ADMIT_CROSS_SITE_WITHOUT_ORIGIN: "1" }, tls);
    // Every cross-site opening there is at once: an app origin with CORS, and the file: opt-in.
    apiPermissive = await exampleApi(
      { TRUSTED_ORIGINS: `https://app.example.org:${pageHttps}`, SESSION_SAMESITE: "none", COOKIE_SECURE: "always", ADMIT_CROSS_SITE_WITHOUT_ORIGIN: "1" },
      tls,
    );
    // A profile that accepts third-party cookies, as a WebView does (Cordova's Android WebView
    // accepts them); Chromium's default profile blocks them, and no API can help a cross-site
    // app there (docs/hybrid-apps.md): the last test shows what that looks like.
    browser = await chromium.launchPersistentContext(allowingThirdPartyCookies(), { executablePath: CHROMIUM, headless: true, args: ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** Opens a page with no cookies and runs one client there; `frame` runs it in the page's sandboxed frame. */
  async function run(pageUrl: string, client: "runJdrupal" | "runFetch", api: string, frame = false, context: BrowserContext = browser): Promise<string[]> {
    await context.clearCookies();
    const page = await context.newPage();
    try {
      page.setDefaultTimeout(10_000);
      await page.goto(pageUrl);
      let target: Frame = page.mainFrame();
      if (frame) {
        target = (await (await page.waitForSelector("iframe")).contentFrame())!;
        await target.waitForFunction("typeof runFetch === 'function'");
      }
      return await target.evaluate(([name, url]) => (globalThis as unknown as Record<string, (api: string) => Promise<string[]>>)[name]!(url), [
        client,
        api,
      ] as const);
    } finally {
      await page.close();
    }
  }

  it("same site, another origin, plain http: jDrupal (shimmed) and fetch", async () => {
    const api = `http://localhost:${apiHttp}`;
    expect(await run(`http://localhost:${pageHttp}/app.html?shim=1`, "runJdrupal", api)).toEqual(PASSED);
    expect(await run(`http://localhost:${pageHttp}/app.html`, "runFetch", api)).toEqual(PASSED);
  });

  it("another site over HTTPS with SameSite=None: jDrupal (shimmed) and fetch", async () => {
    const api = `https://api.sports.test:${apiHttps}`;
    expect(await run(`https://app.example.org:${pageHttps}/app.html?shim=1`, "runJdrupal", api)).toEqual(PASSED);
    expect(await run(`https://app.example.org:${pageHttps}/app.html`, "runFetch", api)).toEqual(PASSED);
  });

  it.each(["fastify", "hono"] as const)("another site over HTTPS with SameSite=None, on %s: jDrupal (shimmed) and fetch", async (framework) => {
    const api = `https://api.sports.test:${apiOn[framework]}`;
    expect(await run(`https://app.example.org:${pageHttps}/app.html?shim=1`, "runJdrupal", api)).toEqual(PASSED);
    expect(await run(`https://app.example.org:${pageHttps}/app.html`, "runFetch", api)).toEqual(PASSED);
  });

  it("gives a page of any site, in a sandboxed or data: frame (Origin: null), neither the signed-in user's session nor a login", async () => {
    const api = `https://api.sports.test:${apiPermissive}`;
    // The victim signs in through the real app, and stays signed in.
    await browser.clearCookies();
    const app = await browser.newPage();
    try {
      await app.goto(`https://app.example.org:${pageHttps}/app.html`);
      const signIn = `(async (api) => { var t = await (await fetch(api + "/services/session/token", { credentials: "include" })).text(); var r = await fetch(api + "/services/json/user/login.json", { method: "POST", credentials: "include", headers: { "Content-Type": "application/json", "X-CSRF-Token": t }, body: JSON.stringify({ username: "demo", password: "demo-password" }) }); return r.status; })`;
      expect(await app.evaluate(`${signIn}(${JSON.stringify(api)})`)).toBe(200);
      const before = log.length;
      const attacker = await browser.newPage();
      try {
        await attacker.goto(`https://evil.example:${pageHttps}/attack.html?api=${encodeURIComponent(api)}`);
        const frames = attacker.frames().filter((frame) => frame !== attacker.mainFrame());
        expect(frames).toHaveLength(2);
        for (const frame of frames) {
          expect(await frame.evaluate("origin")).toBe("null");
          // Each read is refused to the frame's script; the header-carrying login never leaves the browser (its preflight gets no CORS).
          expect(await frame.evaluate(`attack(${JSON.stringify(api)})`)).toEqual(["token: blocked", "connect: blocked", "players: blocked", "login: blocked"]);
        }
        // The forms went out (no preflight) and were refused; the victim is still the victim.
        await expect.poll(() => log.slice(before).filter((entry) => entry.event === "login.cross-site").length).toBe(2);
        expect(log.slice(before).some((entry) => entry.event === "login.success")).toBe(false);
      } finally {
        await attacker.close();
      }
      const whoami = `(async (api) => { var t = await (await fetch(api + "/services/session/token", { credentials: "include" })).text(); var r = await fetch(api + "/services/json/system/connect.json", { method: "POST", credentials: "include", headers: { "X-CSRF-Token": t } }); return (await r.json()).user.name; })`;
      expect(await app.evaluate(`${whoami}(${JSON.stringify(api)})`)).toBe("demo");
    } finally {
      await app.close();
    }
  });

  it("a file: page where CORS applies (a desktop browser, iOS's WKWebView) is Origin: null too, and gets nothing", async () => {
    const api = `https://api.sports.test:${apiHttps}`;
    const dir = mkdtempSync(join(tmpdir(), "hybrid-file-"));
    writeFileSync(join(dir, "fetch.html"), `<!doctype html><meta charset="utf-8"><title>app</title><script>${HARNESS}</script>`);
    const steps = await run(pathToFileURL(join(dir, "fetch.html")).href, "runFetch", api);
    expect(steps).toEqual(["connect: blocked", "login: blocked", "connect: blocked", "players: blocked", "logout: blocked", "connect: blocked"]);
  });

  it("an http://localhost page (as Capacitor serves one) calling the HTTPS API: jDrupal (shimmed) and fetch", async () => {
    const api = `https://api.sports.test:${apiHttps}`;
    expect(await run(`http://localhost:${pageHttp}/app.html?shim=1`, "runJdrupal", api)).toEqual(PASSED);
    expect(await run(`http://localhost:${pageHttp}/app.html`, "runFetch", api)).toEqual(PASSED);
  });

  it("fails as documented without the shim: the login answers, but no cookie goes with jDrupal's calls", async () => {
    const before = log.length;
    const steps = await run(`https://app.example.org:${pageHttps}/app.html`, "runJdrupal", `https://api.sports.test:${apiHttps}`);
    expect(steps).toEqual(["connect: uid 0", "login: ok demo", "connect: uid 0", "players: error 401", "logout: error 406", "connect: uid 0"]);
    expect(log.slice(before).map((entry) => entry.event)).toEqual(["login.success"]);
  });

  it("fails as documented for another site when the cookie is not SameSite=None, and the event says why", async () => {
    const before = log.length;
    const steps = await run(`https://app.example.org:${pageHttps}/app.html`, "runFetch", `https://api.sports.test:${apiLax}`);
    expect(steps).toEqual(["connect: uid 0", "login: ok demo", "connect: uid 0", "players: error 401", "logout: error 406", "connect: uid 0"]);
    const said = log.slice(before).filter((entry) => entry.event === "cookie.cross-site");
    expect(said).toEqual([
      expect.objectContaining({
        origin: `https://app.example.org:${pageHttps}`,
        message: expect.stringContaining('sameSite: "none" and cookieSecure: "always"'),
      }),
    ]);
  });

  it("admits a Cordova file: page on Android (its WebView exempts file: from CORS, so no Origin) only with admitCrossSiteWithoutOrigin, and with no CORS", async () => {
    const webView = await chromium.launchPersistentContext(allowingThirdPartyCookies(), {
      executablePath: CHROMIUM,
      headless: true,
      args: [...ARGS, "--disable-web-security"],
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), "hybrid-cordova-"));
      writeFileSync(
        join(dir, "index.html"),
        `<!doctype html><meta charset="utf-8"><title>app</title><script>${SHIM}</script><script src="${pathToFileURL(JDRUPAL).href}"></script><script>${HARNESS}</script>`,
      );
      const page = pathToFileURL(join(dir, "index.html")).href;
      expect(await run(page, "runJdrupal", `https://api.sports.test:${apiOldCordova}`, false, webView)).toEqual(PASSED);
      const refused = await run(page, "runJdrupal", `https://api.sports.test:${apiHttps}`, false, webView);
      expect(refused.slice(0, 3)).toEqual(["connect: uid 0", "login: error 403", "connect: uid 0"]);
      expect(log.some((entry) => entry.event === "login.cross-site" && entry.message === "login refused: the browser marked it cross-site")).toBe(true);
    } finally {
      await webView.close();
    }
  });

  it("fails as documented in a browser that blocks third-party cookies (Chromium's default profile), configured right as it is", async () => {
    const blocking = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    try {
      const before = log.length;
      const steps = await run(
        `https://app.example.org:${pageHttps}/app.html`,
        "runFetch",
        `https://api.sports.test:${apiHttps}`,
        false,
        await blocking.newContext(),
      );
      expect(steps).toEqual(["connect: uid 0", "login: ok demo", "connect: uid 0", "players: error 401", "logout: error 406", "connect: uid 0"]);
      // The server sees a login that succeeded and a session that never comes back: nothing it can tell apart from a user who left.
      expect(log.slice(before).map((entry) => entry.event)).toEqual(["login.success"]);
    } finally {
      await blocking.close();
    }
  });
});
