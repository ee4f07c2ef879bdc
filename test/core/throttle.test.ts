import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { floodOf } from "../../src/core/throttle.js";
import { createTestApp, statusText } from "../helpers/app.js";

const limits = { ipLimit: 50, ipWindow: 3600, userLimit: 5, userWindow: 21_600, perAccountOnly: false };

describe("floodOf", () => {
  it("blocks on the IP limit first, then the account's", () => {
    expect(floodOf(49, 4, limits)).toBeNull();
    expect(floodOf(50, 0, limits)).toBe("ip");
    expect(floodOf(50, 5, limits)).toBe("ip");
    expect(floodOf(0, 5, limits)).toBe("user");
  });
});

describe("login throttling", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-21T12:00:00Z") });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("blocks an account after 5 failures from one IP, even with the right password, and says so", async () => {
    const { agent, events } = createTestApp();
    for (let i = 0; i < 5; i += 1) {
      expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" })).status).toBe(401);
    }
    const blocked = await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(blocked.status).toBe(406);
    expect(statusText(blocked)).toBe("Not Acceptable : Account is temporarily blocked.");
    expect(blocked.text).toBe('["Account is temporarily blocked."]');
    expect(events.some((e) => e.type === "login.throttled" && e.scope === "user")).toBe(true);
    // Another account from the same IP is not affected.
    expect((await agent.post("/services/json/user/login").send({ username: "admin", password: "admin-password" })).status).toBe(200);
  });

  it("lifts the account block when its window ends", async () => {
    const { agent } = createTestApp({ throttle: { userLimit: 2, userWindow: 60 } });
    for (let i = 0; i < 2; i += 1) await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(406);
    vi.setSystemTime(Date.now() + 61_000);
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(200);
  });

  it("blocks an IP after its limit, whatever the name", async () => {
    const { agent } = createTestApp({ throttle: { ipLimit: 3 } });
    for (const name of ["a", "b", "c"]) await agent.post("/services/json/user/login").send({ username: name, password: "x" });
    const res = await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(406);
    expect(res.text).toBe('["This IP address is temporarily blocked."]');
  });

  it("clears the account's count after a success from the same IP", async () => {
    const { agent } = createTestApp({ throttle: { userLimit: 3 } });
    for (let i = 0; i < 2; i += 1) await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(200);
  });

  it("checks before hashing: a throttled attempt never reaches the hasher", async () => {
    const { fastHasher } = await import("../helpers/app.js");
    let verifies = 0;
    const hasher = { ...fastHasher, verify: (hash: string, password: string) => ((verifies += 1), fastHasher.verify(hash, password)) };
    const { agent } = createTestApp({ hasher, throttle: { userLimit: 1 } });
    await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    expect(verifies).toBe(1);
    await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(verifies).toBe(1);
  });

  it("uses req.ip only: a spoofed X-Forwarded-For does not reset the count", async () => {
    const { agent } = createTestApp({ throttle: { userLimit: 2 } });
    for (let i = 0; i < 2; i += 1) {
      await agent.post("/services/json/user/login").set("X-Forwarded-For", `10.0.0.${i}`).send({ username: "demo", password: "wrong" });
    }
    const res = await agent.post("/services/json/user/login").set("X-Forwarded-For", "10.9.9.9").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(406);
  });

  it("counts nothing for a blocked account or a malformed request", async () => {
    const { agent, counterStore, events } = createTestApp();
    await agent.post("/services/json/user/login").send({ username: "blocked", password: "x" });
    await agent.post("/services/json/user/login").send({ username: { $ne: 1 }, password: ["x"] });
    await agent.post("/services/json/user/login").send({});
    const ip = (events.find((e) => e.type === "login.failure") as { ip: string }).ip;
    expect(await counterStore.get(`flood:ip:${ip}`)).toBe(0);
    await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    expect(await counterStore.get(`flood:ip:${ip}`)).toBe(1);
  });

  it("can be turned off", async () => {
    const { agent } = createTestApp({ throttle: false });
    for (let i = 0; i < 7; i += 1) await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(200);
  });
});
