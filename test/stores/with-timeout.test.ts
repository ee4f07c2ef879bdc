import { afterEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "../../src/stores/with-timeout.js";
import type { RaisedEvent } from "../../src/events.js";

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
    const guarded = withTimeout(store, "users", 2000, (event) => void events.push(event), 30_000);

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
