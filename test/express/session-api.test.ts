import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createSessionAuth, memoryCounterStore, memorySessionStore, memoryUserStore, sessionCookieFor, type SessionAuthOptions } from "services-session-auth";
import { createTestApp, fastHasher, login, SECRET, setCookies, USERS } from "../helpers/app.js";

/** An app that signs users in by its own means (a single sign-on callback), and signs them out. */
function ssoApp(overrides: Partial<SessionAuthOptions> = {}) {
  const userStore = memoryUserStore(USERS, { hasher: fastHasher });
  const sessionStore = memorySessionStore();
  const auth = createSessionAuth({ userStore, sessionStore, counterStore: memoryCounterStore(), secret: SECRET, hasher: fastHasher, baseUrl: "http://sports.test", ...overrides });
  const app = express();
  app.use("/services/json", auth.router());
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

describe("SessionAuth.startSession", () => {
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

describe("SessionAuth.endSession", () => {
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

describe("SessionAuth.optionalSession", () => {
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

  it("still answers 503 when the store fails, never a silent anonymous page", async () => {
    const { app } = ssoApp({ sessionStore: { ...memorySessionStore(), get: () => Promise.reject(new Error("down")) } });
    const res = await request(app).get("/home").set("Cookie", `${sessionCookieFor("http://sports.test/").name}=x`);
    expect(res.status).toBe(503);
  });
});

describe("SessionAuth.listSessions and endUserSessions", () => {
  it("list a user's devices oldest first and end them all", async () => {
    const { app, auth } = ssoApp();
    const phone = await login(app);
    const laptop = await login(app);
    const devices = (await request(app).get("/devices").set("Cookie", phone.cookie)).body as { handle: string; record: { uid: string } }[];
    expect(devices).toHaveLength(2);
    expect(devices.every((device) => device.record.uid === "14" && !device.handle.includes(phone.sessid))).toBe(true);
    expect(await auth.endUserSessions("14")).toBe(2);
    for (const device of [phone, laptop]) expect((await request(app).get("/devices").set("Cookie", device.cookie)).status).toBe(401);
  });
});

describe("one createSessionAuth, many pieces", () => {
  it("validates the options once, however many guards and routers it hands out", () => {
    let reads = 0;
    const options = new Proxy(createTestApp().options, {
      get(target, key, receiver) {
        reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const auth = createSessionAuth(options);
    const atFactory = reads;
    expect(atFactory).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) {
      auth.requireSession();
      auth.optionalSession();
      auth.router();
      auth.tokenHandler();
    }
    // The pieces read nothing more from the caller's object: it was resolved at the factory.
    expect(reads).toBe(atFactory);
  });

  it("shares one login throttle between two routers of the same auth", async () => {
    const { options } = createTestApp({ throttle: { userLimit: 2 } });
    const auth = createSessionAuth(options);
    const app = express();
    app.use("/services/json", auth.router());
    app.use("/api/v1", auth.router());
    for (const path of ["/services/json/user/login", "/api/v1/user/login"]) {
      expect((await request(app).post(path).send({ username: "demo", password: "wrong" })).status).toBe(401);
    }
    // Two failures, one through each router: the account's limit is reached for both.
    const blocked = await request(app).post("/api/v1/user/login").send({ username: "demo", password: "demo-password" });
    expect(blocked.status).toBe(406);
  });
});
