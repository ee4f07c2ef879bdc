import { Validator } from "@seriousme/openapi-schema-validator";
import type { Express } from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { z as z3 } from "zod/v3";
import { openApiDocument, type GuardedRoute, type SessionStore } from "services-session-auth";
import { createApp } from "../../examples/sports-api/app.js";
import { createTestApp, fastHasher, login, SECRET } from "../helpers/app.js";

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: Record<string, Record<string, unknown>> };

async function expectValid(document: unknown) {
  const result = await new Validator().validate(document as Record<string, unknown>);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
  expect(result.valid).toBe(true);
}

/** The routes of createTestApp(), as its requireSession calls guard them. */
const TEST_ROUTES: GuardedRoute[] = [
  { method: "get", path: "/services/json/players" },
  { method: "post", path: "/services/json/players" },
  { method: "post", path: "/services/json/open", csrf: false },
  { method: "get", path: "/services/json/admin", roles: ["administrator"] },
];

/** A session store whose every call fails, as a store whose server is down. */
const downStore: SessionStore = {
  create: () => Promise.reject(new Error("down")),
  get: () => Promise.reject(new Error("down")),
  touch: () => Promise.reject(new Error("down")),
  destroy: () => Promise.reject(new Error("down")),
  listByUser: () => Promise.reject(new Error("down")),
  destroyByUser: () => Promise.reject(new Error("down")),
};

const LOGIN = "/services/json/user/login.json";

/** Requests that make the router (or requireSession) answer each way it can, per operation. */
function probes(app: Express, down: Express, name: string) {
  const anyCookie = `${name}=${"x".repeat(43)}`;
  const session = () => login(app);
  const body = (path: string) => ({
    notAcceptable: async () =>
      request(app)
        .post(path.replace(/\.json$/, ""))
        .set("Accept", "text/html")
        .send(),
    malformedAccept: async () =>
      request(app)
        .post(path.replace(/\.json$/, ""))
        .set("Accept", "application")
        .send(),
    invalidJson: async () => request(app).post(path).set("Content-Type", "application/json").send("{"),
    unsupported: async () => request(app).post(path).set("Content-Type", "text/csv").send("a,b"),
    tooLarge: async () =>
      request(app)
        .post(path)
        .type("form")
        .send(`a=${"x".repeat(70_000)}`),
    storeDown: async () => request(down).post(path).set("Cookie", anyCookie).type("form").send("username=demo&password=demo-password"),
  });
  const csrfMissing = (path: string) => async () =>
    request(app)
      .post(path)
      .set("Cookie", (await session()).cookie);
  const withToken = (path: string) => async () => {
    const s = await session();
    return request(app).post(path).set("Cookie", s.cookie).set("X-CSRF-Token", s.token);
  };

  return {
    [`post ${LOGIN}`]: {
      ...body(LOGIN),
      ok: async () => (await session()).res,
      wrongPassword: async () => request(app).post(LOGIN).type("form").send("username=demo&password=nope"),
      missingArgument: async () => request(app).post(LOGIN).type("form").send("username=demo"),
      blocked: async () => request(app).post(LOGIN).type("form").send("username=blocked&password=blocked-password"),
      alreadyLoggedIn: withToken(LOGIN),
      crossSite: async () => request(app).post(LOGIN).set("Origin", "https://evil.example").type("form").send("username=demo&password=demo-password"),
      csrf: csrfMissing(LOGIN),
      throttled: async () => {
        const account = "O'Brien <b>";
        for (let i = 0; i < 2; i++) await request(app).post(LOGIN).type("form").send({ username: account, password: "nope" });
        return request(app).post(LOGIN).type("form").send({ username: account, password: "obrien-password" });
      },
    },
    "post /services/json/system/connect.json": {
      ...body("/services/json/system/connect.json"),
      anonymous: async () => request(app).post("/services/json/system/connect.json"),
      ok: withToken("/services/json/system/connect.json"),
      csrf: csrfMissing("/services/json/system/connect.json"),
    },
    "post /services/json/user/logout.json": {
      ...body("/services/json/user/logout.json"),
      ok: withToken("/services/json/user/logout.json"),
      notLoggedIn: async () => request(app).post("/services/json/user/logout.json"),
      csrf: csrfMissing("/services/json/user/logout.json"),
    },
    "post /services/json/user/token.json": {
      ...body("/services/json/user/token.json"),
      anonymous: async () => request(app).post("/services/json/user/token.json"),
      noCsrfNeeded: csrfMissing("/services/json/user/token.json"),
    },
    "get /services/json": {
      root: async () => request(app).get("/services/json"),
    },
    "post /services/json": {
      root: async () => request(app).post("/services/json"),
    },
    "get /services/session/token": {
      anonymous: async () => request(app).get("/services/session/token"),
      storeDown: async () => request(down).get("/services/session/token").set("Cookie", anyCookie),
    },
    "post /services/session/token": {
      loggedIn: async () =>
        request(app)
          .post("/services/session/token")
          .set("Cookie", (await session()).cookie),
      storeDown: async () => request(down).post("/services/session/token").set("Cookie", anyCookie),
    },
    "get /services/json/players": {
      ok: async () =>
        request(app)
          .get("/services/json/players")
          .set("Cookie", (await session()).cookie),
      anonymous: async () => request(app).get("/services/json/players"),
      storeDown: async () => request(down).get("/services/json/players").set("Cookie", anyCookie),
    },
    "post /services/json/players": {
      ok: withToken("/services/json/players"),
      csrf: csrfMissing("/services/json/players"),
      storeDown: async () => request(down).post("/services/json/players").set("Cookie", anyCookie),
    },
    "post /services/json/open": {
      okWithoutToken: csrfMissing("/services/json/open"),
      anonymous: async () => request(app).post("/services/json/open"),
      storeDown: async () => request(down).post("/services/json/open").set("Cookie", anyCookie),
    },
    "get /services/json/admin": {
      ok: async () =>
        request(app)
          .get("/services/json/admin")
          .set("Cookie", (await login(app, "admin", "admin-password")).cookie),
      forbidden: async () =>
        request(app)
          .get("/services/json/admin")
          .set("Cookie", (await session()).cookie),
      anonymous: async () => request(app).get("/services/json/admin"),
      storeDown: async () => request(down).get("/services/json/admin").set("Cookie", anyCookie),
    },
  };
}

describe("openApiDocument", () => {
  it("is a valid OpenAPI 3.1 document, with defaults and with every option", async () => {
    await expectValid(openApiDocument());
    const { options } = createTestApp();
    await expectValid(
      openApiDocument({
        auth: { ...options, loginApiVersion: "1.1", blockedAccountResponse: "generic", throttle: false, maxNameLength: 60 },
        endpointPath: "/api",
        info: { title: "T", version: "2.0.0", description: "D" },
        servers: [{ url: "https://example.com" }],
        routes: [...TEST_ROUTES, { method: "delete", path: "/api/things/{id}", summary: "Delete", responses: { 404: "No such thing." } }],
      }),
    );
  });

  it("documents exactly the statuses the router and requireSession answer, operation by operation", async () => {
    // Throttle after two failures, so the 406 is reachable; the same options shape the document.
    const { app, options } = createTestApp({ throttle: { userLimit: 2 } });
    const { app: down } = createTestApp({ sessionStore: downStore });
    const document = openApiDocument({ auth: options, routes: TEST_ROUTES }) as unknown as Doc;
    const name = (document.components.securitySchemes!.sessionCookie as { name: string }).name;
    expect(name).toBe((await login(app)).session_name);

    const table = probes(app, down, name);
    const components = document.components.schemas as Record<string, Record<string, unknown>>;
    const schemaOf = (schema: Record<string, unknown>) => {
      const target = typeof schema.$ref === "string" ? components[schema.$ref.replace("#/components/schemas/", "")]! : schema;
      return z.fromJSONSchema(target as Parameters<typeof z.fromJSONSchema>[0]);
    };
    const documented: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) for (const method of Object.keys(item)) documented.push(`${method} ${path}`);
    expect(documented.sort()).toEqual(Object.keys(table).sort());

    for (const [operation, cases] of Object.entries(table)) {
      const [method, path] = operation.split(" ") as [string, string];
      const statuses = new Set<string>();
      const responses = document.paths[path]![method]!.responses as Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
      for (const [label, probe] of Object.entries(cases)) {
        const res = await probe();
        statuses.add(String(res.status));
        // The body is what the document says it is, in a media type it lists for that status.
        const content = responses[String(res.status)]?.content ?? {};
        const type = String(res.headers["content-type"]);
        const media = Object.keys(content).find((listed) => type.startsWith(listed));
        expect(media, `${operation} ${label}: ${type} not among ${Object.keys(content).join(", ")}`).toBeDefined();
        const parsed = schemaOf(content[media!]!.schema).safeParse(media === "application/json" ? JSON.parse(res.text) : res.text);
        expect(parsed.success, `${operation} ${label}: ${res.text} ${parsed.error?.message ?? ""}`).toBe(true);
      }
      const listed = Object.keys(responses);
      expect([...statuses].sort(), operation).toEqual(listed.sort());
    }
  });

  it("follows the router's options: no blocked-account 403 for a generic blocked answer, no throttle 406 when throttling is off", () => {
    const loginResponses = (auth: Parameters<typeof openApiDocument>[0]) =>
      (openApiDocument(auth) as unknown as Doc).paths[LOGIN]!.post!.responses as Record<string, { description: string }>;
    expect(loginResponses({})["403"]!.description).toContain("has not been activated or is blocked");
    // A generic blocked answer leaves only the cross-site login's 403.
    expect(loginResponses({ auth: { blockedAccountResponse: "generic" } })["403"]!.description).toBe("Access denied: cross-site login refused.");
    expect(loginResponses({})["406"]!.description).toContain("temporarily blocked");
    expect(loginResponses({ auth: { throttle: false } })["406"]!.description).not.toContain("temporarily blocked");
    const loginDescription = (auth: Parameters<typeof openApiDocument>[0]) =>
      ((openApiDocument(auth) as unknown as Doc).paths[LOGIN]!.post as unknown as { description: string }).description;
    expect(loginDescription({})).not.toContain("CORS preflight");
    expect(loginDescription({ auth: { trustedOrigins: ["capacitor://localhost"] } })).toContain("CORS preflight from an origin of `trustedOrigins`: `204`");
    expect(loginDescription({ auth: { trustedOrigins: ["capacitor://localhost"], cors: false } })).not.toContain("CORS preflight");
    const logoutHeaders = (auth: Parameters<typeof openApiDocument>[0]) =>
      ((openApiDocument(auth) as unknown as Doc).paths["/services/json/user/logout.json"]!.post!.responses["200"] as { headers: Record<string, unknown> })
        .headers;
    expect(Object.keys(logoutHeaders({}))).toEqual(["Set-Cookie"]);
    expect(Object.keys(logoutHeaders({ auth: { clearSiteData: true } }))).toEqual(["Set-Cookie", "Clear-Site-Data"]);
    const setCookie = (auth: Parameters<typeof openApiDocument>[0]) =>
      ((openApiDocument(auth) as unknown as Doc).paths[LOGIN]!.post!.responses["200"] as { headers: { "Set-Cookie": { description: string } } }).headers[
        "Set-Cookie"
      ].description;
    expect(setCookie({})).toContain("no `SameSite`");
    expect(setCookie({ auth: { sameSite: "strict", cookieSecure: "always", cookieDomain: ".example.com" } })).toMatch(
      /`domain` from `\.example\.com`.*`secure` always.*`SameSite=Strict`/,
    );
    expect(setCookie({})).not.toContain("device cookie");
    expect(setCookie({ auth: { deviceCookies: true } })).toContain("`ssa_device=<signed token>; expires=…; Max-Age=7776000`");
    expect(setCookie({ auth: { deviceCookies: { name: "app_device", maxAge: 60 } } })).toContain("`app_device=<signed token>; expires=…; Max-Age=60`");
    const logoutBody = (auth: Parameters<typeof openApiDocument>[0]) =>
      JSON.stringify(
        ((openApiDocument(auth) as unknown as Doc).paths["/services/json/user/logout.json"]!.post!.responses["200"] as { content: unknown }).content,
      );
    expect(logoutBody({})).toContain('LogoutReply"');
    expect(logoutBody({ auth: { logoutApiVersion: "1.1" } })).toContain("LogoutReply11");
    const root = (openApiDocument({ auth: { endpointName: "sports" } }) as unknown as Doc).paths["/services/json"]!.get!.responses["200"];
    expect(JSON.stringify(root)).toContain('Services Endpoint \\"sports\\" has been setup successfully.');
  });

  it("describes the login body with the schema the router checks it with", async () => {
    const { app, options } = createTestApp({ maxNameLength: 10 });
    const body = (openApiDocument({ auth: options }) as unknown as Doc).components.schemas!.LoginBody as {
      properties: Record<string, { anyOf?: { type: string; maxLength?: number }[] }>;
    };
    expect(Object.keys(body.properties).sort()).toEqual(["name", "pass", "password", "username"]);
    expect(body.properties.username!.anyOf).toContainEqual({ type: "string", maxLength: 10 });
    // What the schema refuses, the router refuses as Drupal does: a wrong credential, not a missing one.
    for (const username of ["x".repeat(11), { nested: true }, [1], true]) {
      const res = await request(app).post(LOGIN).send({ username, password: "demo-password" });
      expect(res.status, JSON.stringify(username)).toBe(401);
      expect(res.body).toEqual(["Wrong username or password."]);
    }
    // A number is a name PHP would read, and null is absent (PHP isset()); API 1.0 reads no `name`.
    expect((await request(app).post(LOGIN).send({ username: 14, password: "x" })).body).toEqual(["Wrong username or password."]);
    expect((await request(app).post(LOGIN).send({ username: null, name: "demo", password: "demo-password" })).body).toEqual([
      "Missing required argument username",
    ]);
  });

  it("refuses invalid options with a TypeError naming them", () => {
    expect(() => openApiDocument({ endpointPath: "services/json/" })).toThrow(/endpointPath/);
    expect(() => openApiDocument({ routes: [{ method: "trace" as "get", path: "/x" }] })).toThrow(/routes\.0\.method/);
    expect(() => openApiDocument({ unknown: 1 } as never)).toThrow(TypeError);
  });

  it("takes any zod 4 schema as a route's response, and says so when given a zod 3 one", () => {
    const mini = openApiDocument({ routes: [{ method: "get", path: "/x", response: zm.object({ name: zm.string() }) }] }) as unknown as Doc;
    expect(JSON.stringify(mini.paths["/x"]!.get!.responses["200"])).toContain('"required":["name"]');
    const legacy = { routes: [{ method: "get", path: "/x", response: z3.object({ name: z3.string() }) }] } as never;
    expect(() => openApiDocument(legacy)).toThrow(TypeError);
    expect(() => openApiDocument(legacy)).toThrow(/routes\.0\.response: is a zod 3 schema, and openApiDocument needs zod 4/);
    expect(() => openApiDocument({ routes: [{ method: "get", path: "/x", response: { type: "object" } as never }] })).toThrow(
      /routes\.0\.response: must be a zod 4 schema/,
    );
  });
});

describe("examples/sports-api /openapi.json", () => {
  const app = createApp({ secret: SECRET, hasher: fastHasher, extra: { baseUrl: "http://localhost:3000" }, log: () => undefined });

  it("serves a valid document whose protected routes are real and guarded", async () => {
    const res = await request(app).get("/openapi.json");
    expect(res.status).toBe(200);
    await expectValid(res.body);
    const document = res.body as Doc;
    const admin = await login(app, "admin", "admin-password");
    const protectedOps = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => (op as unknown as { tags: string[] }).tags.includes("Protected"))
        .map(([method]) => ({ method, path: path.replace("{id}", "1") })),
    );
    expect(protectedOps.length).toBe(9);
    for (const { method, path } of protectedOps) {
      const call = () => (method === "get" ? request(app).get(path) : request(app).post(path));
      expect((await call()).status, `${method} ${path} anonymous`).toBe(401);
      if (path.endsWith("revoke-all")) continue; // would end the admin session the loop still uses
      expect((await call().set("Cookie", admin.cookie).set("X-CSRF-Token", admin.token)).status, `${method} ${path}`).toBe(200);
    }
  });

  it("really answers the other statuses it documents for the app's routes", async () => {
    const document = (await request(app).get("/openapi.json")).body as Doc;
    const documented = (path: string, method: string) => Object.keys((document.paths[path] as Record<string, { responses: object }>)[method]!.responses);
    const demo = await login(app, "demo", "demo-password");

    expect(documented("/services/json/players/{id}", "get")).toContain("404");
    const missing = await request(app).get("/services/json/players/999").set("Cookie", demo.cookie);
    expect(missing.status).toBe(404);

    expect(documented("/services/json/admin/stats", "get")).toContain("403");
    const forbidden = await request(app).get("/services/json/admin/stats").set("Cookie", demo.cookie);
    expect([forbidden.status, forbidden.text]).toEqual([403, '["Access denied for user demo"]']);

    // Log out everywhere, last: it ends the session the calls above used.
    const other = await login(app, "demo", "demo-password");
    const ended = await request(app).post("/services/json/sessions/revoke-all").set("Cookie", demo.cookie).set("X-CSRF-Token", demo.token);
    expect([ended.status, (ended.body as { ended: number }).ended >= 2]).toEqual([200, true]);
    expect((await request(app).get("/services/json/players").set("Cookie", other.cookie)).status).toBe(401);
  });
});
