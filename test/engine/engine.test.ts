/**
 * The engine on its own: requests described as plain objects, replies read as plain
 * objects. No Express, no HTTP: what a binding for another framework would build on.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { memorySessionStore, memoryUserStore, type AuthEvent, type SessionAuthOptions } from "services-session-auth";
import type { GuardRequest } from "../../src/sessions/route-guard.js";
import { createEngine } from "../../src/engine.js";
import type { EndpointRequest } from "../../src/endpoint/endpoint.js";
import type { WireResponse } from "../../src/wire/reply.js";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";
import { countCalls, fakeClock } from "../helpers/doubles.js";

const HOST = "api.example.com";

function engine(overrides: Partial<SessionAuthOptions> = {}) {
  const events: AuthEvent[] = [];
  const sessionStore = countCalls(memorySessionStore());
  const options: SessionAuthOptions = {
    userStore: memoryUserStore(USERS, { hasher: fastHasher }),
    sessionStore: sessionStore.proxy,
    secret: SECRET,
    hasher: fastHasher,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  return { engine: createEngine(options, "test"), events, store: sessionStore };
}

/** A request below the endpoint's mount path, with a raw body. */
function call(
  path: string,
  init: { method?: string; body?: string; contentType?: string; cookie?: string; csrf?: string; origin?: string } = {},
): EndpointRequest {
  return {
    host: HOST,
    secure: false,
    cookieHeader: init.cookie,
    method: init.method ?? "POST",
    ip: "203.0.113.9",
    userAgent: "engine-test",
    contentType: init.contentType ?? (init.body === undefined ? undefined : "application/json"),
    csrfHeader: init.csrf,
    queryToken: undefined,
    versionHeader: undefined,
    accept: undefined,
    origin: init.origin,
    fetchSite: undefined,
    path,
    mounted: true,
    methodOverride: undefined,
    methodParam: undefined,
    body: async () => ({ raw: Buffer.from(init.body ?? "") }),
  };
}

function guardRequest(method: string, cookie?: string, csrf?: string): GuardRequest {
  return { host: HOST, secure: false, cookieHeader: cookie, method, ip: () => "203.0.113.9", csrfToken: () => csrf };
}

function json(reply: WireResponse | undefined): Record<string, unknown> {
  return JSON.parse(String(reply?.body)) as Record<string, unknown>;
}

async function logIn(built: ReturnType<typeof engine>["engine"]) {
  const reply = await built.endpoint.handle(call("/user/login.json", { body: JSON.stringify({ username: "demo", password: "demo-password" }) }));
  expect(reply?.status).toBe(200);
  const body = json(reply) as { sessid: string; session_name: string; token: string };
  return { ...body, cookie: `${body.session_name}=${body.sessid}` };
}

describe("createEngine", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuses invalid options at once, naming the factory", () => {
    expect(() => createEngine({ userStore: memoryUserStore([]) } as never, "myBinding")).toThrow(/^myBinding: invalid options: sessionStore/);
  });

  it("routes the endpoint: its root, the four calls, HEAD and OPTIONS, and nothing else", async () => {
    const { engine: built } = engine();
    expect((await built.endpoint.handle(call("/")))?.body).toBe('Services Endpoint "services" has been setup successfully.');
    expect(await built.endpoint.handle(call("/players"))).toBeUndefined();
    expect((await built.endpoint.handle(call("/user/login", { method: "HEAD" })))?.reason).toBe(": OK");
    expect((await built.endpoint.handle(call("/user/login", { method: "OPTIONS" })))?.status).toBe(200);
    expect((await built.endpoint.handle(call("/user/login", { method: "GET" })))?.reason).toBe("Not found : Could not find the controller.");
    const anonymous = await built.endpoint.handle(call("/system/connect.json"));
    expect(json(anonymous)).toMatchObject({ user: { uid: 0 } });
  });

  it("logs in, reads the session through connect and a guard, and logs out, each reply a plain object", async () => {
    const { engine: built, events } = engine();
    const session = await logIn(built);
    const connect = await built.endpoint.handle(call("/system/connect", { cookie: session.cookie, csrf: session.token }));
    expect(json(connect)).toMatchObject({ sessid: session.sessid, user: { uid: "14", name: "demo" } });
    expect(connect?.headers.Vary).toBe("Accept");

    const guard = built.guard({}, false).check;
    const through = await guard(guardRequest("GET", session.cookie));
    expect(through.error).toBeUndefined();
    expect(through.auth?.user.uid).toBe("14");
    expect(through.auth?.user).not.toHaveProperty("passwordHash");

    const logout = await built.endpoint.handle(call("/user/logout", { cookie: session.cookie, csrf: session.token }));
    expect(logout?.body).toBe("[true]");
    expect((await guard(guardRequest("GET", session.cookie))).error?.code).toBe("ERR_UNAUTHENTICATED");
    expect(events.map((event) => event.type)).toEqual(["login.success", "logout"]);
  });

  it("guards: CSRF on unsafe methods, roles, and an optional guard that never refuses for lack of a session", async () => {
    const { engine: built, events } = engine();
    const session = await logIn(built);
    const required = built.guard({}, false).check;
    expect((await required(guardRequest("POST", session.cookie))).error?.code).toBe("ERR_CSRF");
    expect((await required(guardRequest("POST", session.cookie, session.token))).auth?.user.name).toBe("demo");
    expect((await built.guard({ roles: ["administrator"] }, false).check(guardRequest("GET", session.cookie))).error?.code).toBe("ERR_FORBIDDEN");
    expect((await built.guard({ csrf: false }, false).check(guardRequest("POST", session.cookie))).auth?.user.name).toBe("demo");

    const optional = built.guard({}, true).check;
    expect(await optional(guardRequest("GET"))).toEqual({ auth: undefined, setCookie: [] });
    expect((await optional(guardRequest("GET", session.cookie))).auth?.user.name).toBe("demo");
    // An unsafe request without its token is let through as anonymous, and the attempt reported.
    expect((await optional(guardRequest("POST", session.cookie))).auth).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: "csrf.rejected", uid: "14" });
    // A stale cookie is anonymous, and deleted.
    const stale = await optional(guardRequest("GET", `${session.session_name}=gone`));
    expect(stale.auth).toBeUndefined();
    expect(stale.setCookie[0]).toMatch(/=deleted; /);
  });

  it("costs one session read per guarded GET, shared by every guard of the engine", async () => {
    const { engine: built, store } = engine();
    const session = await logIn(built);
    store.reset();
    await built.guard({}, false).check(guardRequest("GET", session.cookie));
    await built.guard({ roles: ["authenticated user"] }, false).check(guardRequest("GET", session.cookie));
    await built.guard({}, true).check(guardRequest("GET", session.cookie));
    expect(store.calls).toEqual({ get: 3 });
  });

  it("starts and ends sessions for the app, rotating the id and ending what the request carried", async () => {
    const { engine: built } = engine();
    const before = await logIn(built);
    const user = (await memoryUserStore(USERS, { hasher: fastHasher }).findByName("admin"))!;
    const started = await built.endpoint.start({ host: HOST, secure: false, cookieHeader: before.cookie, ip: "203.0.113.9", userAgent: "sso" }, user);
    expect(started.result).toMatchObject({ user: { uid: "1", name: "admin" } });
    expect(started.result.sessid).not.toBe(before.sessid);
    expect(started.setCookie[0]).toMatch(new RegExp(`^${started.result.session_name}=${started.result.sessid}; `));
    // The session the request carried is over.
    expect((await built.guard({}, false).check(guardRequest("GET", before.cookie))).error?.code).toBe("ERR_UNAUTHENTICATED");

    const cookie = `${started.result.session_name}=${started.result.sessid}`;
    expect((await built.sessions.list("1")).length).toBe(1);
    const ended = await built.endpoint.end({ host: HOST, secure: false, cookieHeader: cookie, ip: "203.0.113.9" });
    expect(ended.result).toBe(true);
    expect(ended.setCookie[0]).toMatch(/=deleted; /);
    expect((await built.endpoint.end({ host: HOST, secure: false, cookieHeader: cookie, ip: "203.0.113.9" })).result).toBe(false);
    await expect(
      built.endpoint.start({ host: HOST, secure: false, cookieHeader: undefined, ip: "", userAgent: "" }, { ...user, active: false }),
    ).rejects.toMatchObject({ code: "ERR_ACCOUNT_BLOCKED" });
  });

  it("expires sessions by the engine's own clock, idle and absolute", async () => {
    const clock = fakeClock();
    const { engine: built, events } = engine({ idleTimeout: 600, absoluteTimeout: 3600 });
    const session = await logIn(built);
    const guard = built.guard({}, false).check;
    clock.advance(599);
    expect((await guard(guardRequest("GET", session.cookie))).auth).toBeDefined();
    clock.advance(601);
    expect((await guard(guardRequest("GET", session.cookie))).error?.code).toBe("ERR_UNAUTHENTICATED");
    expect(events.at(-1)).toMatchObject({ type: "session.expired", reason: "idle" });
  });

  it("answers what no route answered, and errors, in the wire format", () => {
    const { engine: built, events } = engine();
    const notFound = built.notFound({ resources: ["players"] });
    const request = { mounted: true, method: "GET", methodOverride: undefined, methodParam: undefined };
    expect(notFound({ ...request, path: "/players/7/stats" }).reason).toBe("Not found : Could not find the controller.");
    expect(notFound({ ...request, path: "/teams" }).reason).toBe("Not found : Could not find resource teams.");
    expect(notFound({ ...request, path: "/players/7", method: "HEAD" }).reason).toBe(": OK");
    expect(notFound({ ...request, path: "/anything", mounted: false }).reason).toBe("Not Found");
    const failure = new Error("database password is hunter2");
    const reply = built.replyToError(failure);
    expect([reply.status, reply.body]).toEqual([500, null]);
    expect(events).toEqual([{ type: "internal.error", err: failure, timestamp: expect.any(Number) }]);
  });
});
