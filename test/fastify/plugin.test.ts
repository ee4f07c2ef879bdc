/** The Fastify plugin, driven with fastify.inject (Fastify's own request injection, no socket). */
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { memorySessionStore, memoryUserStore, type AuthEvent, type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthPlugin } from "services-session-auth/fastify";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function build(overrides: Partial<SessionAuthOptions> = {}) {
  const events: AuthEvent[] = [];
  const sessionAuth = createSessionAuthPlugin({
    userStore: memoryUserStore(USERS, { hasher: fastHasher }),
    sessionStore: memorySessionStore(),
    secret: SECRET,
    hasher: fastHasher,
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl });
  apps.push(app);
  await app.register(sessionAuth);
  app.get("/services/json/players", { preHandler: sessionAuth.requireSession() }, async (request) => ({ players: ["Ana"], uid: request.auth?.user.uid }));
  app.post("/services/json/players", { preHandler: sessionAuth.requireSession() }, async (request) => ({ added: request.body }));
  app.get("/services/json/admin", { preHandler: sessionAuth.requireSession({ roles: ["administrator"] }) }, async () => ({ admin: true }));
  app.get("/own-denial", { preHandler: sessionAuth.requireSession({ onDenied: "next" }) }, async () => ({ never: true }));
  app.get("/welcome", { preHandler: sessionAuth.optionalSession() }, async (request) =>
    request.auth === undefined ? "Hello, visitor" : `Hello, ${request.auth.user.name}`,
  );
  app.get("/crash", async () => {
    throw new Error("a bug");
  });
  app.setNotFoundHandler(sessionAuth.notFound({ resources: ["players", "admin"] }));
  app.setErrorHandler(sessionAuth.errorHandler());
  await app.ready();
  return { app, events };
}

/** The plugin's options over the demo users, with the events they raise. */
function recorded() {
  const events: AuthEvent[] = [];
  const options = {
    userStore: memoryUserStore(USERS, { hasher: fastHasher }),
    sessionStore: memorySessionStore(),
    secret: SECRET,
    hasher: fastHasher,
    onEvent: (event: AuthEvent) => events.push(event),
  };
  return { options, events };
}

async function login(app: FastifyInstance, url = "/services/json/user/login.json") {
  const res = await app.inject({
    method: "POST",
    url,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: "username=demo&password=demo-password",
  });
  expect(res.statusCode).toBe(200);
  const body = res.json<{ sessid: string; session_name: string; token: string }>();
  return { ...body, cookie: `${body.session_name}=${body.sessid}` };
}

describe("createSessionAuthPlugin", () => {
  it("refuses invalid options when called, naming itself, and a second registration of one plugin", async () => {
    expect(() => createSessionAuthPlugin({ userStore: memoryUserStore([]) } as never)).toThrow(/^createSessionAuthPlugin: invalid options: sessionStore/);
    const sessionAuth = createSessionAuthPlugin(recorded().options);
    const app = Fastify();
    apps.push(app);
    await app.register(sessionAuth);
    await expect(app.register(sessionAuth, { prefix: "/again" }).ready()).rejects.toThrow(/registered already/);
  });

  it("answers the Services calls with Services' status lines, reading every body type itself", async () => {
    const { app } = await build();
    const wrong = await app.inject({
      method: "POST",
      url: "/services/json/user/login.json",
      headers: { "content-type": "application/json" },
      payload: '{"username":"demo","password":"x"}',
    });
    expect([wrong.statusCode, wrong.statusMessage, wrong.headers["content-type"], wrong.body]).toEqual([
      401,
      "Unauthorized : Wrong username or password.",
      "application/json",
      '["Wrong username or password."]',
    ]);
    const broken = await app.inject({ method: "POST", url: "/services/json/user/login.json", headers: { "content-type": "application/json" }, payload: "{" });
    expect([broken.statusCode, broken.statusMessage]).toEqual([400, ": Invalid JSON."]);
    const multipart = await app.inject({
      method: "POST",
      url: "/services/json/user/login",
      headers: { "content-type": "multipart/form-data; boundary=x" },
      payload:
        '--x\r\nContent-Disposition: form-data; name="username"\r\n\r\ndemo\r\n--x\r\nContent-Disposition: form-data; name="password"\r\n\r\ndemo-password\r\n--x--\r\n',
    });
    expect(multipart.statusCode).toBe(200);
    const noType = await app.inject({ method: "POST", url: "/services/json/user/login", payload: "username=demo&password=demo-password" });
    expect(noType.statusCode).toBe(200);
    const xml = await app.inject({ method: "POST", url: "/services/json/user/login", headers: { "content-type": "application/xml" }, payload: "<a/>" });
    expect(xml.statusCode).toBe(406);
    const root = await app.inject({ url: "/services/json" });
    expect(root.body).toBe('Services Endpoint "services" has been setup successfully.');
    const big = await app.inject({
      method: "POST",
      url: "/services/json/user/login",
      headers: { "content-type": "application/json" },
      payload: "x".repeat(70_000),
    });
    expect([big.statusCode, big.headers.connection]).toEqual([413, "close"]);
  });

  it("guards routes with preHandlers that set request.auth", async () => {
    const { app } = await build();
    const demo = await login(app);
    expect((await app.inject({ url: "/services/json/players", headers: { cookie: demo.cookie } })).json()).toEqual({ players: ["Ana"], uid: "14" });
    const anonymous = await app.inject({ url: "/services/json/players" });
    expect([anonymous.statusCode, anonymous.statusMessage, anonymous.body]).toEqual([
      401,
      "Unauthorized : Access denied for user anonymous",
      '["Access denied for user anonymous"]',
    ]);
    const noToken = await app.inject({ method: "POST", url: "/services/json/players", headers: { cookie: demo.cookie } });
    expect([noToken.statusCode, noToken.body]).toEqual([401, '["CSRF validation failed"]']);
    // The app's own JSON parser still reads the app's routes.
    const added = await app.inject({
      method: "POST",
      url: "/services/json/players",
      headers: { cookie: demo.cookie, "x-csrf-token": demo.token },
      payload: { name: "Bo" },
    });
    expect(added.json()).toEqual({ added: { name: "Bo" } });
    const formToken = await app.inject({ method: "POST", url: `/services/json/players?services_token=${demo.token}`, headers: { cookie: demo.cookie } });
    expect(formToken.statusCode).toBe(200);
    expect((await app.inject({ url: "/services/json/admin", headers: { cookie: demo.cookie } })).statusCode).toBe(403);
    expect((await app.inject({ url: "/welcome" })).body).toBe("Hello, visitor");
    expect((await app.inject({ url: "/welcome", headers: { cookie: demo.cookie } })).body).toBe("Hello, demo");
    const stale = await app.inject({ url: "/welcome", headers: { cookie: `${demo.session_name}=gone` } });
    expect([stale.body, String(stale.headers["set-cookie"])]).toEqual(["Hello, visitor", expect.stringMatching(/=deleted; /)]);
  });

  it("passes a denial to Fastify's error handler with onDenied: next, and answers crashes as a body-less 500", async () => {
    const { app, events } = await build();
    const denied = await app.inject({ url: "/own-denial" });
    expect([denied.statusCode, denied.statusMessage]).toEqual([401, "Unauthorized : Access denied for user anonymous"]);
    const badJson = await app.inject({ method: "POST", url: "/services/json/players", headers: { "content-type": "application/json" }, payload: "{" });
    expect([badJson.statusCode, badJson.statusMessage, badJson.body]).toEqual([400, ": Invalid JSON.", '["Invalid JSON."]']);
    // The guard's CORS headers stay on the reply Fastify's error handler makes.
    const { app: cors } = await build({ trustedOrigins: ["capacitor://localhost"] });
    const fromApp = await cors.inject({ url: "/own-denial", headers: { origin: "capacitor://localhost" } });
    expect([fromApp.statusCode, fromApp.headers["access-control-allow-origin"], fromApp.headers.vary]).toEqual([401, "capacitor://localhost", "Origin"]);
    const crash = await app.inject({ url: "/crash" });
    expect([crash.statusCode, crash.body]).toEqual([500, ""]);
    expect(events.some((event) => event.type === "internal.error")).toBe(true);
  });

  it("serves the session token and ?q= paths, and Services' 404s", async () => {
    const { app } = await build();
    const demo = await login(app, "/?q=services/json/user/login.json");
    expect((await app.inject({ url: "/index.php?q=services/session/token", headers: { cookie: demo.cookie } })).body).toBe(demo.token);
    // With a trailing slash as well, as Drupal and Express answer it, whether Fastify ignores trailing slashes or not.
    expect((await app.inject({ url: "/services/session/token/", headers: { cookie: demo.cookie } })).body).toBe(demo.token);
    const lenient = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    apps.push(lenient);
    await lenient.register(
      createSessionAuthPlugin({
        userStore: memoryUserStore(USERS, { hasher: fastHasher }),
        sessionStore: memorySessionStore(),
        secret: SECRET,
      }),
    );
    expect((await lenient.inject({ url: "/services/session/token/" })).statusCode).toBe(200);
    expect((await app.inject({ url: "/?q=services/json/players", headers: { cookie: demo.cookie } })).json()).toMatchObject({ uid: "14" });
    const resource = await app.inject({ url: "/services/json/teams" });
    expect([resource.statusCode, resource.statusMessage, resource.body]).toEqual([404, "Not found : Could not find resource teams.", ""]);
    expect((await app.inject({ method: "DELETE", url: "/services/json/players/9" })).statusMessage).toBe("Not found : Could not find the controller.");
    expect((await app.inject({ method: "GET", url: "/services/json/user/login" })).statusMessage).toBe("Not found : Could not find the controller.");
    expect((await app.inject({ url: "/elsewhere" })).statusMessage).toBe("Not Found");
    const logout = await app.inject({ method: "POST", url: "/services/json/user/logout", headers: { cookie: demo.cookie, "x-csrf-token": demo.token } });
    expect([logout.statusCode, logout.body]).toEqual([200, "[true]"]);
  });

  it("serves the endpoint below the prefix of the context it is registered in, and opens sessions for the app", async () => {
    const app = Fastify();
    apps.push(app);
    const sessionAuth = createSessionAuthPlugin({
      userStore: memoryUserStore(USERS, { hasher: fastHasher }),
      sessionStore: memorySessionStore(),
      secret: SECRET,
      hasher: fastHasher,
      trustedOrigins: ["capacitor://localhost"],
      cors: { paths: ["/sso"] },
    });
    await app.register(
      async (api) => {
        await api.register(sessionAuth);
        api.post("/sso", async (request, reply) =>
          sessionAuth.startSession(request, reply, (await memoryUserStore(USERS, { hasher: fastHasher }).findById("14"))!),
        );
        // The context's own not-found handler: Fastify runs a context's hooks (CORS's among them) on no other.
        api.setNotFoundHandler(sessionAuth.notFound());
        expect(sessionAuth.endpointPath).toBe("/v1/services/json");
      },
      { prefix: "/v1" },
    );
    const sso = await app.inject({ method: "POST", url: "/v1/sso" });
    expect([sso.statusCode, sso.headers["cache-control"], sso.json<{ user: { name: string } }>().user.name]).toEqual([200, "no-store", "demo"]);
    expect((await app.inject({ url: "/v1/services/json/" })).statusCode).toBe(200);
    // CORS's paths, as the endpoint's, are below the prefix.
    const preflight = (url: string) =>
      app.inject({ method: "OPTIONS", url, headers: { origin: "capacitor://localhost", "access-control-request-method": "POST" } });
    for (const url of ["/v1/services/session/token", "/v1/services/json/user/login", "/v1/sso"]) expect((await preflight(url)).statusCode, url).toBe(204);
    expect((await preflight("/sso")).statusCode).toBe(404);
  });
});

describe("createSessionAuthPlugin without its rewriteUrl", () => {
  it("never answers a ?q= Services call Fastify did not route: the not-found handler's 404, and one event saying how to route it", async () => {
    const { options, events } = recorded();
    const app = Fastify();
    apps.push(app);
    const sessionAuth = createSessionAuthPlugin(options);
    await app.register(sessionAuth);
    app.setNotFoundHandler(sessionAuth.notFound());
    await app.ready();
    for (let i = 0; i < 2; i++) {
      const missed = await app.inject({ method: "POST", url: "/?q=services/json/user/login.json", payload: { username: "demo", password: "demo-password" } });
      expect([missed.statusCode, missed.headers["set-cookie"]]).toEqual([404, undefined]);
    }
    // What q names for the app's own paths stays the app's parameter: Drupal's page-not-found, and no event.
    const elsewhere = await app.inject({ method: "GET", url: "/?q=metrics" });
    expect([elsewhere.statusCode, elsewhere.body]).toEqual([404, ""]);
    expect(events.filter((event) => event.type === "config.routing")).toEqual([
      expect.objectContaining({ message: expect.stringContaining("Fastify({ rewriteUrl: sessionAuth.rewriteUrl })") }),
    ]);
    expect(events.filter((event) => event.type.startsWith("login"))).toEqual([]);
  });
});

describe("the plugin's rewriteUrl under a prefix", () => {
  it("reads ?q= on the prefix's query paths and routes below it", async () => {
    const { options, events } = recorded();
    const sessionAuth = createSessionAuthPlugin(options);
    const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl });
    apps.push(app);
    await app.register(
      async (api) => {
        await api.register(sessionAuth);
        api.setNotFoundHandler(sessionAuth.notFound());
      },
      { prefix: "/drupal" },
    );
    for (const url of ["/drupal/?q=services/json/user/login", "/drupal?q=services/json/user/login", "/drupal/index.php?q=services/json/user/login.json"]) {
      const res = await app.inject({ method: "POST", url, payload: { username: "demo", password: "demo-password" } });
      expect([url, res.statusCode, res.headers["set-cookie"]]).toEqual([url, 200, expect.stringMatching(/^SESS/)]);
    }
    // The site root and look-alike prefixes are not the plugin's.
    for (const url of ["/?q=services/json/user/login", "/drupalx/?q=services/json/user/login", "/drupalx?q=services/json/user/login"]) {
      expect((await app.inject({ method: "POST", url, payload: { username: "demo", password: "demo-password" } })).statusCode, url).toBe(404);
    }
    expect(events.filter((event) => event.type === "config.routing")).toEqual([]);
  });

  it("says, when the server lacks it, how to give it", async () => {
    const events: AuthEvent[] = [];
    const app = Fastify();
    apps.push(app);
    await app.register(
      async (api) => {
        const sessionAuth = createSessionAuthPlugin({
          userStore: memoryUserStore([]),
          sessionStore: memorySessionStore(),
          secret: SECRET,
          onEvent: (event: AuthEvent) => events.push(event),
        });
        await api.register(sessionAuth);
        api.setNotFoundHandler(sessionAuth.notFound());
        // The site root's not-found handler answers through the plugin's too.
        app.setNotFoundHandler((request, reply) => sessionAuth.notFound()(request, reply));
      },
      { prefix: "/drupal" },
    );
    // Outside the prefix, or no ?q= at all: nothing rewriteUrl would route, nothing said.
    for (const url of ["/services/json/user/login", "/?q=services/json/user/login", "/drupal/services/json/nothing"]) {
      expect((await app.inject({ method: "POST", url })).statusCode, url).toBe(404);
    }
    expect(events.filter((event) => event.type === "config.routing")).toEqual([]);
    expect((await app.inject({ method: "POST", url: "/drupal/?q=services/json/user/login" })).statusCode).toBe(404);
    expect(events.filter((event) => event.type === "config.routing")).toEqual([
      expect.objectContaining({ message: expect.stringContaining("Fastify({ rewriteUrl: sessionAuth.rewriteUrl })") }),
    ]);
  });
});

describe("createSessionAuthPlugin under a prefix written with a trailing slash or a parameter", () => {
  it("serves below /api/ as below /api, and refuses a parametric prefix when registered", async () => {
    const { options } = recorded();
    const sessionAuth = createSessionAuthPlugin(options);
    const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl });
    apps.push(app);
    let endpointPath = "";
    await app.register(
      async (api) => {
        await api.register(sessionAuth);
        endpointPath = sessionAuth.endpointPath;
      },
      { prefix: "/api/" },
    );
    for (const url of ["/api/services/json/user/login", "/api?q=services/json/user/login"]) {
      const res = await app.inject({ method: "POST", url, payload: { username: "demo", password: "demo-password" } });
      expect([url, res.statusCode]).toEqual([url, 200]);
    }
    expect(endpointPath).toBe("/api/services/json");
    const tenant = Fastify();
    apps.push(tenant);
    const tenantAuth = createSessionAuthPlugin(recorded().options);
    await expect(tenant.register(async (api) => api.register(tenantAuth), { prefix: "/:tenant" }).ready()).rejects.toThrow(
      /createSessionAuthPlugin: the prefix "\/:tenant" has a parameter/,
    );
  });
});
