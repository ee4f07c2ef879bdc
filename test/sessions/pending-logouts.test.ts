/**
 * A logout never leaves its session working: when the store cannot record it (full, or
 * failing), the user's sessions are ended everywhere instead, or, failing that too, the
 * logout is held in the process, which refuses the session and offers the logout to the
 * store until it takes it. Never "503, and still logged in".
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryCounterStore, memorySessionStore, type SessionStore } from "services-session-auth";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import { PendingLogouts } from "../../src/sessions/pending-logouts.js";
import { createTestApp, login, setCookies, statusText } from "../helpers/app.js";
import { aroundMethods } from "../helpers/doubles.js";

const password = "pending-logouts-test-password-32-characters";

/** A store whose writes (`destroy`, `destroyByUser`) fail while `failing` holds them; reads always work. */
function failingWrites(store: SessionStore, failing: Set<string>) {
  return aroundMethods(store, (name, call) => (failing.has(name) ? Promise.reject(new Error(`${name} refused`)) : call()));
}

async function logout(agent: ReturnType<typeof createTestApp>["agent"], session: { cookie: string; token: string }) {
  return agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
}

describe("a logout the store cannot record", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sealed cookies over a full memory revocation store: the logout succeeds, and the session is refused from then on", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const revocations = memoryCounterStore({ maxKeys: 50, whenFull: "reject" });
    const sessionStore = sealedCookieStore({ password, revocations });
    const { app, agent, events } = createTestApp({ sessionStore });
    const victim = await login(app);
    const bystander = await login(app, "admin", "admin-password");
    // Filled by other users' marks: a new key is refused, no old one is ever dropped.
    // (Keys of the marks' own namespace: each namespace is bounded on its own.)
    for (let i = 0; i < 50; i++) await revocations.increment(`sealed:other:${i}`, 600);

    const res = await logout(agent, victim);
    expect(res.status).toBe(200);
    expect(res.text).toBe("[true]");
    expect(setCookies(res).join()).toMatch(/=deleted;/);
    expect((await agent.get("/services/json/players").set("Cookie", victim.cookie)).status).toBe(401);
    expect((await agent.get("/services/json/players").set("Cookie", bystander.cookie)).status).toBe(200);
    expect(events.filter((event) => event.type === "store.failure").map((event) => event.type === "store.failure" && event.operation)).toEqual([
      "sessionStore.destroy",
      "sessionStore.destroyByUser",
    ]);

    // Another instance over the same revocations does not see it yet; once the store has
    // room, the held logout is written, and it does.
    const other = createTestApp({ sessionStore: sealedCookieStore({ password, revocations }) });
    for (let i = 0; i < 10; i++) await revocations.delete(`sealed:other:${i}`);
    await vi.advanceTimersByTimeAsync(5000);
    expect((await other.agent.get("/services/json/players").set("Cookie", victim.cookie)).status).toBe(401);
    expect((await other.agent.get("/services/json/players").set("Cookie", bystander.cookie)).status).toBe(200);
  });

  it("a store whose writes fail: refused by every guard of the router, then ended in the store once it recovers", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const base = memorySessionStore();
    const failing = new Set(["destroy", "destroyByUser"]);
    const sessionStore = failingWrites(base, failing);
    const { app, agent } = createTestApp({ sessionStore });
    const session = await login(app);
    expect((await logout(agent, session)).text).toBe("[true]");
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
    // The router's other guards honour it too (one router per app: the logouts it holds are its own).
    expect((await agent.get("/services/json/admin").set("Cookie", session.cookie)).status).toBe(401);
    // The record is still in the store until the store takes the logout.
    await expect(base.get(session.sessid)).resolves.not.toBeNull();
    await vi.advanceTimersByTimeAsync(5000);
    await expect(base.get(session.sessid)).resolves.not.toBeNull();
    failing.clear();
    await vi.advanceTimersByTimeAsync(5000);
    await expect(base.get(session.sessid)).resolves.toBeNull();
    // A login after it is live.
    const again = await login(app);
    expect((await agent.get("/services/json/players").set("Cookie", again.cookie)).status).toBe(200);
    base.close();
  });

  it("when only the session's own mark is refused, ends the user's sessions everywhere at once", async () => {
    const base = memorySessionStore();
    const sessionStore = failingWrites(base, new Set(["destroy"]));
    const { app, agent } = createTestApp({ sessionStore });
    const first = await login(app);
    const second = await login(app);
    const other = await login(app, "admin", "admin-password");
    expect((await logout(agent, first)).text).toBe("[true]");
    for (const sessid of [first.sessid, second.sessid]) await expect(base.get(sessid)).resolves.toBeNull();
    await expect(base.get(other.sessid)).resolves.not.toBeNull();
    base.close();
  });

  it("holds one entry per user, and past 10,000 users holds a logout for its user's bucket, never the whole site", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const now = Math.floor(Date.now() / 1000);
    const destroy = vi.fn(() => Promise.reject(new Error("down")));
    const pending = new PendingLogouts({ destroy } as unknown as SessionStore);
    const session = (uid: string, createdAt: number, handle = `h${uid}-${createdAt}`) => ({
      handle,
      record: { uid, createdAt, lastSeenAt: createdAt, expiresAt: createdAt + 3600, ip: "", userAgent: "" },
    });
    for (let i = 0; i < 5; i++) pending.add(session("7", now - 10 + i));
    expect(pending.size).toBe(1);
    // The sessions held, by handle; never another of the same user, older or newer.
    expect(pending.covers(session("7", now - 6))).toBe(true);
    expect(pending.covers(session("7", now - 6, "another"))).toBe(false);
    expect(pending.covers(session("7", now))).toBe(false);
    expect(pending.covers(session("8", now - 100))).toBe(false);
    for (let uid = 1000; pending.size < 10_000; uid++) pending.add(session(String(uid), now - 100));
    pending.add(session("overflow", now - 50));
    expect(pending.size).toBe(10_000);
    // The overflowing user's logout holds: its sessions up to the one that logged out are refused, later ones not.
    expect(pending.covers(session("overflow", now - 50))).toBe(true);
    expect(pending.covers(session("overflow", now - 49))).toBe(false);
    // Of 20,000 other users, only those that share its bucket (about 1 in 65,536) are touched.
    let touched = 0;
    for (let uid = 100_000; uid < 120_000; uid++) if (pending.covers(session(String(uid), now - 100))) touched++;
    expect(touched).toBeLessThan(5);
    // While the store fails, one call per retry, not 10,000.
    await vi.advanceTimersByTimeAsync(5000);
    expect(destroy).toHaveBeenCalledTimes(1);
    // Nothing held can outlive its sessions' expiry: then all is dropped and the retries stop.
    vi.setSystemTime(Date.now() + 3600_000);
    await vi.advanceTimersByTimeAsync(5000);
    expect(pending.size).toBe(0);
    expect(destroy).toHaveBeenCalledTimes(1);
  });

  it("a retry ends exactly the session it held: a login made once writes resume keeps its session, as do the user's other devices", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const base = memorySessionStore();
    const failing = new Set<string>();
    const { processLocal: _local, ...shared } = failingWrites(base, failing);
    const { app, agent } = createTestApp({ sessionStore: shared });
    const phone = await login(app);
    const laptop = await login(app);
    failing.add("destroy").add("destroyByUser");
    expect((await logout(agent, laptop)).status).toBe(503);
    failing.clear();
    // Writes are back: the user logs in again on the laptop before the held logout is retried.
    const again = await login(app);
    await vi.advanceTimersByTimeAsync(5000);
    await expect(base.get(laptop.sessid)).resolves.toBeNull();
    for (const kept of [again, phone]) expect((await agent.get("/services/json/players").set("Cookie", kept.cookie)).status).toBe(200);
    base.close();
  });

  it("a shared store whose writes fail: a 503 with the cookie deleted, the session refused here, and the logout recorded once the store takes it", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const base = memorySessionStore();
    const failing = new Set(["destroy", "destroyByUser"]);
    // Without the in-process declaration, it stands for a store other instances share (Redis).
    const { processLocal: _local, ...shared } = failingWrites(base, failing);
    const { app, agent, events } = createTestApp({ sessionStore: shared, clearSiteData: true });
    const session = await login(app);
    const res = await logout(agent, session);
    expect([res.status, statusText(res), res.text]).toEqual([503, ": Service temporarily unavailable.", '["Service temporarily unavailable."]']);
    expect(res.headers["retry-after"]).toBeDefined();
    expect(res.headers["clear-site-data"]).toBe('"cookies"');
    expect(setCookies(res)[0]).toMatch(new RegExp(`^${session.session_name}=deleted; `));
    expect(events.filter((event) => event.type.startsWith("logout"))).toEqual([
      { type: "logout.unrecorded", uid: "14", session: expect.any(String), ip: "127.0.0.1", timestamp: expect.any(Number) },
    ]);
    // Refused here at once; the store gets the logout when it recovers.
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
    failing.clear();
    await vi.advanceTimersByTimeAsync(5000);
    await expect(base.get(session.sessid)).resolves.toBeNull();
    base.close();
  });
});
