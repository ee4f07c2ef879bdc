import { afterEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "../../src/stores/with-timeout.js";
import type { RaisedEvent } from "../../src/events.js";
import { SessionAuthError } from "../../src/errors.js";

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

describe("withTimeout and a store held in this process's memory", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function storeAnswering(answer: () => Promise<string>, local: boolean) {
    return { ...(local ? { processLocal: { generation: "test" } } : {}), find: answer };
  }

  it("times out a shared store's hung call, and does not watch a process-local store's calls", async () => {
    vi.useFakeTimers();
    const hung = () => new Promise<string>(() => undefined);
    const shared = withTimeout(storeAnswering(hung, false), "shared", 2000, () => undefined);
    const local = withTimeout(storeAnswering(hung, true), "local", 2000, () => undefined);
    const outcome = (call: Promise<string>) =>
      call.then(
        () => "answered",
        (error: { code?: string }) => error.code ?? "other",
      );
    const sharedOutcome = outcome(shared.find());
    let localSettled = false;
    void local.find().finally(() => (localSettled = true));
    await vi.advanceTimersByTimeAsync(3000);
    expect(await sharedOutcome).toBe("ERR_STORE_UNAVAILABLE");
    // Nothing it waits on could be late: the call is its own code's, answered as it answers.
    expect(localSettled).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("still turns a process-local store's failures into ERR_STORE_UNAVAILABLE, and keeps ERR_STORE_FULL", async () => {
    const events: RaisedEvent[] = [];
    const failing = withTimeout(
      storeAnswering(() => Promise.reject(new Error("broken")), true),
      "local",
      2000,
      (event) => void events.push(event),
    );
    await expect(failing.find()).rejects.toMatchObject({ code: "ERR_STORE_UNAVAILABLE" });
    const throwing = withTimeout(
      storeAnswering(() => {
        throw new Error("thrown");
      }, true),
      "local",
      2000,
      (event) => void events.push(event),
    );
    await expect(throwing.find()).rejects.toMatchObject({ code: "ERR_STORE_UNAVAILABLE" });
    const full = withTimeout(
      storeAnswering(() => Promise.reject(new SessionAuthError("ERR_STORE_FULL")), true),
      "local",
      2000,
      (event) => void events.push(event),
    );
    await expect(full.find()).rejects.toMatchObject({ code: "ERR_STORE_FULL" });
    expect(events.map((event) => event.type)).toEqual(["store.failure", "store.failure", "store.full"]);
    const ok = withTimeout(
      storeAnswering(async () => "found", true),
      "local",
      2000,
      () => undefined,
    );
    expect(await ok.find()).toBe("found");
  });
});
