import express from "express";
import { describe, expect, it } from "vitest";
import request from "supertest";
import { memorySessionStore, memoryUserStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { createTestApp, login, SECRET, statusText } from "../helpers/app.js";

describe("SessionAuthRouter.requireSession", () => {
  it("lets a live session through and attaches req.auth, without the password hash", async () => {
    let auth: unknown;
    const { app } = createTestApp({}, undefined, (app, sessionAuth) => {
      app.get("/services/json/whoami", sessionAuth.requireSession(), (req, res) => {
        auth = req.auth;
        res.json({});
      });
    });
    const session = await login(app);
    expect((await request(app).get("/services/json/players").set("Cookie", session.cookie)).body).toEqual({ players: ["Ana"], uid: "14" });
    expect((await request(app).get("/services/json/whoami").set("Cookie", session.cookie)).status).toBe(200);
    expect(auth).toMatchObject({ user: { uid: "14", name: "demo", roles: { "2": "authenticated user" } }, session: { record: { uid: "14" } } });
    expect((auth as { user: object }).user).not.toHaveProperty("passwordHash");
    expect((auth as { session: { handle: string } }).session.handle).not.toBe(session.sessid);
    // Read-only as its type says: one request cannot change what the next one sees.
    expect(Object.isFrozen((auth as { user: object }).user)).toBe(true);
  });

  it("answers 401 in the wire format without a session, with a junk cookie, or after logout", async () => {
    const { app, agent } = createTestApp();
    const none = await agent.get("/services/json/players");
    expect(none.status).toBe(401);
    expect(statusText(none)).toBe("Unauthorized : Access denied for user anonymous");
    expect(none.text).toBe('["Access denied for user anonymous"]');
    expect(none.headers["content-type"]).toBe("application/json");
    const session = await login(app);
    const junk = await agent.get("/services/json/players").set("Cookie", `${session.session_name}=junk`);
    expect(junk.status).toBe(401);
    await agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
  });

  it("checks the CSRF token on unsafe methods only, and can be turned off per route", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    const denied = await agent.post("/services/json/players").set("Cookie", session.cookie).send({});
    expect(denied.status).toBe(401);
    expect(denied.text).toBe('["CSRF validation failed"]');
    const allowed = await agent.post("/services/json/players").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send({});
    expect(allowed.status).toBe(200);
    const viaQuery = await agent.post(`/services/json/players?services_token=${session.token}`).set("Cookie", session.cookie).send({});
    expect(viaQuery.status).toBe(200);
    const open = await agent.post("/services/json/open").set("Cookie", session.cookie).send({});
    expect(open.status).toBe(200);
  });

  it("takes services_token from a form body the app parsed, never from a JSON body", async () => {
    const { app } = createTestApp({}, undefined, (app, auth) => {
      app.post("/services/json/teams", express.urlencoded({ extended: false }), express.json(), auth.requireSession(), (_req, res) => res.json({ ok: true }));
    });
    const session = await login(app);
    const form = await request(app).post("/services/json/teams").set("Cookie", session.cookie).type("form").send({ services_token: session.token });
    expect(form.status).toBe(200);
    const wrong = await request(app).post("/services/json/teams").set("Cookie", session.cookie).type("form").send({ services_token: "x" });
    expect(wrong.status).toBe(401);
    const json = await request(app).post("/services/json/teams").set("Cookie", session.cookie).send({ services_token: session.token });
    expect(json.status).toBe(401);
    expect(json.text).toBe('["CSRF validation failed"]');
  });

  it("rejects a token from another session", async () => {
    const { app, agent } = createTestApp();
    const a = await login(app);
    const b = await login(app);
    const res = await agent.post("/services/json/players").set("Cookie", a.cookie).set("X-CSRF-Token", b.token).send({});
    expect(res.status).toBe(401);
  });

  it("answers 403 without a required role", async () => {
    const { app, agent } = createTestApp();
    const demo = await login(app);
    const res = await agent.get("/services/json/admin").set("Cookie", demo.cookie);
    expect(res.status).toBe(403);
    expect(statusText(res)).toBe(": Access denied for user demo");
    const admin = await login(app, "admin", "admin-password");
    expect((await agent.get("/services/json/admin").set("Cookie", admin.cookie)).status).toBe(200);
  });

  it("throws a TypeError at start-up for an invalid guard option", () => {
    const auth = createSessionAuthRouter({ userStore: memoryUserStore([]), sessionStore: memorySessionStore(), secret: SECRET });
    expect(() => auth.requireSession({ roles: "admin" } as never)).toThrow(TypeError);
    expect(() => auth.requireSession({ csrf: "yes" } as never)).toThrow(/requireSession: invalid options: csrf/);
    expect(() => auth.requireSession({ secret: SECRET } as never)).toThrow(/Unrecognized key: "secret"/);
    expect(() => auth.requireSession({ csrf: false, roles: ["administrator"] })).not.toThrow();
  });
});
