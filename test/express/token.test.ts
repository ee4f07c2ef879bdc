import { describe, expect, it } from "vitest";
import { createTestApp, login } from "../helpers/app.js";

describe("services/session/token", () => {
  it("returns the session's token as bare text: 43 characters, no quotes, no newline", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    for (const method of ["get", "post"] as const) {
      const res = await agent[method]("/services/session/token").set("Cookie", session.cookie);
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("text/plain;charset=UTF-8");
      expect(res.text).toBe(session.token);
      expect(res.text).toMatch(/^[\w-]{43}$/);
    }
  });

  it("gives an anonymous caller a fresh random token every time and sets no cookie", async () => {
    const { agent } = createTestApp();
    const a = await agent.get("/services/session/token");
    const b = await agent.get("/services/session/token");
    expect(a.text).toMatch(/^[\w-]{43}$/);
    expect(a.text).not.toBe(b.text);
    expect(a.headers["set-cookie"]).toBeUndefined();
  });

  it("is routed from ?q= URLs as jDrupal calls it", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const res = await agent.get("/?q=services/session/token").set("Cookie", session.cookie);
    expect(res.text).toBe(session.token);
  });

  it("changes at login, so a token from before login is worthless after it", async () => {
    const { app } = createTestApp();
    const first = await login(app);
    const second = await login(app);
    expect(first.token).not.toBe(second.token);
  });
});

describe("POST user/token", () => {
  it("returns {token} for the session without any CSRF check", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const res = await agent.post("/services/json/user/token.json").set("Cookie", session.cookie).send();
    expect(res.status).toBe(200);
    expect(res.text).toBe(`{"token":"${session.token}"}`);
  });

  it("returns a random token for an anonymous caller", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/token").send();
    expect((res.body as { token: string }).token).toMatch(/^[\w-]{43}$/);
  });
});
