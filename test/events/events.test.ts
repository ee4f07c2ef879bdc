import { describe, expect, it } from "vitest";
import { createTestApp, login } from "../helpers/app.js";

describe("audit events", () => {
  it("reports login success and failure, logout and CSRF rejections without raw ids, tokens or passwords", async () => {
    const { app, agent, events } = createTestApp();
    await agent.post("/services/json/user/login").send({ username: "nobody", password: "hunter2-secret" });
    await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong-secret" });
    await agent.post("/services/json/user/login").send({ username: "blocked", password: "x" });
    const session = await login(app);
    await agent.post("/services/json/players").set("Cookie", session.cookie).send({});
    await agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
    expect(events.map((e) => e.type)).toEqual(["login.failure", "login.failure", "login.failure", "login.success", "csrf.rejected", "logout"]);
    expect(events.slice(0, 3).map((e) => (e as { reason: string }).reason)).toEqual(["unknown-user", "wrong-password", "blocked"]);
    const text = JSON.stringify(events);
    for (const secret of [session.sessid, session.token, "hunter2-secret", "wrong-secret", "demo-password", "nobody"]) expect(text).not.toContain(secret);
    // Accounts by uid; a name with no account by a keyed hash (it may be a mistyped password).
    expect(events.slice(0, 3)).toMatchObject([{ nameHash: expect.stringMatching(/^[\w-]{22}$/) }, { uid: "14" }, { uid: "15" }]);
    expect(events.slice(0, 3).map((e) => "name" in e)).toEqual([false, false, false]);
    const success = events[3] as { session: string };
    expect(success.session).toMatch(/^[\w-]{43}$/);
    expect((events[5] as { session: string }).session).toBe(success.session);
  });

  it("keeps working when the listener throws", async () => {
    const { app } = createTestApp({
      onEvent: () => {
        throw new Error("listener bug");
      },
    });
    await expect(login(app)).resolves.toMatchObject({ user: { uid: "14" } });
  });
});
