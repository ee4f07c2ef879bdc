/**
 * The engine on its own: requests in the one shape every binding hands in, replies read as
 * plain objects. No framework, no HTTP: what a binding for another framework would build on.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { memorySessionStore, memoryUserStore, SessionAuthError, type AuthEvent, type SessionAuthOptions } from "services-session-auth";
import { createEngine } from "../../src/engine/engine.js";
import type { WireResponse } from "../../src/wire/reply.js";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";
import { countCalls, fakeClock } from "../helpers/doubles.js";
import { plainRequest } from "../helpers/http-request.js";

const HOST = "api.example.com";
const PROFILE = { factory: "test", trustProxyFix: "trust the proxy" };

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
  return { engine: createEngine(options, PROFILE), events, store: sessionStore };
}

type Engine = ReturnType<typeof engine>["engine"];

/** A request to the app's host, with a session cookie and a CSRF token if given. */
function request(method: string, target: string, init: { body?: string; cookie?: string; csrf?: string } = {}) {
  const headers: Record<string, string> = { host: HOST };
  if (init.cookie !== undefined) headers.cookie = init.cookie;
  if (init.csrf !== undefined) headers["x-csrf-token"] = init.csrf;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return plainRequest({ method, target, headers, ...(init.body === undefined ? {} : { body: init.body }) });
}

/** What the package serves of a request: its reply, or `undefined` for the app's. */
async function serve(built: Engine, method: string, target: string, init: { body?: string; cookie?: string; csrf?: string } = {}) {
  const decided = await built.serve(request(method, target, init));
  return decided?.kind === "reply" ? decided.reply : undefined;
}

/** A header collector standing in for a framework's reply. */
function collected() {
  const headers = new Headers();
  return { headers, cookies: () => headers.getSetCookie() };
}

function json(reply: WireResponse | undefined): Record<string, unknown> {
  return JSON.parse(String(reply?.body)) as Record<string, unknown>;
}

async function logIn(built: Engine) {
  const reply = await serve(built, "POST", "/services/json/user/login.json", { body: JSON.stringify({ username: "demo", password: "demo-password" }) });
  expect(reply?.status).toBe(200);
  const body = json(reply) as { sessid: string; session_name: string; token: string };
  return { ...body, cookie: `${body.session_name}=${body.sessid}` };
}

describe("createEngine", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuses invalid options at once, naming the factory", () => {
    expect(() => createEngine({ userStore: memoryUserStore([]) } as never, { ...PROFILE, factory: "myBinding" })).toThrow(
      /^myBinding: invalid options: sessionStore/,
    );
  });

  it("routes the endpoint: its root, the four calls, HEAD and OPTIONS, and nothing else", async () => {
    const { engine: built } = engine();
    expect((await serve(built, "POST", "/services/json"))?.body).toBe('Services Endpoint "services" has been setup successfully.');
    expect(await serve(built, "POST", "/services/json/players")).toBeUndefined();
    expect(built.serve(request("GET", "/players"))).toBeUndefined();
    expect((await serve(built, "HEAD", "/services/json/user/login"))?.reason).toBe(": OK");
    expect((await serve(built, "OPTIONS", "/services/json/user/login"))?.status).toBe(200);
    expect((await serve(built, "GET", "/services/json/user/login"))?.reason).toBe("Not found : Could not find the controller.");
    const anonymous = await serve(built, "POST", "/services/json/system/connect.json");
    expect(json(anonymous)).toMatchObject({ user: { uid: 0 } });
    // Drupal's ?q= spelling, and the token call.
    expect(json(await serve(built, "POST", "/?q=services/json/system/connect.json"))).toMatchObject({ user: { uid: 0 } });
    expect((await serve(built, "GET", "/services/session/token"))?.body).toMatch(/^[\w-]{43}$/);
  });

  it("logs in, reads the session through connect and a guard, and logs out, each reply a plain object", async () => {
    const { engine: built, events } = engine();
    const session = await logIn(built);
    const connect = await serve(built, "POST", "/services/json/system/connect", { cookie: session.cookie, csrf: session.token });
    expect(json(connect)).toMatchObject({ sessid: session.sessid, user: { uid: "14", name: "demo" } });
    expect(connect?.headers.Vary).toBe("Accept");

    const guard = built.requireSession({});
    const through = await guard(request("GET", "/players", { cookie: session.cookie }));
    expect(through.kind).toBe("continue");
    expect(through.kind === "continue" && through.auth?.user.uid).toBe("14");
    expect(through.kind === "continue" && through.auth?.user).not.toHaveProperty("passwordHash");

    const logout = await serve(built, "POST", "/services/json/user/logout", { cookie: session.cookie, csrf: session.token });
    expect(logout?.body).toBe("[true]");
    const refused = await guard(request("GET", "/players", { cookie: session.cookie }));
    expect(refused).toMatchObject({ kind: "reply", error: { code: "ERR_UNAUTHENTICATED" }, reply: { status: 401 } });
    // onDenied: "next" hands the refusal to the framework's error path instead.
    expect(await built.requireSession({ onDenied: "next" })(request("GET", "/players", { cookie: session.cookie }))).toMatchObject({
      kind: "fail",
      error: { code: "ERR_UNAUTHENTICATED" },
    });
    expect(events.map((event) => event.type)).toEqual(["login.success", "logout"]);
  });

  it("guards: CSRF on unsafe methods, roles, and an optional guard that never refuses for lack of a session", async () => {
    const { engine: built, events } = engine();
    const session = await logIn(built);
    const at = (method: string, cookie?: string, csrf?: string) =>
      request(method, "/players", { ...(cookie === undefined ? {} : { cookie }), ...(csrf === undefined ? {} : { csrf }) });
    const required = built.requireSession({});
    expect(await required(at("POST", session.cookie))).toMatchObject({ kind: "reply", error: { code: "ERR_CSRF" } });
    expect(await required(at("POST", session.cookie, session.token))).toMatchObject({ kind: "continue", auth: { user: { name: "demo" } } });
    expect(await built.requireSession({ roles: ["administrator"] })(at("GET", session.cookie))).toMatchObject({ error: { code: "ERR_FORBIDDEN" } });
    expect(await built.requireSession({ csrf: false })(at("POST", session.cookie))).toMatchObject({ auth: { user: { name: "demo" } } });

    const optional = built.optionalSession({});
    expect(await optional(at("GET"))).toEqual({ kind: "continue", auth: undefined, headers: {} });
    expect(await optional(at("GET", session.cookie))).toMatchObject({ auth: { user: { name: "demo" } } });
    // An unsafe request without its token is let through as anonymous, and the attempt reported.
    expect(await optional(at("POST", session.cookie))).toMatchObject({ kind: "continue", auth: undefined });
    expect(events.at(-1)).toMatchObject({ type: "csrf.rejected", uid: "14" });
    // A stale cookie is anonymous, and deleted: the headers for the route's reply carry the deletion.
    const stale = await optional(at("GET", `${session.session_name}=gone`));
    expect(stale).toMatchObject({ kind: "continue", auth: undefined });
    expect(String(stale.kind === "continue" && stale.headers["Set-Cookie"])).toMatch(/=deleted; /);
    expect(() => built.optionalSession({ csrf: false } as never)).toThrow(/optionalSession: invalid options/);
  });

  it("costs one session read per guarded GET, shared by every guard of the engine", async () => {
    const { engine: built, store } = engine();
    const session = await logIn(built);
    store.reset();
    const get = () => request("GET", "/players", { cookie: session.cookie });
    await built.requireSession({})(get());
    await built.requireSession({ roles: ["authenticated user"] })(get());
    await built.optionalSession({})(get());
    expect(store.calls).toEqual({ get: 3 });
  });

  it("starts and ends sessions for the app, rotating the id and ending what the request carried", async () => {
    const { engine: built } = engine();
    const before = await logIn(built);
    const user = (await memoryUserStore(USERS, { hasher: fastHasher }).findByName("admin"))!;
    const opened = collected();
    const started = await built.startSession(request("POST", "/sso", { cookie: before.cookie }), user, opened.headers);
    expect(started).toMatchObject({ user: { uid: "1", name: "admin" } });
    expect(started.sessid).not.toBe(before.sessid);
    expect(opened.cookies()[0]).toMatch(new RegExp(`^${started.session_name}=${started.sessid}; `));
    expect(opened.headers.get("Cache-Control")).toBe("no-store");
    // The session the request carried is over.
    expect(await built.requireSession({})(request("GET", "/players", { cookie: before.cookie }))).toMatchObject({ error: { code: "ERR_UNAUTHENTICATED" } });

    const cookie = `${started.session_name}=${started.sessid}`;
    expect((await built.base.listSessions("1")).length).toBe(1);
    const closed = collected();
    expect(await built.endSession(request("POST", "/logout", { cookie }), closed.headers)).toBe(true);
    expect(closed.cookies()[0]).toMatch(/=deleted; /);
    expect(await built.endSession(request("POST", "/logout", { cookie }), collected().headers)).toBe(false);
    await expect(built.startSession(request("POST", "/sso"), { ...user, active: false }, collected().headers)).rejects.toMatchObject({
      code: "ERR_ACCOUNT_BLOCKED",
    });
  });

  it("expires sessions by the engine's own clock, idle and absolute", async () => {
    const clock = fakeClock();
    const { engine: built, events } = engine({ idleTimeout: 600, absoluteTimeout: 3600 });
    const session = await logIn(built);
    const guard = built.requireSession({});
    clock.advance(599);
    expect(await guard(request("GET", "/players", { cookie: session.cookie }))).toMatchObject({ kind: "continue", auth: { user: { uid: "14" } } });
    clock.advance(601);
    expect(await guard(request("GET", "/players", { cookie: session.cookie }))).toMatchObject({ error: { code: "ERR_UNAUTHENTICATED" } });
    expect(events.at(-1)).toMatchObject({ type: "session.expired", reason: "idle" });
  });

  it("answers what no route answered, and errors, in the wire format", () => {
    const { engine: built, events } = engine();
    const notFound = built.notFound({ resources: ["players"] });
    expect(notFound(request("GET", "/services/json/players/7/stats")).reason).toBe("Not found : Could not find the controller.");
    expect(notFound(request("GET", "/services/json/teams")).reason).toBe("Not found : Could not find resource teams.");
    expect(notFound(request("HEAD", "/services/json/players/7")).reason).toBe(": OK");
    expect(notFound(request("GET", "/anything")).reason).toBe("Not Found");
    const failure = new Error("database password is hunter2");
    const logged: unknown[] = [];
    const reply = built.fail(failure, undefined, (error) => logged.push(error));
    expect([reply.status, reply.body]).toEqual([500, null]);
    expect(events).toEqual([{ type: "internal.error", err: failure, timestamp: expect.any(Number) }]);
    expect(logged).toEqual([failure]);
    // The package's own errors, and what the binding maps, are answered, never logged as a 500.
    expect(built.fail(new SessionAuthError("ERR_FORBIDDEN", "demo"), undefined, (error) => logged.push(error)).status).toBe(403);
    expect(logged).toHaveLength(1);
  });

  it("answers names of Object.prototype's members below the endpoint as Services' 404s, and no 500 is ever silent", async () => {
    const { engine: built, events } = engine();
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      expect(await serve(built, "POST", `/services/json/${name}`), name).toBeUndefined();
      expect(built.notFound({})(request("POST", `/services/json/${name}`)).reason, name).toBe(`Not found : Could not find resource ${name}.`);
    }
    expect(events).toEqual([]);
  });
});
