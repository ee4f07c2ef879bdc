import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { memoryCounterStore, memorySessionStore, memoryUserStore, sessionCookieFor, type AuthEvent, type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { createTestApp, fastHasher, login, SECRET, setCookies, USERS } from "../helpers/app.js";

/** An app that signs users in by its own means (a single sign-on callback), and signs them out. */
function ssoApp(overrides: Partial<SessionAuthOptions> = {}) {
  const userStore = memoryUserStore(USERS, { hasher: fastHasher });
  const sessionStore = memorySessionStore();
  const auth = createSessionAuthRouter({
    userStore,
    sessionStore,
    counterStore: memoryCounterStore(),
    secret: SECRET,
    hasher: fastHasher,
    baseUrl: "http://sports.test",
    ...overrides,
  });
  const app = express();
  app.use(auth);
  app.post("/sso/callback/:uid", async (req, res, next) => {
    try {
      const user = await userStore.findById(req.params.uid!);
      if (user === null) return void res.status(404).end();
      res.json(await auth.startSession(req, res, user));
    } catch (error) {
      next(error);
    }
  });
  app.post("/sso/signout", async (req, res) => res.json({ ended: await auth.endSession(req, res) }));
  app.get("/home", auth.optionalSession(), (req, res) => res.json({ name: req.auth?.user.name ?? null }));
  app.post("/home", auth.optionalSession(), (req, res) => res.json({ name: req.auth?.user.name ?? null }));
  app.get("/devices", auth.requireSession(), async (req, res) => res.json(await auth.listSessions(req.auth!.user.uid)));
  app.use(auth.errorHandler());
  return { app, auth, sessionStore };
}

describe("SessionAuthRouter.startSession", () => {
  it("opens a session for a user the app authenticated, with the login reply and a Drupal client's cookie", async () => {
    const { app } = ssoApp();
    const res = await request(app).post("/sso/callback/14");
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = res.body as { sessid: string; session_name: string; token: string; user: { uid: string; login: number } };
    expect(body).toMatchObject({ session_name: expect.stringMatching(/^SESS/), user: { uid: "14", name: "demo" } });
    expect(setCookies(res)).toEqual([expect.stringMatching(new RegExp(`^${body.session_name}=${body.sessid}; expires=`))]);
    // The session is a session like any other: Services' calls and the guards see it.
    const cookie = `${body.session_name}=${body.sessid}`;
    const connect = await request(app).post("/services/json/system/connect").set("Cookie", cookie).set("X-CSRF-Token", body.token);
    expect((connect.body as { user: { uid: string } }).user.uid).toBe("14");
  });

  it("rotates: a session the request carried ends, and the new id is new", async () => {
    const { app } = ssoApp();
    const first = await login(app);
    const res = await request(app).post("/sso/callback/1").set("Cookie", first.cookie);
    expect((res.body as { sessid: string }).sessid).not.toBe(first.sessid);
    expect((await request(app).get("/home").set("Cookie", first.cookie)).body).toEqual({ name: null });
  });

  it("refuses a blocked account in the wire format", async () => {
    const { app } = ssoApp();
    const res = await request(app).post("/sso/callback/15");
    expect(res.status).toBe(403);
    expect(res.text).toBe('["The username <em class=\\"placeholder\\">blocked</em> has not been activated or is blocked."]');
    expect(setCookies(res)).toEqual([]);
  });
});

describe("SessionAuthRouter.endSession", () => {
  it("ends the request's session and deletes its cookie; a second time there is none", async () => {
    const { app } = ssoApp();
    const session = await login(app);
    const res = await request(app).post("/sso/signout").set("Cookie", session.cookie);
    expect(res.body).toEqual({ ended: true });
    expect(setCookies(res)[0]).toMatch(new RegExp(`^${session.session_name}=deleted; `));
    expect((await request(app).post("/sso/signout").set("Cookie", session.cookie)).body).toEqual({ ended: false });
    expect((await request(app).get("/home").set("Cookie", session.cookie)).body).toEqual({ name: null });
  });
});

describe("SessionAuthRouter.optionalSession", () => {
  it("attaches req.auth for a live session and lets everyone else through as anonymous", async () => {
    const { app } = ssoApp();
    const session = await login(app);
    expect((await request(app).get("/home")).body).toEqual({ name: null });
    expect((await request(app).get("/home").set("Cookie", session.cookie)).body).toEqual({ name: "demo" });
    expect((await request(app).get("/home").set("Cookie", `${session.session_name}=forged`)).body).toEqual({ name: null });
  });

  it("counts a session on an unsafe method only with its CSRF token", async () => {
    const { app } = ssoApp();
    const session = await login(app);
    expect((await request(app).post("/home").set("Cookie", session.cookie)).body).toEqual({ name: null });
    expect((await request(app).post("/home").set("Cookie", session.cookie).set("X-CSRF-Token", session.token)).body).toEqual({ name: "demo" });
  });

  it("takes no csrf or roles, even from JavaScript: a cookie alone must never count on a POST", () => {
    const auth = createSessionAuthRouter({
      userStore: memoryUserStore(USERS, { hasher: fastHasher }),
      sessionStore: memorySessionStore(),
      secret: SECRET,
      hasher: fastHasher,
    });
    expect(() => auth.optionalSession({ csrf: false } as never)).toThrow(/optionalSession: invalid options: .*csrf/);
    expect(() => auth.optionalSession({ roles: ["admin"] } as never)).toThrow(TypeError);
    expect(() => auth.optionalSession({ onDenied: "next" })).not.toThrow();
  });

  it("still answers 503 when the store fails, never a silent anonymous page", async () => {
    const { app } = ssoApp({ sessionStore: { ...memorySessionStore(), get: () => Promise.reject(new Error("down")) } });
    const res = await request(app)
      .get("/home")
      .set("Cookie", `${sessionCookieFor("http://sports.test/").name}=x`);
    expect(res.status).toBe(503);
  });
});

describe("SessionAuthRouter.listSessions and endUserSessions", () => {
  it("list a user's devices oldest first and end them all, with one audit event", async () => {
    const events: AuthEvent[] = [];
    const { app, auth } = ssoApp({ onEvent: (event) => void events.push(event) });
    const phone = await login(app);
    const laptop = await login(app);
    const devices = (await request(app).get("/devices").set("Cookie", phone.cookie)).body as { handle: string; record: { uid: string } }[];
    expect(devices).toHaveLength(2);
    expect(devices.every((device) => device.record.uid === "14" && !device.handle.includes(phone.sessid))).toBe(true);
    expect(await auth.endUserSessions("14")).toBe(2);
    expect(events.filter((event) => event.type === "logout.everywhere")).toMatchObject([{ type: "logout.everywhere", uid: "14", sessions: 2 }]);
    for (const device of [phone, laptop]) expect((await request(app).get("/devices").set("Cookie", device.cookie)).status).toBe(401);
  });
});

describe("one createSessionAuthRouter, many pieces", () => {
  it("validates the options once, however many guards and routers it hands out", () => {
    let reads = 0;
    const options = new Proxy(createTestApp().options, {
      get(target, key, receiver) {
        reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const auth = createSessionAuthRouter(options);
    const atFactory = reads;
    expect(atFactory).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      auth.requireSession();
      auth.optionalSession();
      auth.notFound();
    }
    // The pieces read nothing more from the caller's object: it was resolved at the factory.
    expect(reads).toBe(atFactory);
  });

  it("shares one login throttle between two mounts of the same router", async () => {
    const { options } = createTestApp({ throttle: { userLimit: 2 } });
    const auth = createSessionAuthRouter(options);
    const app = express();
    app.use(auth);
    app.use("/api/v1", auth);
    for (const path of ["/services/json/user/login", "/api/v1/services/json/user/login"]) {
      expect((await request(app).post(path).send({ username: "demo", password: "wrong" })).status).toBe(401);
    }
    // Two failures, one through each mount: the account's limit is reached for both.
    const blocked = await request(app).post("/api/v1/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(blocked.status).toBe(406);
  });
});

describe('SessionAuthRouter.requireSession({ onDenied: "next" })', () => {
  it("hands a denial to the app's error handlers, with the status the wire format gives it", async () => {
    const page = express();
    const sent: unknown[] = [];
    const { app, auth } = ssoApp();
    page.get("/account", auth.requireSession({ onDenied: "next" }), (_req, res) => res.send("account"));
    page.get("/admin", auth.requireSession({ roles: ["administrator"], onDenied: "next" }), (_req, res) => res.send("admin"));
    // A web page's own answer: a redirect to its login form.
    page.use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
      sent.push([(err as { code: string }).code, (err as { status: number }).status]);
      if ((err as { status?: number }).status === 401) return res.redirect(303, "/login");
      next(err);
    });
    page.use(auth.errorHandler());
    const anonymous = await request(page).get("/account");
    expect([anonymous.status, anonymous.headers.location]).toEqual([303, "/login"]);
    // A signed-in user without the role: past the app's handler, errorHandler() answers as the guard would.
    const signedIn = (await request(app).post("/sso/callback/14")).body as { session_name: string; sessid: string };
    const forbidden = await request(page).get("/admin").set("Cookie", `${signedIn.session_name}=${signedIn.sessid}`);
    expect([forbidden.status, forbidden.text]).toEqual([403, '["Access denied for user demo"]']);
    expect(sent).toEqual([
      ["ERR_UNAUTHENTICATED", 401],
      ["ERR_FORBIDDEN", 403],
    ]);
    expect(() => auth.requireSession({ onDenied: "throw" } as never)).toThrow(/onDenied/);
  });

  it("still answers in the wire format by default, and for optionalSession only a failing store is a denial", async () => {
    const { app } = ssoApp({ sessionStore: { ...memorySessionStore(), get: () => Promise.reject(new Error("down")) } });
    const optional = express();
    const { auth } = ssoApp({ sessionStore: { ...memorySessionStore(), get: () => Promise.reject(new Error("down")) } });
    const codes: string[] = [];
    optional.get("/home", auth.optionalSession({ onDenied: "next" }), (_req, res) => res.send("home"));
    optional.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      codes.push((err as { code: string }).code);
      res.status((err as { status: number }).status).send("sorry");
    });
    expect((await request(optional).get("/home")).text).toBe("home");
    const res = await request(optional)
      .get("/home")
      .set("Cookie", `${sessionCookieFor("http://sports.test/").name}=x`);
    expect([res.status, res.text, codes]).toEqual([503, "sorry", ["ERR_STORE_UNAVAILABLE"]]);
    expect(
      (
        await request(app)
          .get("/home")
          .set("Cookie", `${sessionCookieFor("http://sports.test/").name}=x`)
      ).status,
    ).toBe(503);
  });
});

describe("a memory user store right after start-up", () => {
  it("holds the first logins until its passwords are hashed, and never counts that wait as a store timeout", async () => {
    // Hashing slower than storeTimeout, as the default scrypt is with a few users.
    const slowHasher = {
      ...fastHasher,
      hash: async (password: string) => (await new Promise((resolve) => setTimeout(resolve, 300)), fastHasher.hash(password)),
    };
    const userStore = memoryUserStore(USERS, { hasher: slowHasher });
    let hashed = false;
    void userStore.ready.then(() => (hashed = true));
    const events: string[] = [];
    const auth = createSessionAuthRouter({
      userStore,
      sessionStore: memorySessionStore(),
      secret: SECRET,
      hasher: fastHasher,
      storeTimeout: 0.05,
      onEvent: (event) => events.push(event.type),
    });
    const app = express().use(auth);
    const login = request(app).post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    const res = await login;
    expect(res.status).toBe(200);
    expect(hashed).toBe(true);
    expect(events).toEqual(["login.success"]);
  });

  it("answers 503 for every call when the store cannot get ready", async () => {
    const broken = { ...memoryUserStore([]), ready: Promise.reject(new Error("users table missing")) };
    broken.ready.catch(() => undefined);
    const events: string[] = [];
    const auth = createSessionAuthRouter({
      userStore: broken,
      sessionStore: memorySessionStore(),
      secret: SECRET,
      hasher: fastHasher,
      onEvent: (event) => events.push(event.type),
    });
    const res = await request(express().use(auth)).post("/services/json/user/login").send({ username: "demo", password: "x" });
    expect(res.status).toBe(503);
    expect(events).toEqual(["store.failure"]);
  });
});

describe("SessionAuthRouter.openApi", () => {
  it("resolves the document of these very options and the app's guarded routes", async () => {
    const { auth } = ssoApp();
    const document = await auth.openApi({ routes: [{ method: "get", path: "/services/json/players" }] });
    expect(Object.keys(document.paths ?? {})).toEqual(expect.arrayContaining(["/services/json/user/login.json", "/services/json/players"]));
  });
});
