import { afterEach, describe, expect, it, vi } from "vitest";
import { nowSeconds } from "../../src/clock.js";
import { memorySessionStore, type MemorySessionStore } from "../../src/stores/memory-session-store.js";
import type { SessionRecord } from "../../src/types.js";
import { collector } from "../helpers/gc.js";
import { describeSessionStore } from "./contract.js";

describeSessionStore("memorySessionStore", () => memorySessionStore(), {
  dispose: (store) => (store as MemorySessionStore).close(),
  withCapacity: (maxSessions) => memorySessionStore({ maxSessions }),
});

function recordFor(uid: string, createdAt: number, expiresAt = createdAt + 3600): SessionRecord {
  return { uid, createdAt, lastSeenAt: createdAt, expiresAt, ip: "203.0.113.7", userAgent: "memory-test" };
}

/** Heap in use after full collections. */
function heapAfterGc(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** A flat copy of a string, as one read off a socket is (not a slice of another, nor the same copy as the caller's). */
const fresh = (value: string): string => JSON.parse(JSON.stringify(value)) as string;

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

  it("keeps one copy of each user agent however many different addresses arrive between its sessions", async () => {
    const gc = collector();
    const count = 20_000;
    const agents = Array.from({ length: 300 }, (_, k) => `Mozilla/5.0 (Linux; Android 14) Chrome/131.0.${k}.0 Mobile Safari/537.36 ${"x".repeat(60)}`);
    const now = nowSeconds();
    // Heap per session for sessions with a distinct address each and the given user agent.
    const perSession = async (userAgent: (i: number) => string) => {
      const before = heapAfterGc(gc);
      const store = make({ maxSessions: count });
      for (let i = 0; i < count; i++) {
        const record = { ...recordFor(String(i >> 1), now), ip: fresh(`::ffff:10.0.${i >> 8}.${i & 255}`), userAgent: userAgent(i) };
        await store.create(record);
      }
      const bytes = (heapAfterGc(gc) - before) / count;
      store.close();
      return bytes;
    };
    const oneAgent = agents[0]!;
    const shared = await perSession(() => oneAgent);
    // 300 agents, each arriving as a new string: once each is held, none costs more than one
    // shared agent (re-storing them, as one mixed table did, cost 55 bytes a session; the
    // margin is for a busy machine's heap readings).
    const arriving = await perSession((i) => fresh(agents[i % agents.length]!));
    expect(arriving - shared).toBeLessThan(25);
  });

  it("keeps no long address after its session ends", async () => {
    const gc = collector();
    const count = 600;
    const now = nowSeconds();
    const before = heapAfterGc(gc);
    const store = make();
    for (let i = 0; i < count; i++) {
      const handle = `h${i}`;
      // As an X-Forwarded-For entry a trusted proxy passed on could be: long, and all different.
      await store.adopt!(handle, { ...recordFor(String(i), now), ip: fresh(`${i}:${"z".repeat(8_000)}`) });
      await store.destroy(handle);
    }
    const kept = heapAfterGc(gc) - before;
    store.close();
    // 600 addresses of 8 KB each would be about 4.8 MB held by an intern table.
    expect(kept).toBeLessThan(500_000);
  });

  it("holds no more of a long header than the part a record keeps", async () => {
    const gc = collector();
    const count = 500;
    const now = nowSeconds();
    const before = heapAfterGc(gc);
    const store = make();
    for (let i = 0; i < count; i++) {
      // As the engine cuts a user agent to 256 characters: each value here is a view into its own 16,000-character header.
      const header = fresh(`${i} Mozilla/5.0 ${"x".repeat(16_000)}`);
      const forwarded = fresh(`::ffff:10.0.${i >> 8}.${i & 255}, ${"y".repeat(16_000)}`);
      await store.create({ ...recordFor(String(i), now), ip: forwarded.slice(0, forwarded.indexOf(",")), userAgent: header.slice(0, 256) });
    }
    const perSession = (heapAfterGc(gc) - before) / count;
    store.close();
    expect(perSession).toBeLessThan(2_000);
    const [session] = await store.listByUser("7");
    expect(session?.record).toMatchObject({ ip: "::ffff:10.0.0.7", userAgent: `7 Mozilla/5.0 ${"x".repeat(242)}` });
  });

  it("gives back an address and a user agent exactly as stored, lone surrogates and all", async () => {
    const store = make();
    const record = { ...recordFor("1", nowSeconds()), ip: "fe80::1%eth0", userAgent: 'Agent \ud800 "quoted" \\ \u0000 ü 😀' };
    const session = await store.get(await store.create(record));
    expect(session?.record).toEqual(record);
  });
});
