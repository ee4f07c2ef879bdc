/** The fetch binding on its own: Web-standard Requests in, Responses out, no server. */
import { describe, expect, it, vi } from "vitest";
import { memorySessionStore, memoryUserStore, SessionAuthError } from "services-session-auth";
import { createSessionAuthHandler, type FetchSessionAuthOptions, type RuntimeEnv } from "services-session-auth/fetch";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";

const SITE = "http://api.example.com";

function handler(overrides: Partial<FetchSessionAuthOptions> = {}) {
  return createSessionAuthHandler({
    userStore: memoryUserStore(USERS, { hasher: fastHasher }),
    sessionStore: memorySessionStore(),
    secret: SECRET,
    hasher: fastHasher,
    ...overrides,
  });
}

/** What Node's servers hand beside a request: the IncomingMessage, as `{ incoming }` (node:http glue, @hono/node-server). */
function node(remoteAddress: string | undefined, encrypted = false): RuntimeEnv {
  return { incoming: { socket: { remoteAddress, encrypted } } };
}

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return new Request(SITE + path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });
}

/** A body stream that answers every read at once: `count` chunks of `size` bytes, or endless. Counts its reads, notes a cancel. */
function instantStream(size: number, count = Number.POSITIVE_INFINITY) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (++state.pulled > count) controller.close();
      else controller.enqueue(new Uint8Array(size));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return Object.assign(state, { stream });
}

/** A login whose body is a stream, sent as fetch() sends one (`duplex: "half"`). */
function streamedLogin(body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Request {
  return new Request(`${SITE}/services/json/user/login`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

async function logIn(auth: ReturnType<typeof handler>, site = SITE, headers: Record<string, string> = {}) {
  const reply = await auth.handle(
    new Request(`${site}/services/json/user/login.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ username: "demo", password: "demo-password" }),
    }),
  );
  expect(reply?.status).toBe(200);
  const body = (await reply!.json()) as { sessid: string; session_name: string; token: string };
  return { ...body, reply, cookie: `${body.session_name}=${body.sessid}` };
}

describe("createSessionAuthHandler", () => {
  it("refuses invalid options at once, naming itself", () => {
    expect(() => createSessionAuthHandler({ userStore: memoryUserStore([]) } as never)).toThrow(/^createSessionAuthHandler: invalid options: sessionStore/);
    expect(() => handler({ trustProxy: "yes" as never })).toThrow(/createSessionAuthHandler: invalid options: trustProxy/);
    expect(() => handler().requireSession({ roles: "admin" } as never)).toThrow(TypeError);
    // null is every sandboxed frame's origin: the fetch handler refuses it too, at start-up.
    expect(() => handler({ trustedOrigins: ["null"] })).toThrow(/createSessionAuthHandler: invalid options: trustedOrigins\.0: must not be null/);
  });

  it("answers the endpoint with Services' status line, and leaves every other path to the app", async () => {
    const auth = handler();
    const wrong = await auth.handle(post("/services/json/user/login.json", JSON.stringify({ username: "demo", password: "x" })));
    expect([wrong?.status, wrong?.statusText, await wrong?.json()]).toEqual([
      401,
      "Unauthorized : Wrong username or password.",
      ["Wrong username or password."],
    ]);
    expect(await (await auth.handle(new Request(`${SITE}/Services/JSON/`)))?.text()).toBe('Services Endpoint "services" has been setup successfully.');
    expect(await auth.handle(new Request(`${SITE}/services/json/players`))).toBeUndefined();
    expect(await auth.handle(new Request(`${SITE}/services/jsonx/user/login`, { method: "POST" }))).toBeUndefined();
    expect(await auth.handle(new Request(`${SITE}/players?q=services/json/user/login`, { method: "POST" }))).toBeUndefined();
    expect(auth.routedPath(new Request(`${SITE}/index.php?q=/services/json/players/&x=1`))).toBe("/services/json/players");
    expect(auth.routedPath(new Request(`${SITE}/players?q=ana`))).toBe("/players");
  });

  it("reads the scheme from the URL, or from X-Forwarded-Proto with trustProxy", async () => {
    const direct = await logIn(handler(), "https://api.example.com");
    expect(direct.session_name).toMatch(/^SSESS/);
    expect((await logIn(handler(), SITE, { "X-Forwarded-Proto": "https" })).session_name).toMatch(/^SESS/);
    const proxied = await logIn(handler({ trustProxy: true }), SITE, { "X-Forwarded-Proto": "https, http" });
    expect(proxied.session_name).toMatch(/^SSESS/);
    expect(proxied.reply!.headers.getSetCookie()[0]).toMatch(/; secure; HttpOnly$/);
    // As Express's req.protocol: an empty value is no value (the URL's scheme), the comparison is exact, a truthy trust counts.
    expect((await logIn(handler({ trustProxy: true }), "https://api.example.com", { "X-Forwarded-Proto": "" })).session_name).toMatch(/^SSESS/);
    expect((await logIn(handler({ trustProxy: true }), SITE, { "X-Forwarded-Proto": "HTTPS" })).session_name).toMatch(/^SESS/);
    const truthy = (() => 1) as unknown as () => boolean;
    expect((await logIn(handler({ trustProxy: truthy }), SITE, { "X-Forwarded-Proto": "https" })).session_name).toMatch(/^SSESS/);
  });

  it("takes the scheme from the socket over the URL's (a request line the client wrote), a trusted proxy's over both", async () => {
    const login = (auth: ReturnType<typeof handler>, url: string, secure: boolean, headers: Record<string, string> = {}) =>
      auth.handle(
        new Request(`${url}/services/json/user/login.json`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
          body: JSON.stringify({ username: "demo", password: "demo-password" }),
        }),
        node("127.0.0.1", secure),
      );
    const claimed = await login(handler(), "https://api.example.com", false);
    expect(claimed?.headers.getSetCookie()[0]).toMatch(/^SESS[0-9a-f]{32}=[\w-]{43}; .*; HttpOnly$/);
    expect(claimed?.headers.getSetCookie()[0]).not.toContain("secure");
    const auth = handler();
    const tls = await login(auth, SITE, true);
    const cookie = tls!.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^SSESS.*; secure; HttpOnly$/);
    // The guard reads the same scheme: the SSESS cookie is the session over TLS, not over plain HTTP.
    const guard = auth.requireSession();
    const me = new Request(`${SITE}/services/json/me`, { headers: { Cookie: cookie.split(";")[0]! } });
    expect((await guard(me, node("127.0.0.1", true))).auth?.user.name).toBe("demo");
    expect((await guard(me, node("127.0.0.1", false))).response?.status).toBe(401);
    const proxied = await login(handler({ trustProxy: "loopback" }), SITE, false, { "X-Forwarded-Proto": "https" });
    expect(proxied?.headers.getSetCookie()[0]).toMatch(/^SSESS/);
  });

  it("refuses a body over the limit, declared or streamed, before reading it all", async () => {
    const auth = handler({ bodyLimit: 16 });
    const declared = await auth.handle(post("/services/json/user/login", "x".repeat(17)));
    expect([declared?.status, await declared?.json()]).toEqual([413, ["Request body too large."]]);
    // A long stream, but a finite one: what is left of it is discarded after the reply.
    const long = instantStream(10, 1000);
    expect((await auth.handle(streamedLogin(long.stream)))?.status).toBe(413);
    expect(long.pulled).toBeLessThan(100);
    // Empty chunks are bounded too: a long stream of them is refused, not read to its end
    // (were it endless, reading it would never stop).
    expect((await auth.handle(streamedLogin(instantStream(0, 1000).stream)))?.status).toBe(413);
    // But a body of exactly the limit is read whole, empty chunks and all, as Node's
    // Readable.toWeb() passes them on.
    const login = JSON.stringify({ username: "demo", password: "demo-password" });
    const parts = [login.slice(0, 9), "", login.slice(9, 20), "", "", login.slice(20)].map((part) => new TextEncoder().encode(part));
    const exact = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const accepted = await handler({ bodyLimit: login.length }).handle(streamedLogin(exact, { "Content-Type": "application/json" }));
    expect(accepted?.status).toBe(200);
    // A declared body something else holds, unread: still the 413, and the stream is left to its holder.
    const held = post("/services/json/user/login", "x".repeat(17), { "Content-Length": "17" });
    const holder = held.body!.getReader();
    expect((await auth.handle(held))?.status).toBe(413);
    holder.releaseLock();
  });

  it("reads and drops the rest of a refused upload after the 413, with the timers of any runtime", async () => {
    const auth = handler({ bodyLimit: 16 });
    // Timers as Deno and Workers give them: numbers, with no refresh() or unref().
    const nodeSetTimeout = globalThis.setTimeout;
    vi.stubGlobal("setTimeout", (callback: () => void, ms: number) => Number(nodeSetTimeout(callback, ms)));
    try {
      // More than a turn's worth of chunks: the discarding waits for a turn with these timers too.
      const upload = instantStream(10, 200);
      expect((await auth.handle(streamedLogin(upload.stream)))?.status).toBe(413);
      await vi.waitFor(() => expect(upload.pulled).toBe(201));
      expect(upload.cancelled).toBe(false);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("reads and discards a body that never waits for I/O without holding the event loop, and stops at the time bound", async () => {
    const auth = handler({ bodyLimit: 16 });
    // Endless, and every read answered at once: as a body the app built, or one held in memory.
    const endless = instantStream(10);
    // Read up to the limit in one-byte chunks, the event loop gets its turns as well.
    const bytewise = instantStream(1, 4000);
    let readAtTurn: number | undefined;
    setTimeout(() => (readAtTurn = bytewise.pulled), 0);
    await handler({ bodyLimit: 5000 }).handle(streamedLogin(bytewise.stream));
    expect(readAtTurn ?? bytewise.pulled).toBeLessThan(1000);

    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      expect((await auth.handle(streamedLogin(endless.stream)))?.status).toBe(413);
      // The next timer runs after a few turns of the discarding, not after 64 MiB of 10-byte chunks.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(endless.pulled).toBeLessThan(10_000);
      expect(endless.cancelled).toBe(false);
      // Past the time bound on the clock, the discarding stops, though no timer of its own has fired.
      vi.advanceTimersByTime(10_001);
      await vi.waitFor(() => expect(endless.cancelled).toBe(true));
      const stoppedAt = endless.pulled;
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(endless.pulled - stoppedAt).toBeLessThanOrEqual(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("guards a route: the session, or a ready response with the reason", async () => {
    const auth = handler();
    const demo = await logIn(auth);
    const requireSession = auth.requireSession();
    const passed = await requireSession(new Request(`${SITE}/players`, { headers: { Cookie: demo.cookie } }));
    expect(passed.auth?.user).toMatchObject({ uid: "14", name: "demo" });
    expect(passed.auth?.user).not.toHaveProperty("passwordHash");
    const noToken = await requireSession(new Request(`${SITE}/players`, { method: "POST", headers: { Cookie: demo.cookie } }));
    expect([noToken.response?.status, noToken.response?.statusText, noToken.error?.code]).toEqual([401, "Unauthorized : CSRF validation failed", "ERR_CSRF"]);
    const queryToken = await requireSession(new Request(`${SITE}/players?services_token=${demo.token}`, { method: "POST", headers: { Cookie: demo.cookie } }));
    expect(queryToken.auth?.user.name).toBe("demo");
    const stale = await requireSession(new Request(`${SITE}/players`, { headers: { Cookie: `${demo.session_name}=stale` } }));
    expect([stale.response?.status, stale.response?.headers.getSetCookie()[0]]).toEqual([401, expect.stringMatching(/=deleted; /)]);
    const optional = await auth.optionalSession()(new Request(`${SITE}/players`));
    expect(optional).toEqual({ auth: undefined, headers: {} });
    expect(
      (await auth.requireSession({ roles: ["administrator"] })(new Request(`${SITE}/players`, { headers: { Cookie: demo.cookie } }))).response?.status,
    ).toBe(403);
  });

  it("reads the client from the runtime's env as Hono does, or the clientAddress option, and the request only from the Request", async () => {
    const auth = handler({ onEvent: (event) => void (event.type === "address.unknown" && unknown.push(event.message)) });
    const unknown: string[] = [];
    const demo = await logIn(auth);
    const requireSession = auth.requireSession();
    const me = () => new Request(`${SITE}/players`, { headers: { Cookie: demo.cookie } });
    // Node ({ incoming }), Bun (the server's requestIP), Deno (the handler's info): each as Hono's c.env carries it.
    const envs = [node("::ffff:192.0.2.1"), { requestIP: () => ({ address: "192.0.2.2" }) }, { remoteAddr: { hostname: "192.0.2.3" } }];
    for (const env of envs) expect((await requireSession(me(), env)).auth?.user.name).toBe("demo");
    await auth.endUserSessions("14");
    const addresses = [];
    for (const env of [...envs, undefined]) {
      await auth.handle(post("/services/json/user/login.json", JSON.stringify({ username: "demo", password: "demo-password" })), env);
      addresses.push((await auth.listSessions("14")).at(-1)?.record.ip);
    }
    expect(addresses).toEqual(["192.0.2.1", "192.0.2.2", "192.0.2.3", ""]);
    // Without an address, the fix names this handler's own ways of giving one.
    expect(unknown).toEqual([expect.stringContaining("createSessionAuthHandler({ clientAddress: (request, env) => … })")]);
    // The app's own reading wins (a Worker: a header its platform sets).
    const worker = handler({ clientAddress: (request) => request.headers.get("cf-connecting-ip") ?? undefined });
    await worker.handle(
      post("/services/json/user/login.json", JSON.stringify({ username: "demo", password: "demo-password" }), { "CF-Connecting-IP": "198.51.100.4" }),
    );
    expect((await worker.listSessions("14"))[0]?.record.ip).toBe("198.51.100.4");
    expect(() => handler({ clientAddress: "cf-connecting-ip" as never })).toThrow(/createSessionAuthHandler: invalid options: clientAddress/);
    // No back door: nothing beside the Request stands for its headers.
    const smuggled = { incoming: { socket: { remoteAddress: "127.0.0.1" }, headers: { cookie: demo.cookie } } } as RuntimeEnv;
    expect((await requireSession(new Request(`${SITE}/players`), smuggled)).error?.code).toBe("ERR_UNAUTHENTICATED");
  });

  it("believes X-Forwarded-For and X-Forwarded-Proto only from the proxies trustProxy names, as Express's trust proxy", async () => {
    expect(() => handler({ trustProxy: "10.0.0.300" })).toThrow(/^createSessionAuthHandler: invalid options: trustProxy: .*10\.0\.0\.300/);
    expect(() => handler({ trustProxy: -1 })).toThrow(/createSessionAuthHandler: invalid options: trustProxy/);
    /** Logs in through a peer, with forwarded headers; resolves the address the session records and whether its cookie is the HTTPS one. */
    async function seen(trustProxy: FetchSessionAuthOptions["trustProxy"], clientAddress: string | undefined) {
      const auth = handler(trustProxy === undefined ? {} : { trustProxy });
      const reply = await auth.handle(
        post("/services/json/user/login.json", JSON.stringify({ username: "demo", password: "demo-password" }), {
          "X-Forwarded-For": "203.0.113.9, 198.51.100.7",
          "X-Forwarded-Proto": "https",
        }),
        node(clientAddress),
      );
      expect(reply?.status).toBe(200);
      const [session] = await auth.listSessions("14");
      return [session?.record.ip, reply!.headers.getSetCookie()[0]!.startsWith("SSESS")];
    }
    // No proxy believed: the peer is the client, whatever the headers say.
    expect(await seen(undefined, "127.0.0.1")).toEqual(["127.0.0.1", false]);
    // The loopback proxy is believed; the address it appended is the client's (the one before it, the client's own claim).
    expect(await seen("loopback", "::ffff:127.0.0.1")).toEqual(["198.51.100.7", true]);
    expect(await seen(["127.0.0.1", "198.51.100.7"], "127.0.0.1")).toEqual(["203.0.113.9", true]);
    // A peer that is not a listed proxy sends what it likes, and none of it counts.
    expect(await seen("loopback", "192.0.2.50")).toEqual(["192.0.2.50", false]);
    // A hop count: a proxy on a Unix socket, where the peer has no address.
    expect(await seen(1, undefined)).toEqual(["198.51.100.7", true]);
    expect(await seen((address: string | undefined, hop: number) => hop === 0 && address === undefined, undefined)).toEqual(["198.51.100.7", true]);
    // Every hop: the first address listed, which a client can set itself.
    expect(await seen(true, "127.0.0.1")).toEqual(["203.0.113.9", true]);
  });

  it("keeps a guard's promise: a request that cannot be read rejects it, never throws where the guard is called", async () => {
    const auth = handler({ trustedOrigins: ["capacitor://localhost"] });
    const demo = await logIn(auth);
    const unreadable = Object.defineProperty(new Request(`${SITE}/players`), "headers", {
      get() {
        throw new Error("unreadable headers");
      },
    });
    let called: Promise<unknown> | undefined;
    expect(() => (called = auth.requireSession()(unreadable))).not.toThrow();
    await expect(called).rejects.toThrow("unreadable headers");
    // Decided at once over the memory stores, and still a promise.
    const passed = auth.requireSession()(new Request(`${SITE}/players`, { headers: { Cookie: demo.cookie } }));
    expect(passed).toBeInstanceOf(Promise);
    expect((await passed).auth?.user.name).toBe("demo");
  });

  it("answers what no route answered, and errors, in the wire format", async () => {
    const auth = handler();
    const notFound = auth.notFound({ resources: ["players"] });
    expect(notFound(new Request(`${SITE}/services/json/players/9`)).statusText).toBe("Not found : Could not find the controller.");
    expect(notFound(new Request(`${SITE}/services/json/teams`)).statusText).toBe("Not found : Could not find resource teams.");
    expect(notFound(new Request(`${SITE}/?q=services/json/teams`)).statusText).toBe("Not found : Could not find resource teams.");
    expect(notFound(new Request(`${SITE}/teams`)).statusText).toBe("Not Found");
    expect(auth.errorResponse(new SessionAuthError("ERR_FORBIDDEN", "demo")).status).toBe(403);
    const crash = auth.errorResponse(new Error("bug"));
    expect([crash.status, await crash.text()]).toEqual([500, ""]);
  });

  it("starts and ends sessions for the app, and adds a guard's cookies to any response", async () => {
    const auth = handler();
    const user = await memoryUserStore(USERS, { hasher: fastHasher }).findById("14");
    const opened = new Headers();
    const started = await auth.startSession(new Request(`${SITE}/sso`), opened, user!, node("::ffff:203.0.113.5"));
    const cookie = opened.getSetCookie()[0]!.split(";", 1)[0]!;
    expect(started.session_name).toBe(cookie.split("=")[0]);
    expect(opened.get("Cache-Control")).toBe("no-store");
    expect((await auth.listSessions("14"))[0]?.record.ip).toBe("203.0.113.5");
    const closed = new Headers();
    expect(await auth.endSession(new Request(`${SITE}/bye`, { headers: { Cookie: cookie } }), closed)).toBe(true);
    expect(closed.getSetCookie()[0]).toMatch(/=deleted; /);
    expect(await auth.endSession(new Request(`${SITE}/bye`, { headers: { Cookie: cookie } }), new Headers())).toBe(false);
    const redirect = auth.withHeaders(Response.redirect(`${SITE}/home`, 302), { "Set-Cookie": ["a=b"] });
    expect([redirect.status, redirect.headers.get("location"), redirect.headers.getSetCookie()]).toEqual([302, `${SITE}/home`, ["a=b"]]);
  });

  it("gives the app what CORS adds to its own responses: a guard's headers, and those of the paths CORS covers", async () => {
    const APP = "capacitor://localhost";
    const auth = handler({ trustedOrigins: [APP], cors: { paths: ["/api/*"] } });
    const demo = await logIn(auth, SITE, { Origin: APP });
    const from = (path: string, headers: Record<string, string> = {}) => new Request(SITE + path, { headers: { Origin: APP, ...headers } });
    const preflight = await auth.requireSession()(
      new Request(`${SITE}/elsewhere`, { method: "OPTIONS", headers: { Origin: APP, "Access-Control-Request-Method": "PUT" } }),
    );
    // Answered by the guard, as on every binding: a response (never a pass into the route), without an error.
    expect([preflight.response?.status, preflight.error, preflight.auth, preflight.response?.headers.get("access-control-allow-origin")]).toEqual([
      204,
      undefined,
      undefined,
      APP,
    ]);
    const passed = await auth.requireSession()(from("/elsewhere", { Cookie: demo.cookie }));
    if (passed.response !== undefined) throw new Error("refused");
    expect(passed.headers).toEqual({ "Access-Control-Allow-Origin": APP, "Access-Control-Allow-Credentials": "true", Vary: "Origin" });
    // The app's Vary kept; an immutable response too.
    const own = auth.withHeaders(Response.json([], { headers: { Vary: "Accept" } }), passed.headers);
    expect([own.headers.get("access-control-allow-origin"), own.headers.get("vary")]).toEqual([APP, "Accept, Origin"]);
    const redirect = auth.withHeaders(Response.redirect(`${SITE}/home`, 302), { ...passed.headers, "Set-Cookie": ["a=b"] });
    expect([redirect.headers.get("location"), redirect.headers.getSetCookie(), redirect.headers.get("access-control-allow-origin")]).toEqual([
      `${SITE}/home`,
      ["a=b"],
      APP,
    ]);
    const untouched = Response.json([]);
    expect(auth.withHeaders(untouched, {})).toBe(untouched);
    // A copy (the original left as it was), and none for a response made with them all already.
    const made = Response.json([], { headers: { Vary: "Accept" } });
    expect(auth.withHeaders(made, passed.headers)).not.toBe(made);
    expect(made.headers.has("access-control-allow-origin")).toBe(false);
    const carrying = new Response("[]", { headers: { ...passed.headers, Vary: "Accept, Origin", "Set-Cookie": "a=b" } });
    expect(auth.withHeaders(carrying, { ...passed.headers, "Set-Cookie": ["a=b"] })).toBe(carrying);
    const lacksCookie = auth.withHeaders(carrying, { ...passed.headers, "Set-Cookie": ["a=b", "c=d"] });
    expect(lacksCookie.headers.getSetCookie()).toEqual(["a=b", "c=d"]);
    // An unguarded route, a 404 on the paths CORS covers; nothing elsewhere.
    expect(auth.withCors(from("/api/notes"), Response.json([])).headers.get("access-control-allow-origin")).toBe(APP);
    const notFound = auth.notFound()(from("/services/json/teams"));
    expect(auth.withCors(from("/services/json/teams"), notFound).headers.get("access-control-allow-origin")).toBe(APP);
    expect(auth.withCors(from("/elsewhere"), Response.json([])).headers.has("access-control-allow-origin")).toBe(false);
    // handle answers the preflights of those paths, and no other request of the app's.
    const atApi = await auth.handle(new Request(`${SITE}/api/notes`, { method: "OPTIONS", headers: { Origin: APP, "Access-Control-Request-Method": "POST" } }));
    expect(atApi?.status).toBe(204);
    expect(await auth.handle(from("/api/notes"))).toBeUndefined();
  });
});
