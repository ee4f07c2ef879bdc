import { afterEach, describe, expect, it, vi } from "vitest";
import { nowSeconds } from "../../src/clock.js";
import { memorySessionStore, type MemorySessionStore } from "../../src/stores/memory-session-store.js";
import type { SessionRecord } from "../../src/types.js";
import { describeSessionStore } from "./contract.js";

describeSessionStore("memorySessionStore", () => memorySessionStore(), {
  dispose: (store) => (store as MemorySessionStore).close(),
  withCapacity: (maxSessions) => memorySessionStore({ maxSessions }),
});

function recordFor(uid: string, createdAt: number, expiresAt = createdAt + 3600): SessionRecord {
  return { uid, createdAt, lastSeenAt: createdAt, expiresAt, ip: "203.0.113.7", userAgent: "memory-test" };
}

describe("memorySessionStore", () => {
  const stores: MemorySessionStore[] = [];
  const make = (options?: Parameters<typeof memorySessionStore>[0]) => {
    const store = memorySessionStore(options);
    stores.push(store);
    return store;
  };

  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    vi.useRealTimers();
  });

  it("refuses a new session when maxSessions is reached, and ends none to make room", async () => {
    const store = make({ maxSessions: 3 });
    const now = nowSeconds();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await store.create(recordFor(String(i + 1), now + i)));
    await expect(store.create(recordFor("9", now))).rejects.toMatchObject({ name: "SessionAuthError", code: "ERR_STORE_FULL" });
    expect(store.size).toBe(3);
    for (const id of ids) await expect(store.get(id)).resolves.not.toBeNull();
  });

  it("while full, scans for expired sessions at most once until the soonest one expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = make({ maxSessions: 1000 });
    const now = nowSeconds();
    for (let i = 0; i < 1000; i++) await store.create(recordFor(String(i), now, now + 60));
    const keys = vi.spyOn(Map.prototype, "keys");
    for (let i = 0; i < 50; i++) await expect(store.create(recordFor("x", now))).rejects.toMatchObject({ code: "ERR_STORE_FULL" });
    // One scan for the first refusal; the other 49 are refused without walking 1,000 sessions.
    expect(keys.mock.calls.length).toBeLessThanOrEqual(1);
    keys.mockRestore();
    vi.setSystemTime((now + 60) * 1000);
    await expect(store.create(recordFor("x", now + 60))).resolves.toEqual(expect.any(String));
    expect(store.size).toBe(1);
  });

  it("sweep removes expired sessions only", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = make();
    const now = nowSeconds();
    await store.create(recordFor("1", now, now + 10));
    const live = await store.create(recordFor("2", now, now + 100));
    vi.setSystemTime((now + 10) * 1000);
    await expect(store.sweep()).resolves.toBe(1);
    expect(store.size).toBe(1);
    await expect(store.get(live)).resolves.not.toBeNull();
    await expect(store.listByUser("1")).resolves.toEqual([]);
  });

  it("sweeps on its timer, and close() stops the timer", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
    const store = make({ sweepIntervalSeconds: 1 });
    const now = nowSeconds();
    await store.create(recordFor("1", now, now + 1));
    vi.setSystemTime((now + 1) * 1000);
    await vi.advanceTimersByTimeAsync(1000);
    await vi.waitFor(() => expect(store.size).toBe(0));
    await store.create(recordFor("1", now + 1, now + 2));
    store.close();
    vi.setSystemTime((now + 5) * 1000);
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.size).toBe(1);
  });

  it("rejects bad options with a TypeError", () => {
    expect(() => memorySessionStore({ maxSessions: 0 })).toThrow(TypeError);
    expect(() => memorySessionStore({ bogus: 1 } as never)).toThrow(/memorySessionStore/);
  });
});
