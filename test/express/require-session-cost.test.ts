import { IncomingMessage } from "node:http";
import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryCounterStore, memorySessionStore, type CounterStore, type PasswordHasher } from "services-session-auth";
import { redisSessionStore } from "services-session-auth/redis";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import { createTestApp, fastHasher, login } from "../helpers/app.js";
import { countCalls } from "../helpers/doubles.js";
import { redisUrl, useSharedRedis } from "../stores/redis-helpers.js";

// Counts, never wall-clock time: what a protected request and a login cost in store calls and hashes.
describe("requireSession's cost per request", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads the session once and the user once per protected GET, and writes nothing", async () => {
    const base = createTestApp();
    const sessions = countCalls(base.sessionStore);
    const users = countCalls(base.userStore);
    const { app, agent } = createTestApp({ sessionStore: sessions.proxy, userStore: users.proxy });
    const session = await login(app);
    sessions.reset();
    users.reset();
    for (let i = 0; i < 4; i += 1) expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    expect(sessions.calls).toEqual({ get: 4 });
    expect(users.calls).toEqual({ findById: 4 });
  });

  it("sets req.auth on the request itself, and changes nothing Express's apps share", async () => {
    const seen: Array<{ own: boolean; name: string | undefined }> = [];
    const { app, agent } = createTestApp({}, undefined, (routes, auth) => {
      // A sub-app: Express swaps the request's prototype while in it, and back after.
      const inner = express();
      inner.get("/sub", auth.requireSession(), (req, _res, next) => {
        seen.push({ own: Object.hasOwn(req, "auth"), name: req.auth?.user.name });
        next();
      });
      routes.use(inner);
      routes.get("/sub", (req, res) => {
        const name = req.auth?.user.name;
        delete req.auth;
        res.json({ own: Object.hasOwn(req, "auth"), name });
      });
    });
    const session = await login(app);
    expect((await agent.get("/sub").set("Cookie", session.cookie)).body).toEqual({ own: false, name: "demo" });
    expect(seen).toEqual([{ own: true, name: "demo" }]);
    // No prototype of Express's or Node's got an "auth": another app's requests do not answer to it.
    for (const prototype of [express.request, IncomingMessage.prototype, Object.getPrototypeOf(express.request) as object]) {
      expect(Object.getOwnPropertyNames(prototype)).not.toContain("auth");
    }
    const other = express().get("/", (req, res) => void res.json({ auth: "auth" in req }));
    expect((await request(other).get("/")).body).toEqual({ auth: false });
  });

  it("gives a request whose Express prototype is frozen an own req.auth, and still lets it through", async () => {
    const { app, auth } = createTestApp();
    const session = await login(app);
    const frozenExpress = Object.freeze(Object.create(IncomingMessage.prototype) as object);
    const req = Object.assign(Object.create(Object.create(frozenExpress) as object) as object, {
      method: "GET",
      url: "/x",
      headers: { host: "sports.test", cookie: session.cookie },
      secure: false,
      ip: "127.0.0.1",
    });
    const next = vi.fn();
    auth.requireSession()(req as never, { append: vi.fn(), setHeader: vi.fn() } as never, next);
    await vi.waitFor(() => expect(next).toHaveBeenCalledWith());
    expect(Object.hasOwn(req, "auth")).toBe(true);
  });

  it("gives a request that is not Express's an own req.auth", async () => {
    const { app, auth } = createTestApp();
    const session = await login(app);
    const req = { method: "GET", url: "/x", headers: { host: "sports.test", cookie: session.cookie }, secure: false, ip: "127.0.0.1", socket: {} };
    const next = vi.fn();
    auth.requireSession()(req as never, { append: vi.fn(), setHeader: vi.fn() } as never, next);
    await vi.waitFor(() => expect(next).toHaveBeenCalledWith());
    expect(Object.hasOwn(req, "auth")).toBe(true);
    expect((req as { auth?: { user: { name: string } } }).auth?.user.name).toBe("demo");
  });

  it("decides a request over the memory stores at once, and one over a store that waits when its answer comes", async () => {
    const request = (cookie: string) => ({ method: "GET", url: "/x", headers: { host: "sports.test", cookie }, secure: false, ip: "127.0.0.1", socket: {} });
    const response = () => ({ appendHeader: vi.fn(), setHeader: vi.fn(), getHeader: vi.fn() }) as never;
    const { app, auth } = createTestApp();
    const session = await login(app);
    // The memory stores read without a promise: the route is called before the guard returns.
    const next = vi.fn();
    auth.requireSession()(request(session.cookie) as never, response(), next);
    expect(next).toHaveBeenCalledWith();
    const refused = vi.fn();
    auth.requireSession({ onDenied: "next" })(request(`${session.session_name}=unknown-session-id-of-some-length`) as never, response(), refused);
    await vi.waitFor(() => expect(refused).toHaveBeenCalledWith(expect.objectContaining({ code: "ERR_UNAUTHENTICATED" })));
    // A store that answers with a promise (wrapped, so not the package's own) is waited for, and decides the same.
    const wrapped = createTestApp({ sessionStore: countCalls(memorySessionStore()).proxy });
    const other = await login(wrapped.app);
    const waited = vi.fn();
    wrapped.auth.requireSession()(request(other.cookie) as never, response(), waited);
    expect(waited).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(waited).toHaveBeenCalledWith());
  });

  it("reads through a method replaced on a memory store after it was made, never around it", async () => {
    const sessionStore = memorySessionStore();
    const { app, agent } = createTestApp({ sessionStore });
    const session = await login(app);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    // A store patched before the router is made (here: one that knows no session) is the one that answers.
    sessionStore.get = async () => null;
    const patched = createTestApp({ sessionStore });
    expect((await patched.agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
  });

  it("checks a sealed session's revocations on every GET, and a cached seal still needs the exact string", async () => {
    const counters = countCalls<CounterStore>(memoryCounterStore({ whenFull: "reject" }));
    const sessionStore = sealedCookieStore({ password: "cost-test-password-of-32-characters+", revocations: counters.proxy });
    const { app, agent } = createTestApp({ sessionStore });
    const session = await login(app);
    counters.reset();
    for (let i = 0; i < 3; i += 1) expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    // The session's own revocation mark and its user's count: two reads sent together, every time.
    expect(counters.calls).toEqual({ get: 6 });
    // The cache is keyed by the whole sealed id: one changed character is unsealed afresh, and refused.
    const last = session.sessid.at(-1) === "A" ? "B" : "A";
    const tampered = `${session.session_name}=${session.sessid.slice(0, -1)}${last}`;
    expect((await agent.get("/services/json/players").set("Cookie", tampered)).status).toBe(401);
  });

  it("hashes once per login: one verify, no new hash while the stored one is current", async () => {
    const counted = countCalls<PasswordHasher>(fastHasher);
    const { app } = createTestApp({ hasher: counted.proxy });
    // The router makes its stand-in hash for unknown names at start-up (and reads its cost
    // class once made); the login itself is what is counted.
    for (let i = 0; i < 1000 && counted.calls.costClass !== 1; i += 1) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(counted.calls).toEqual({ hash: 1, costClass: 1 });
    counted.reset();
    await login(app);
    // costClass reads the stored hash's parameters (no hashing), for the equal cost of failures.
    expect(counted.calls).toEqual({ verify: 1, needsRehash: 1, costClass: 1 });
  });
});

describe.skipIf(!redisUrl)("requireSession's Redis round trips (REDIS_URL)", () => {
  const { client, prefix } = useSharedRedis("cost");

  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends one command per protected GET until the touch interval passes, then touches once", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const redis = countCalls(client);
    const { app, agent } = createTestApp({ sessionStore: redisSessionStore({ client: redis.proxy, prefix }), touchInterval: 180 });
    const session = await login(app);
    redis.reset();
    for (let i = 0; i < 5; i += 1) expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    expect(redis.calls).toEqual({ get: 5 });
    vi.setSystemTime(Date.now() + 181_000);
    redis.reset();
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    // The read, then the touch: a read of the record for its uid and one MULTI.
    expect(redis.calls).toEqual({ get: 2, multi: 1 });
  });
});
