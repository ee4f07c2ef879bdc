import { createServer, type Server } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { trustProxySetting } from "../../examples/sports-api/app.js";
import { EXAMPLE_FRAMEWORKS, exampleFramework, sportsApiServer } from "../../examples/sports-api/frameworks.js";
import { fastHasher, SECRET } from "../helpers/app.js";

// The same app on every framework (EXAMPLE_FRAMEWORK): the same requests, the same replies.
describe.each(EXAMPLE_FRAMEWORKS)("examples/sports-api on %s", (framework) => {
  const lines: string[] = [];
  let app: Server;
  beforeAll(async () => {
    app = await sportsApiServer(framework, {
      secret: SECRET,
      hasher: fastHasher,
      extra: { baseUrl: "http://localhost:3000" },
      log: (line) => lines.push(line),
    });
  });

  it("walks through login → connect → players → logout as the curl walk-through in docs/wire-format.md does", async () => {
    const loginRes = await request(app).post("/services/json/user/login.json").type("form").send("username=demo&password=demo-password");
    expect(loginRes.status).toBe(200);
    const { sessid, session_name, token } = loginRes.body as { sessid: string; session_name: string; token: string };
    const cookie = `${session_name}=${sessid}`;

    const connect = await request(app).post("/services/json/system/connect.json").set("Cookie", cookie).set("X-CSRF-Token", token);
    expect((connect.body as { user: { name: string } }).user.name).toBe("demo");

    for (const path of ["players", "events", "courses", "players/2", "courses.json"]) {
      const res = await request(app).get(`/services/json/${path}`).set("Cookie", cookie);
      expect(res.status, path).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json");
    }
    expect((await request(app).get("/services/json/players/99").set("Cookie", cookie)).status).toBe(404);
    expect((await request(app).get("/services/json/players")).status).toBe(401);
    expect((await request(app).get("/services/json/admin/stats").set("Cookie", cookie)).status).toBe(403);

    const logout = await request(app).post("/services/json/user/logout.json").set("Cookie", cookie).set("X-CSRF-Token", token);
    expect(logout.text).toBe("[true]");
    expect((await request(app).get("/services/json/players").set("Cookie", cookie)).status).toBe(401);
  });

  it("answers unknown paths and undecodable ones in the wire format, never with an HTML page", async () => {
    const cases = [
      ["/services/json/players/%E0%A4%A", 400, ": Malformed request."],
      ["/services/json/user/register.json", 404, "Not found : Could not find the controller."],
      ["/services/json/nothing", 404, "Not found : Could not find resource nothing."],
      ["/?q=services/json/nothing", 404, "Not found : Could not find resource nothing."],
      // Outside the endpoint: Drupal's page-not-found status line, without its HTML page.
      ["/nothing", 404, "Not Found"],
      ["/services/", 404, "Not Found"],
      ["/services/json.xml", 404, "Not Found"],
      ["/services/session/token/x", 404, "Not Found"],
      // ?q= routes only towards the endpoint and the token call: elsewhere it is the app's parameter, on the app's path.
      ["/index.php?q=nothing", 404, "Not Found"],
      ["/openapi.json/x", 404, "Not Found"],
    ] as const;
    for (const [path, status, reason] of cases) {
      for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"] as const) {
        const res = await request(app)[method.toLowerCase() as "get"](path);
        expect([res.status, (res as unknown as { res: { statusMessage: string } }).res.statusMessage], `${method} ${path}`).toEqual([status, reason]);
        // No body, so PHP's default type, as Drupal sent these.
        expect(res.headers["content-type"], path).toBe("text/html; charset=UTF-8");
        expect(res.text, path).toBe("");
      }
    }
  });

  it("keeps a hostile id out of the status line: no header injection, no 500", async () => {
    const loginRes = await request(app).post("/services/json/user/login.json").type("form").send("username=demo&password=demo-password");
    const { sessid, session_name } = loginRes.body as { sessid: string; session_name: string };
    for (const id of ["%0d%0aX-Evil:%201", "%00%7f%c3%a9", `${"%3C".repeat(5000)}x`, "x".repeat(8000)]) {
      const res = await request(app).get(`/services/json/players/${id}`).set("Cookie", `${session_name}=${sessid}`);
      expect(res.status, id.slice(0, 20)).toBe(404);
      expect(res.headers["x-evil"]).toBeUndefined();
      const reason = (res as unknown as { res: { statusMessage: string } }).res.statusMessage;
      // Fastify routes no parameter longer than its maxParamLength (100): no route, so no such controller.
      if (framework === "fastify" && decodeURIComponent(id).length > 100) {
        expect(reason).toBe("Not found : Could not find the controller.");
        continue;
      }
      expect(reason).toMatch(/^Not found : Could not find players /);
      expect(reason.length).toBeLessThanOrEqual("Not found : ".length + 256);
      expect((res.body as string[])[0]).toBe(`Could not find players ${decodeURIComponent(id)}.`);
    }
  });

  it("serves jDrupal-style ?q= calls and the session token", async () => {
    const loginRes = await request(app).post("/?q=services/json/user/login.json").type("form").send("username=admin&password=admin-password");
    const { sessid, session_name, token } = loginRes.body as { sessid: string; session_name: string; token: string };
    const cookie = `${session_name}=${sessid}`;
    expect((await request(app).get("/?q=services/session/token").set("Cookie", cookie)).text).toBe(token);
    expect((await request(app).get("/services/json/admin/stats").set("Cookie", cookie)).status).toBe(200);
  });

  it("lists the user's sessions and logs out everywhere", async () => {
    const a = (await request(app).post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).body as {
      sessid: string;
      session_name: string;
      token: string;
    };
    const b = (await request(app).post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).body as {
      sessid: string;
      session_name: string;
    };
    const cookieA = `${a.session_name}=${a.sessid}`;
    const list = await request(app).get("/services/json/sessions").set("Cookie", cookieA);
    expect((list.body as { current: boolean }[]).filter((s) => s.current)).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(a.sessid);
    const revoke = await request(app).post("/services/json/sessions/revoke-all").set("Cookie", cookieA).set("X-CSRF-Token", a.token);
    expect((revoke.body as { ended: number }).ended).toBeGreaterThanOrEqual(2);
    expect((await request(app).get("/services/json/players").set("Cookie", `${b.session_name}=${b.sessid}`)).status).toBe(401);
  });

  it("serves the page and the OpenAPI document as on Express, byte for byte", async () => {
    const express = await sportsApiServer("express", { secret: SECRET, hasher: fastHasher, extra: { baseUrl: "http://localhost:3000" }, log: () => undefined });
    for (const path of ["/", "/app.js", "/style.css", "/openapi.json"]) {
      const [ours, reference] = await Promise.all([request(app).get(path), request(express).get(path)]);
      const described = (res: request.Response) => [
        res.status,
        res.headers["content-type"],
        res.headers["content-security-policy"],
        res.headers["cache-control"],
        res.text,
      ];
      expect(described(ours), path).toEqual(described(reference));
    }
  });

  it("ends a request that never finishes sending as Node does by default (Fastify turns that off)", () => {
    const node = createServer();
    expect([app.requestTimeout, app.headersTimeout]).toEqual([node.requestTimeout, node.headersTimeout]);
    expect(app.requestTimeout).toBeGreaterThan(0);
  });

  it("answers a TRACE rather than resetting the connection", async () => {
    const res = await request(app).trace("/services/session/token");
    // Express and Fastify route it as any method; a fetch Request cannot carry it.
    expect(res.status).toBe(framework === "hono" ? 405 : 200);
  });

  it("logs audit events as JSON lines without secrets", () => {
    expect(lines.some((line) => line.includes('"event":"login.success"'))).toBe(true);
    expect(lines.join("\n")).not.toContain("demo-password");
  });

  it("behind a TLS-terminating proxy (TRUST_PROXY), gives HTTPS clients the SSESS cookie, marked secure", async () => {
    const proxied = await sportsApiServer(framework, { secret: SECRET, hasher: fastHasher, trustProxy: trustProxySetting("loopback"), log: () => undefined });
    const res = await request(proxied)
      .post("/services/json/user/login")
      .set("Host", "sports.example.com")
      .set("X-Forwarded-Proto", "https")
      .send({ username: "demo", password: "demo-password" });
    const [cookie] = res.headers["set-cookie"] as unknown as string[];
    expect(cookie).toMatch(/^SSESS[0-9a-f]{32}=[\w-]{43}; expires=.+; Max-Age=2000000; path=\/; domain=\.sports\.example\.com; secure; HttpOnly$/);
    // Without it, the header is a client's claim and is ignored.
    const direct = await sportsApiServer(framework, { secret: SECRET, hasher: fastHasher, log: () => undefined });
    const plain = await request(direct)
      .post("/services/json/user/login")
      .set("Host", "sports.example.com")
      .set("X-Forwarded-Proto", "https")
      .send({ username: "demo", password: "demo-password" });
    expect((plain.headers["set-cookie"] as unknown as string[])[0]).toMatch(/^SESS[0-9a-f]{32}=.*; domain=\.sports\.example\.com; HttpOnly$/);
  });

  it.each([["loopback"], ["1"]])("behind a proxy (TRUST_PROXY=%s), counts each client by the address the proxy names", async (setting) => {
    const proxied = await sportsApiServer(framework, {
      secret: SECRET,
      hasher: fastHasher,
      trustProxy: trustProxySetting(setting),
      extra: { throttle: { ipLimit: 2 } },
      log: () => undefined,
    });
    const agent = request(proxied);
    const attempt = (client: string, password: string) =>
      agent.post("/services/json/user/login").set("X-Forwarded-For", client).set("X-Forwarded-Proto", "https").send({ username: "demo", password });
    expect([
      (await attempt("203.0.113.66", "wrong")).status,
      (await attempt("203.0.113.66", "wrong")).status,
      (await attempt("203.0.113.66", "wrong")).status,
    ]).toEqual([401, 401, 406]);
    const other = await attempt("198.51.100.7", "demo-password");
    expect(other.status).toBe(200);
    expect((other.headers["set-cookie"] as unknown as string[])[0]).toMatch(/^SSESS/);
  });

  it("reads TRUST_PROXY as Express's trust proxy takes it, and EXAMPLE_FRAMEWORK", () => {
    expect([undefined, "", "fastify", " hono "].map(exampleFramework)).toEqual(["express", "express", "fastify", "hono"]);
    expect(() => exampleFramework("koa")).toThrow(/EXAMPLE_FRAMEWORK must be one of express, fastify, hono, not "koa"/);
    expect([undefined, "", " "].map(trustProxySetting)).toEqual([undefined, undefined, undefined]);
    expect(["true", "false", "2", "loopback", "10.0.0.1, 10.0.0.2"].map(trustProxySetting)).toEqual([true, false, 2, "loopback", "10.0.0.1, 10.0.0.2"]);
  });
});
