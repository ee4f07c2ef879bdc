import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, login } from "../helpers/app.js";
import { countCalls, fakeClock } from "../helpers/doubles.js";

describe("session lifecycle", () => {
  let clock: ReturnType<typeof fakeClock>;
  beforeEach(() => {
    clock = fakeClock();
  });
  afterEach(() => {
    clock.restore();
  });

  it("ends a session after the idle timeout, server-side", async () => {
    const { app, agent, events } = createTestApp({ idleTimeout: 600 });
    const session = await login(app);
    clock.advance(599);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    clock.advance(601);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
    expect(events.some((e) => e.type === "session.expired" && e.reason === "idle")).toBe(true);
  });

  it("ends a session at the absolute timeout however active it is", async () => {
    const { app, agent, events } = createTestApp({ idleTimeout: 600, absoluteTimeout: 1000, touchInterval: 0 });
    const session = await login(app);
    for (let t = 0; t < 900; t += 300) {
      clock.advance(300);
      expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    }
    clock.advance(101);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
    expect(events.some((e) => e.type === "session.expired" && e.reason === "absolute")).toBe(true);
  });

  it("writes the last-seen time at most once per touch interval: a protected GET is one store read", async () => {
    const base = createTestApp();
    const { proxy, calls, reset } = countCalls(base.sessionStore);
    const { app, agent } = createTestApp({ sessionStore: proxy, touchInterval: 180 });
    const session = await login(app);
    reset();
    for (let i = 0; i < 5; i += 1) await agent.get("/services/json/players").set("Cookie", session.cookie);
    expect(calls).toEqual({ get: 5 });
    clock.advance(181);
    await agent.get("/services/json/players").set("Cookie", session.cookie);
    expect(calls).toEqual({ get: 6, touch: 1 });
  });

  it("caps concurrent sessions per user, ending the oldest", async () => {
    const { app, agent, sessionStore, events } = createTestApp({ maxSessionsPerUser: 2 });
    const first = await login(app);
    clock.advance(1);
    const second = await login(app);
    clock.advance(1);
    const third = await login(app);
    expect((await agent.get("/services/json/players").set("Cookie", first.cookie)).status).toBe(401);
    expect((await agent.get("/services/json/players").set("Cookie", second.cookie)).status).toBe(200);
    expect((await agent.get("/services/json/players").set("Cookie", third.cookie)).status).toBe(200);
    expect((await sessionStore.listByUser("14")).length).toBe(2);
    expect(events.filter((e) => e.type === "session.revoked" && e.reason === "session-limit")).toHaveLength(1);
  });

  it("lists a user's sessions with created, last seen, IP and user agent, and logs out everywhere", async () => {
    const { app, agent, sessionStore } = createTestApp();
    const phone = await login(app);
    const tablet = await login(app);
    const other = await login(app, "admin", "admin-password");
    const listed = await sessionStore.listByUser("14");
    expect(listed).toHaveLength(2);
    expect(listed[0]!.record).toMatchObject({
      uid: "14",
      ip: expect.any(String),
      userAgent: expect.any(String),
      createdAt: expect.any(Number),
      lastSeenAt: expect.any(Number),
    });
    expect(await sessionStore.destroyByUser("14")).toBe(2);
    for (const session of [phone, tablet]) expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
    expect((await agent.get("/services/json/players").set("Cookie", other.cookie)).status).toBe(200);
  });

  it("voids the sessions of an account that is blocked after login", async () => {
    let active = true;
    const base = createTestApp();
    const userStore = {
      ...base.userStore,
      findById: async (uid: string) => {
        const user = await base.userStore.findById(uid);
        return user === null ? null : { ...user, active };
      },
      findByName: base.userStore.findByName,
      recordLogin: base.userStore.recordLogin,
      updatePasswordHash: base.userStore.updatePasswordHash,
    };
    const { app, agent, sessionStore } = createTestApp({ userStore });
    const session = await login(app);
    active = false;
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
    expect(await sessionStore.get(session.sessid)).toBeNull();
  });

  it("keeps only a hash of the session id in the store", async () => {
    const { app, sessionStore } = createTestApp();
    const session = await login(app);
    const stored = await sessionStore.get(session.sessid);
    expect(stored?.handle).toMatch(/^[\w-]{43}$/);
    expect(stored?.handle).not.toBe(session.sessid);
    expect(JSON.stringify(await sessionStore.listByUser("14"))).not.toContain(session.sessid);
  });
});
