/**
 * Drupal's `?q=` paths on every binding: a repeated `q` is read as PHP's `$_GET` reads it (the
 * last one), as Drupal's `request_path()` routed it, so a proxy or log reading `q` the PHP way
 * sees the route the app takes.
 */
import type { IncomingMessage } from "node:http";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { memorySessionStore, memoryUserStore } from "services-session-auth";
import { createSessionAuthPlugin } from "services-session-auth/fastify";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";
import { fastHasher, SECRET } from "../helpers/app.js";

const CREDENTIALS = { username: "demo", password: "demo-password" };

describe.each(FRAMEWORKS)("?q= paths on %s", (binding) => {
  it("routes a repeated q by its last value", async () => {
    const { server } = await bindingApp(binding);
    const agent = request(server);
    const last = await agent.post("/?q=nothing&q=services/json/user/login.json").send(CREDENTIALS);
    expect(last.status).toBe(200);
    expect(last.headers["set-cookie"]).toHaveLength(1);
    const first = await agent.post("/?q=services/json/user/login.json&q=nothing").send(CREDENTIALS);
    expect(first.status).toBe(404);
    expect(first.headers["set-cookie"]).toBeUndefined();
  });
});

describe.each(FRAMEWORKS)("?q= reaches only what Drupal clients call there, on %s", (binding) => {
  it("routes the endpoint and the token call, never another app path unless queryRoutes lists it", async () => {
    const { server } = await bindingApp(binding);
    const agent = request(server);
    // The app's own routes outside the endpoint: /welcome answers 200 when reached.
    expect((await agent.get("/welcome")).status).toBe(200);
    for (const target of ["/?q=welcome", "/index.php?q=welcome", "/?q=services/json/../../welcome", "/?q=/welcome/", "/?q=WELCOME"]) {
      const res = await agent.get(target);
      expect([target, res.status, res.text]).toEqual([target, 404, ""]);
    }
    // Towards the endpoint it routes, the app's routes there included.
    expect((await agent.get("/?q=services/json/players")).status).toBe(401);
    expect((await agent.get("/index.php?q=services/session/token")).text).toMatch(/^[\w-]{43}$/);
    // A prefix the app lists.
    const { server: listed } = await bindingApp(binding, { queryRoutes: ["/welcome"] });
    expect((await request(listed).get("/?q=welcome")).status).toBe(200);
  });
});

describe.each(FRAMEWORKS)("paths of the package's that overlap, on %s", (binding) => {
  it("reads ?q= on a query path below the endpoint, and answers the token call under an endpoint named services", async () => {
    const { server } = await bindingApp(binding, { queryPaths: ["/", "/services/json/index.php"] });
    const below = await request(server).post("/services/json/index.php?q=services/json/user/login").send(CREDENTIALS);
    expect([below.status, below.headers["set-cookie"]]).toEqual([200, [expect.stringMatching(/^SESS/)]]);
    const { server: services } = await bindingApp(binding, { endpoint: "services" });
    expect((await request(services).get("/services/session/token")).text).toMatch(/^[\w-]{43}$/);
    expect((await request(services).post("/services/user/login").send(CREDENTIALS)).status).toBe(200);
  });
});

describe("the path ?q= names, as a URL carries it", () => {
  it("keeps what a path segment may hold as it is, and escapes what would start another URL part", () => {
    const { rewriteUrl: rewrite } = createSessionAuthPlugin({
      userStore: memoryUserStore([], { hasher: fastHasher }),
      sessionStore: memorySessionStore(),
      secret: SECRET,
    });
    const url = (target: string) => rewrite({ url: target } as IncomingMessage);
    expect(url("/?q=services/json/player/a:b@c,d;e=f%2Bg$h%26i&x=1")).toBe("/services/json/player/a:b@c,d;e=f+g$h&i?x=1");
    expect(url("/?q=services/json/player/a%3Fb%23c%2Fd%25e&x=1")).toBe("/services/json/player/a%3Fb%23c/d%25e?x=1");
    expect(url("/?q=services/json/player/caf%C3%A9%20ol%C3%A9")).toBe("/services/json/player/caf%C3%A9%20ol%C3%A9");
  });
});
