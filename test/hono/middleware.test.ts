/** `services-session-auth/hono`, served on Node by @hono/node-server and driven over real HTTP. */
import { connect, type AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { basicAuth } from "hono/basic-auth";
import { etag } from "hono/etag";
import { HTTPException } from "hono/http-exception";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySessionStore, memoryUserStore, type AuthEvent, type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthMiddleware } from "services-session-auth/hono";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";
import { statusLine, upload } from "../helpers/raw-upload.js";

let server: ServerType;
let base: string;
const events: AuthEvent[] = [];

/** A Hono app as the README writes one: the Services calls, guarded routes, a route for everyone, Services' 404s and errors. */
function honoApp(options: SessionAuthOptions): Hono {
  const sessionAuth = createSessionAuthMiddleware(options);
  const app = new Hono({ getPath: sessionAuth.getPath });
  app.use(sessionAuth);
  // The app hands on a copy of the request with its cookie taken out, same URL, same env (and so the same IncomingMessage).
  app.use("/services/json/me", async (c, next) => {
    if (c.req.header("X-Anonymous") === undefined) return next();
    const headers = new Headers(c.req.raw.headers);
    headers.delete("Cookie");
    headers.delete("X-Anonymous");
    c.res = await app.fetch(new Request(c.req.raw, { headers }), c.env);
  });
  app.get("/services/json/me", sessionAuth.requireSession(), (c) => {
    const { user, session } = c.var.auth; // typed: RequestAuth behind requireSession, never the password hash
    return c.json({ name: user.name, roles: Object.values(user.roles), since: session.record.createdAt });
  });
  app.post("/services/json/players", sessionAuth.requireSession(), (c) => c.json({ added: true }, 201));
  app.get("/services/json/admin/stats", sessionAuth.requireSession({ roles: ["administrator"] }), (c) => c.json({ admin: true }));
  app.get("/welcome", sessionAuth.optionalSession(), (c) => c.text(c.var.auth === undefined ? "Hello, visitor" : `Hello, ${c.var.auth.user.name}`));
  // Hono's own HTTPException (basic-auth's 401 with its challenge), and a refusal handed to onError.
  app.get("/metrics", basicAuth({ username: "ops", password: "ops-password" }), (c) => c.text("up 1"));
  app.get("/services/json/players", sessionAuth.requireSession({ onDenied: "next" }), (c) => c.json({ players: [] }));
  app.notFound(sessionAuth.notFound({ resources: ["players", "me", "admin"] }));
  app.onError(sessionAuth.onError());
  return app;
}

beforeAll(async () => {
  const app = honoApp({
    userStore: memoryUserStore(USERS, { hasher: fastHasher }),
    sessionStore: memorySessionStore(),
    secret: SECRET,
    hasher: fastHasher,
    onEvent: (event) => events.push(event),
  });
  // A request of the app's own making, with the outer request's env (and so its IncomingMessage).
  app.get("/relay", (c) => app.request("/services/json/me", {}, c.env));
  // As docs/hybrid-apps.md says to serve it: @hono/node-server's own clean-up cuts off a slow upload's reply.
  ({ server, site: base } = await listen(app, { autoCleanupIncoming: false }));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Serves `app` on a free loopback port. */
async function listen(app: Hono, options: { autoCleanupIncoming?: boolean } = {}): Promise<{ server: ServerType; site: string }> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1", ...options });
  await new Promise((resolve) => server.once("listening", resolve));
  return { server, site: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** demo's login at `site` with a JSON body, as a hybrid app sends it (`headers`: its Origin). */
async function jsonLogin(site: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${site}/services/json/user/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ username: "demo", password: "demo-password" }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { session_name: string; sessid: string };
  return { ...body, cookie: `${body.session_name}=${body.sessid}` };
}

async function login(name = "demo", password = "demo-password", path = "/services/json/user/login.json") {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: name, password }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { sessid: string; session_name: string; token: string };
  expect(res.headers.getSetCookie()).toHaveLength(1);
  return { ...body, cookie: `${body.session_name}=${body.sessid}` };
}

describe("services-session-auth/hono on @hono/node-server", () => {
  it("answers the Services calls and sets c.var.auth behind requireSession", async () => {
    const demo = await login();
    const me = await fetch(`${base}/services/json/me`, { headers: { Cookie: demo.cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ name: "demo", roles: ["authenticated user"] });
    const anonymous = await fetch(`${base}/services/json/me`);
    expect([anonymous.status, await anonymous.json()]).toEqual([401, ["Access denied for user anonymous"]]);
    const connect = await fetch(`${base}/services/json/system/connect.json`, { method: "POST", headers: { Cookie: demo.cookie, "X-CSRF-Token": demo.token } });
    expect(((await connect.json()) as { user: { name: string } }).user.name).toBe("demo");
  });

  it("guards a request of the app's own making by its own headers, not by the outer request's", async () => {
    const demo = await login();
    // The outer request carries the session; the one the route makes carries no cookie.
    const relayed = await fetch(`${base}/relay`, { headers: { Cookie: demo.cookie } });
    expect([relayed.status, await relayed.json()]).toEqual([401, ["Access denied for user anonymous"]]);
    // A copy of the request itself, the cookie taken out: Node's parsed headers are the original's, not the copy's.
    const copied = await fetch(`${base}/services/json/me`, { headers: { Cookie: demo.cookie, "X-Anonymous": "1" } });
    expect([copied.status, await copied.json()]).toEqual([401, ["Access denied for user anonymous"]]);
  });

  it("answers Hono's own HTTPException as Hono has it, and a refusal it was handed with the guard's headers", async () => {
    const challenged = await fetch(`${base}/metrics`);
    expect([challenged.status, challenged.headers.get("www-authenticate"), await challenged.text()]).toEqual([
      401,
      'Basic realm="Secure Area"',
      "Unauthorized",
    ]);
    const ops = await fetch(`${base}/metrics`, { headers: { Authorization: `Basic ${Buffer.from("ops:ops-password").toString("base64")}` } });
    expect(await ops.text()).toBe("up 1");
    const { session_name } = await login();
    const refused = await fetch(`${base}/services/json/players`, { headers: { Cookie: `${session_name}=${"x".repeat(43)}` } });
    expect([refused.status, await refused.json()]).toEqual([401, ["Access denied for user anonymous"]]);
    // A body-less reply says so, as Drupal's do: Content-Length 0, not a chunked nothing.
    const missing = await fetch(`${base}/services/json/teams`);
    expect([missing.status, missing.headers.get("content-length"), missing.headers.get("transfer-encoding")]).toEqual([404, "0", null]);
    // The stale cookie's deletion the guard staged before it threw.
    expect(refused.headers.getSetCookie()).toEqual([expect.stringMatching(new RegExp(`^${session_name}=deleted; `))]);
  });

  it("asks for the CSRF token on an unsafe method, and checks roles", async () => {
    const demo = await login();
    const noToken = await fetch(`${base}/services/json/players`, { method: "POST", headers: { Cookie: demo.cookie } });
    expect([noToken.status, await noToken.json()]).toEqual([401, ["CSRF validation failed"]]);
    const withToken = await fetch(`${base}/services/json/players`, { method: "POST", headers: { Cookie: demo.cookie, "X-CSRF-Token": demo.token } });
    expect(withToken.status).toBe(201);
    expect((await fetch(`${base}/services/json/admin/stats`, { headers: { Cookie: demo.cookie } })).status).toBe(403);
    const admin = await login("admin", "admin-password");
    expect((await fetch(`${base}/services/json/admin/stats`, { headers: { Cookie: admin.cookie } })).status).toBe(200);
  });

  it("serves the session token, ?q= paths (the app's own routes too) and optional sessions", async () => {
    const anonymousToken = await fetch(`${base}/services/session/token`);
    expect([anonymousToken.headers.get("content-type"), (await anonymousToken.text()).length]).toEqual(["text/plain;charset=UTF-8", 43]);
    const demo = await login("demo", "demo-password", "/?q=services/json/user/login.json");
    const token = await fetch(`${base}/?q=services/session/token`, { headers: { Cookie: demo.cookie } });
    expect(await token.text()).toBe(demo.token);
    expect(await (await fetch(`${base}/index.php?q=services/json/me`, { headers: { Cookie: demo.cookie } })).json()).toMatchObject({ name: "demo" });
    expect(await (await fetch(`${base}/welcome`)).text()).toBe("Hello, visitor");
    expect(await (await fetch(`${base}/welcome`, { headers: { Cookie: demo.cookie } })).text()).toBe("Hello, demo");
  });

  it("logs out, and the session is gone", async () => {
    const demo = await login();
    const logout = await fetch(`${base}/services/json/user/logout.json`, { method: "POST", headers: { Cookie: demo.cookie, "X-CSRF-Token": demo.token } });
    expect([logout.status, await logout.json()]).toEqual([200, [true]]);
    expect(logout.headers.getSetCookie()[0]).toMatch(/=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT/);
    expect((await fetch(`${base}/services/json/me`, { headers: { Cookie: demo.cookie } })).status).toBe(401);
  });

  it("ends with Services' 404s, and counts failed logins by the socket's address", async () => {
    const resource = await fetch(`${base}/services/json/nothing`);
    // @hono/node-server writes Node's own reason phrase: the status line says "Not Found", not Services' text.
    expect([resource.status, resource.headers.get("content-type"), await resource.text()]).toEqual([404, "text/html; charset=UTF-8", ""]);
    expect((await fetch(`${base}/services/json/players/x`)).status).toBe(404);
    const page = await fetch(`${base}/elsewhere`);
    expect([page.status, await page.text()]).toEqual([404, ""]);
    const before = events.length;
    await fetch(`${base}/services/json/user/login.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "demo", password: "nope" }),
    });
    expect(events.slice(before).find((event) => event.type === "login.failure")).toMatchObject({ ip: "127.0.0.1" });
  });

  it("gives a client that writes its whole oversized upload before reading the 413, not a reset", async () => {
    const { port } = server.address() as AddressInfo;
    const MB = 1024 * 1024;
    for (const [size, chunked] of [
      [10 * MB, false],
      [3 * MB, true],
    ] as const) {
      const outcome = await upload(port, { path: "/services/json/user/login", size, chunked, contentType: "application/json" });
      expect(statusLine(outcome.reply), `${size} chunked=${chunked}`).toMatch(/^HTTP\/1\.1 413 /);
      expect(outcome).toMatchObject({ written: size, writeError: undefined, readError: undefined });
    }
    expect((await fetch(`${base}/services/session/token`)).status).toBe(200);
  }, 60_000);

  it("takes the scheme from the socket, not from a request line that claims https", async () => {
    const { port } = server.address() as AddressInfo;
    const body = JSON.stringify({ username: "demo", password: "demo-password" });
    const socket = connect({ host: "127.0.0.1", port });
    socket.write(
      `POST https://sports.test/services/json/user/login.json HTTP/1.1\r\nHost: sports.test\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    let reply = "";
    for await (const chunk of socket) reply += (chunk as Buffer).toString("latin1");
    expect(statusLine(reply)).toMatch(/^HTTP\/1\.1 200 /);
    const cookie = /^set-cookie: (.*)$/im.exec(reply)?.[1];
    expect(cookie).toMatch(/^SESS[0-9a-f]{32}=/);
    expect(cookie).not.toMatch(/secure/i);
  });

  it("gives a client on a slow uplink the 413, and a guard's 401, not a reset", async () => {
    const { port } = server.address() as AddressInfo;
    // 1 MB in 64 KiB pieces 100 ms apart: still uploading well after the reply went out.
    const slow = { size: 1_000_000, chunked: false, contentType: "application/json", pace: 100 } as const;
    const [login, guarded] = await Promise.all([
      upload(port, { ...slow, path: "/services/json/user/login" }),
      upload(port, { ...slow, path: "/services/json/players" }),
    ]);
    expect(statusLine(login.reply)).toMatch(/^HTTP\/1\.1 413 /);
    expect(statusLine(guarded.reply)).toMatch(/^HTTP\/1\.1 401 /);
    for (const outcome of [login, guarded]) expect(outcome).toMatchObject({ written: slow.size, writeError: undefined, readError: undefined });
  }, 60_000);
});

describe("services-session-auth/hono under middleware that rebuilds the response (etag, HEAD)", () => {
  let outer: ServerType;
  let site: string;
  const ORIGIN = "capacitor://localhost";

  beforeAll(async () => {
    const sessionAuth = createSessionAuthMiddleware({
      userStore: memoryUserStore(USERS, { hasher: fastHasher }),
      sessionStore: memorySessionStore(),
      secret: SECRET,
      hasher: fastHasher,
      trustedOrigins: [ORIGIN],
      cors: { paths: ["/welcome"] },
    });
    const app = new Hono();
    // etag() reads the finished response's body, which rebuilds @hono/node-server's Response from how it was made.
    app.use(etag());
    // A middleware that varies its responses by language, before the route answers.
    app.use(async (c, next) => {
      c.header("Vary", "Accept-Language");
      await next();
    });
    app.use(sessionAuth);
    app.get("/services/json/me", sessionAuth.requireSession(), (c) => {
      c.header("Vary", "Accept-Encoding");
      c.header("Set-Cookie", "theme=dark; path=/");
      return c.json({ name: c.var.auth.user.name });
    });
    app.get("/welcome", sessionAuth.optionalSession(), (c) => c.text(c.var.auth === undefined ? "Hello, visitor" : "Hello"));
    // A Response of the route's own whose headers cannot be changed: one fetch() returned.
    app.get("/upstream", (c) => c.text("from upstream"));
    app.get("/relay", sessionAuth.optionalSession(), () => fetch(`${site}/upstream`));
    app.onError(sessionAuth.onError());
    ({ server: outer, site } = await listen(app, { autoCleanupIncoming: false }));
  });
  afterAll(() => new Promise((resolve) => outer.close(resolve)));

  it("keeps the guard's CORS headers and cookies on the route's own response, GET and HEAD", async () => {
    const { session_name, sessid } = await jsonLogin(site, { Origin: ORIGIN });
    for (const method of ["GET", "HEAD"]) {
      const me = await fetch(`${site}/services/json/me`, { method, headers: { Origin: ORIGIN, Cookie: `${session_name}=${sessid}` } });
      expect(me.status, method).toBe(200);
      expect(me.headers.get("access-control-allow-origin"), method).toBe(ORIGIN);
      expect(me.headers.get("access-control-allow-credentials"), method).toBe("true");
      expect(me.headers.get("vary"), method).toBe("Accept-Encoding, Origin");
      expect(me.headers.getSetCookie(), method).toEqual(["theme=dark; path=/"]);
      expect(me.headers.get("etag"), method).not.toBeNull();
    }
    // A stale cookie's deletion, which the guard adds to the route's reply, survives too.
    for (const method of ["GET", "HEAD"]) {
      const welcome = await fetch(`${site}/welcome`, { method, headers: { Origin: ORIGIN, Cookie: `${session_name}=${"x".repeat(43)}` } });
      expect(welcome.headers.getSetCookie()[0], method).toMatch(new RegExp(`^${session_name}=deleted; `));
      expect(welcome.headers.get("access-control-allow-origin"), method).toBe(ORIGIN);
      expect(welcome.headers.get("vary"), method).toBe("Accept-Language, Origin");
    }
    const relayed = await fetch(`${site}/relay`, { headers: { Origin: ORIGIN } });
    expect([relayed.status, await relayed.text(), relayed.headers.get("access-control-allow-origin")]).toEqual([200, "from upstream", ORIGIN]);
  });
});

describe("services-session-auth/hono mounted on the paths it serves", () => {
  it("never answers a Services call where it is not mounted: the not-found handler's 404, and one event saying where to mount it", async () => {
    const events: AuthEvent[] = [];
    const sessionAuth = createSessionAuthMiddleware({
      userStore: memoryUserStore(USERS, { hasher: fastHasher }),
      sessionStore: memorySessionStore(),
      secret: SECRET,
      hasher: fastHasher,
      endpoint: "api/v1",
      onEvent: (event) => events.push(event),
    });
    const app = new Hono({ getPath: sessionAuth.getPath });
    // Mounted as the quick start mounts it, for the default endpoint: this one is api/v1.
    app.use("/services/*", sessionAuth);
    app.notFound(sessionAuth.notFound());
    const login = () =>
      app.request("/api/v1/user/login", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "demo", password: "demo-password" }),
      });
    // An app's middleware before the not-found handler (a rate limit, an IP block) must not be
    // stepped around by a login answered there: Services' 404, no cookie.
    for (let i = 0; i < 2; i++) {
      const missed = await login();
      expect([missed.status, missed.headers.get("set-cookie")]).toEqual([404, null]);
    }
    // Paths that are no Services call get their 404 and no event.
    expect((await app.request("/api/v1/nothing")).status).toBe(404);
    expect((await app.request("/elsewhere")).status).toBe(404);
    const said = events.filter((event) => event.type === "config.routing");
    expect(said).toEqual([expect.objectContaining({ message: expect.stringContaining("mount the middleware on /api/v1/*") })]);
    expect(events.filter((event) => event.type.startsWith("login"))).toEqual([]);
  });
});

describe("services-session-auth/hono beside an app that changes the request and the reply", () => {
  let app: Hono;
  let site: string;
  let own: ServerType;
  beforeAll(async () => {
    const sessionAuth = createSessionAuthMiddleware({
      userStore: memoryUserStore(USERS, { hasher: fastHasher }),
      sessionStore: memorySessionStore(),
      secret: SECRET,
      hasher: fastHasher,
    });
    app = new Hono({ getPath: sessionAuth.getPath });
    app.use("/services/*", sessionAuth);
    // The app takes the cookie out of the request in place, for its public pages.
    app.use("/public/*", async (c, next) => {
      c.req.raw.headers.delete("Cookie");
      await next();
    });
    app.get("/public/me", sessionAuth.optionalSession(), (c) => c.json({ seen: c.req.header("Cookie") ?? null, auth: c.var.auth?.user.name ?? null }));
    app.get("/exception", (c) => {
      c.header("Set-Cookie", "route=1");
      c.header("Vary", "Accept-Language");
      throw new HTTPException(401, {
        res: new Response("no", { status: 401, headers: { "Set-Cookie": "exception=1", "WWW-Authenticate": "Basic", Vary: "Accept" } }),
      });
    });
    app.get("/scores", async (c, next) => {
      c.header("Cache-Control", "public, max-age=60");
      await next();
    });
    app.get("/scores", sessionAuth.requireSession({ onDenied: "next" }), (c) => c.text("scores"));
    // A route's finished response, then a fault after it: the error reply carries none of what described that body.
    app.use("/after/*", async (_c, next) => {
      await next();
      throw new Error("after the route");
    });
    app.get(
      "/after/x",
      () =>
        new Response("a body of twenty-four b", {
          headers: {
            "Content-Length": "23",
            "Content-Encoding": "gzip",
            ETag: '"abc"',
            "Content-Disposition": 'attachment; filename="report.csv"',
            "Content-Language": "fr",
            Location: "/elsewhere",
          },
        }),
    );
    app.onError(sessionAuth.onError());
    ({ server: own, site } = await listen(app));
  });
  afterAll(() => new Promise((resolve) => own.close(resolve)));

  it("reads the request as the app left it, never Node's headers from before a change in place", async () => {
    const { cookie } = await jsonLogin(site);
    const me = await fetch(`${site}/public/me`, { headers: { Cookie: cookie } });
    expect(await me.json()).toEqual({ seen: null, auth: null });
  });

  it("answers an error with what Hono held for the reply beneath its own headers, as Hono's handler does", async () => {
    const exception = await fetch(`${site}/exception`);
    expect([exception.status, await exception.text(), exception.headers.get("www-authenticate")]).toEqual([401, "no", "Basic"]);
    expect(exception.headers.getSetCookie().sort()).toEqual(["exception=1", "route=1"]);
    expect(exception.headers.get("vary")).toBe("Accept, Accept-Language");
    const { session_name } = await jsonLogin(site);
    const refused = await fetch(`${site}/scores`, { headers: { Cookie: `${session_name}=${"x".repeat(43)}` } });
    expect([refused.status, refused.headers.get("cache-control")]).toEqual([401, "no-store"]);
    expect(refused.headers.getSetCookie()).toEqual([expect.stringMatching(new RegExp(`^${session_name}=deleted; `))]);
    const after = await fetch(`${site}/after/x`);
    const body = await after.text();
    const described = ["content-encoding", "etag", "content-disposition", "content-language", "location"].map((name) => after.headers.get(name));
    expect([after.status, ...described]).toEqual([500, null, null, null, null, null]);
    expect(after.headers.get("content-length") ?? String(Buffer.byteLength(body))).toBe(String(Buffer.byteLength(body)));
    expect(body).not.toBe("a body of twenty-four b");
  });
});
