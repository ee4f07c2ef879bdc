import { afterEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "../../src/engine/store-watchdog.js";
import type { RaisedEvent } from "../../src/events.js";
import { memoryCounterStore, memorySessionStore, type CounterStore } from "services-session-auth";
import { COUNTER_REPAIRS } from "../../src/stores/repairs.js";
import { StoreRefusal } from "../../src/stores/store-refusal.js";

describe("withTimeout and a store's ready promise", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function storeReadyWhen(ready: Promise<void>) {
    return {
      ready,
      calls: 0,
      async find(name: string) {
        this.calls += 1;
        return name;
      },
    };
  }

  it("answers 503 once ready has not settled within its limit, and goes straight to the store once it does", async () => {
    vi.useFakeTimers();
    let becomeReady!: () => void;
    const store = storeReadyWhen(new Promise<void>((resolve) => (becomeReady = resolve)));
    const events: RaisedEvent[] = [];
    const guarded = withTimeout(store, "users", 2000, (event) => void events.push(event), { readyTimeoutMs: 30_000 });

    const waiting = guarded.find("demo");
    const outcome = waiting.then(
      () => "answered",
      (error: { code?: string }) => error.code,
    );
    await vi.advanceTimersByTimeAsync(29_000);
    expect(store.calls).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await outcome).toBe("ERR_STORE_UNAVAILABLE");
    expect(events).toMatchObject([{ type: "store.failure", operation: "users.ready", err: { message: "users.ready did not settle in 30 s" } }]);

    becomeReady();
    await vi.advanceTimersByTimeAsync(0);
    expect(await guarded.find("demo")).toBe("demo");
    expect(store.calls).toBe(1);
  });

  it("waits for a slow start longer than the store timeout, and never counts it", async () => {
    vi.useFakeTimers();
    let becomeReady!: () => void;
    const store = storeReadyWhen(new Promise<void>((resolve) => (becomeReady = resolve)));
    const events: RaisedEvent[] = [];
    const guarded = withTimeout(store, "users", 2000, (event) => void events.push(event));
    const waiting = guarded.find("demo");
    await vi.advanceTimersByTimeAsync(10_000);
    becomeReady();
    expect(await waiting).toBe("demo");
    expect(events).toEqual([]);
  });
});

describe("withTimeout and this package's memory stores", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("does not watch a memory store's calls, and watches a copy of one like any other store", async () => {
    vi.useFakeTimers();
    const memory = memoryCounterStore();
    const watched = withTimeout(memory, "counters", 2000, () => undefined);
    const pending = watched.increment("key", 60);
    // No watchdog armed for a call that waits on nothing.
    expect(vi.getTimerCount()).toBe(0);
    expect(await pending).toBe(1);

    // A copy may wait on anything (here: forever), so it is timed out as a shared store is.
    const copy = { ...memory, increment: (_key: string, _ttl: number) => new Promise<number>(() => undefined) };
    const outcome = withTimeout(copy, "copy", 2000, () => undefined)
      .increment("key", 60)
      .then(
        () => "answered",
        (error: { code?: string }) => error.code,
      );
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(3000);
    expect(await outcome).toBe("ERR_STORE_UNAVAILABLE");
  });

  it("still reports a memory store's refusal when it is full, with its own code and event", async () => {
    const events: RaisedEvent[] = [];
    const sessions = withTimeout(memorySessionStore({ maxSessions: 1 }), "sessionStore", 2000, (event) => void events.push(event));
    const record = { uid: "1", createdAt: 1, lastSeenAt: 1, expiresAt: 4_000_000_000, ip: "127.0.0.1", userAgent: "test" };
    await sessions.create(record);
    await expect(sessions.create({ ...record, uid: "2" })).rejects.toMatchObject({ code: "ERR_STORE_FULL" });
    expect(events.map((event) => event.type)).toEqual(["store.full"]);
  });
});

describe("withTimeout's repairs: nothing a failed call did is left behind", () => {
  /** A counter store whose next calls answer as told: at once, late (after the timeout), or with an error. */
  function scriptedCounters() {
    const counts = new Map<string, number>();
    const plan: Array<"now" | "late" | "lost" | "refused"> = [];
    const calls: string[] = [];
    const answer = <T>(value: () => T): Promise<T> => {
      const step = plan.shift() ?? "now";
      if (step === "refused") return Promise.reject(new StoreRefusal("offline", "down"));
      if (step === "lost") return new Promise((_, reject) => setTimeout(() => reject(new Error("connection lost")), 80));
      if (step === "late") return new Promise((resolve) => setTimeout(() => resolve(value()), 80));
      return Promise.resolve(value());
    };
    const store = {
      increment: (key: string, _ttl: number) =>
        answer(() => {
          calls.push(`increment ${key}`);
          counts.set(key, (counts.get(key) ?? 0) + 1);
          return counts.get(key)!;
        }),
      decrement: (key: string) =>
        answer(() => {
          calls.push(`decrement ${key}`);
          counts.set(key, Math.max(0, (counts.get(key) ?? 0) - 1));
        }),
      get: (key: string) => answer(() => counts.get(key) ?? 0),
      delete: (key: string) => answer(() => void counts.delete(key)),
    };
    return { store, counts, plan, calls };
  }

  const watched = (store: object) => withTimeout(store, "counterStore", 40, () => undefined, { repairs: COUNTER_REPAIRS }) as CounterStore;

  it("gives back an increment that landed after its caller was answered", async () => {
    const { store, counts, plan } = scriptedCounters();
    plan.push("late");
    await expect(watched(store).increment("ip:a", 60)).rejects.toMatchObject({ code: "ERR_STORE_UNAVAILABLE" });
    await expect.poll(() => counts.get("ip:a"), { timeout: 3000 }).toBe(0);
  });

  it("gives back an increment that failed after it may have been sent, and nothing for one refused before", async () => {
    const { store, counts, plan, calls } = scriptedCounters();
    counts.set("ip:b", 3);
    plan.push("lost", "refused");
    const counters = watched(store);
    await expect(counters.increment("ip:b", 60)).rejects.toMatchObject({ code: "ERR_STORE_UNAVAILABLE" });
    await expect(counters.increment("ip:b", 60)).rejects.toMatchObject({ code: "ERR_STORE_UNAVAILABLE" });
    await expect.poll(() => calls, { timeout: 3000 }).toEqual(["decrement ip:b"]);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(calls).toEqual(["decrement ip:b"]);
  });

  it("sends a refused give-back again until the store takes it, once", async () => {
    const { store, counts, plan, calls } = scriptedCounters();
    counts.set("ip:c", 2);
    plan.push("refused", "refused");
    const counters = watched(store);
    await expect(counters.decrement("ip:c")).rejects.toMatchObject({ code: "ERR_STORE_UNAVAILABLE" });
    await expect.poll(() => counts.get("ip:c"), { timeout: 4000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(calls).toEqual(["decrement ip:c"]);
  });
});
