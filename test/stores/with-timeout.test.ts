import { afterEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "../../src/stores/with-timeout.js";
import type { RaisedEvent } from "../../src/events.js";
import { memoryCounterStore, memorySessionStore } from "services-session-auth";

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
