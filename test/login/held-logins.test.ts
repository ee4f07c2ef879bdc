import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isSessionAuthError } from "services-session-auth";
import { HeldLogins } from "../../src/login/held-logins.js";

const flush = () => Promise.resolve().then(() => undefined);

describe("HeldLogins", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A line of at most `maxWaiting` held logins, polling every `pollMs`, turned away with `retryAfter` seconds. */
  const holding = (maxWaiting: number, pollMs: number, retryAfter: number) =>
    new HeldLogins(
      maxWaiting,
      () => pollMs,
      () => retryAfter,
    );

  /** Waits `label` on `key`, recording when it is let go or turned away. */
  function waiter(held: HeldLogins, log: string[], key: string, label: string, again = false, deadline = performance.now() + 5000) {
    return held.wait(key, deadline, again).then(
      () => log.push(`${label} goes`),
      (error: unknown) => log.push(isSessionAuthError(error) ? `${label} ${error.code} ${error.retryAfter}` : `${label} ${String(error)}`),
    );
  }

  it("lets one waiting login go per settled attempt, oldest first, and one held again goes first", async () => {
    const held = holding(10, 100, 2);
    const log: string[] = [];
    void waiter(held, log, "user:a", "first");
    void waiter(held, log, "user:a", "second");
    void waiter(held, log, "user:b", "other");
    expect(held.waiting).toBe(3);
    held.settled("user:a");
    await flush();
    expect(log).toEqual(["first goes"]);
    // Held once more: it goes before the second.
    void waiter(held, log, "user:a", "first again", true);
    held.settled("user:a");
    await flush();
    expect(log).toEqual(["first goes", "first again goes"]);
    held.settled("user:nobody");
    expect(held.waiting).toBe(2);
  });

  it("lets the first of a line look again every poll interval, for attempts settled on another instance", async () => {
    const held = holding(10, 100, 2);
    const log: string[] = [];
    void waiter(held, log, "ip:x", "a");
    void waiter(held, log, "ip:x", "b");
    await vi.advanceTimersByTimeAsync(99);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(["a goes"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(log).toEqual(["a goes", "b goes"]);
    expect(held.waiting).toBe(0);
  });

  it("turns a login away at its deadline, or at once when as many as it holds are waiting, with the retry time", async () => {
    const held = holding(2, 10_000, 3);
    const log: string[] = [];
    void waiter(held, log, "user:a", "a", false, performance.now() + 500);
    void waiter(held, log, "user:a", "b");
    void waiter(held, log, "user:c", "full");
    await flush();
    expect(log).toEqual(["full ERR_LOGIN_BUSY 3"]);
    await vi.advanceTimersByTimeAsync(500);
    expect(log).toEqual(["full ERR_LOGIN_BUSY 3", "a ERR_LOGIN_BUSY 3"]);
    expect(held.waiting).toBe(1);
    // A deadline already past: turned away at once.
    void waiter(held, log, "user:a", "late", false, performance.now());
    await flush();
    expect(log.at(-1)).toBe("late ERR_LOGIN_BUSY 3");
    held.settled("user:a");
    await flush();
    expect(log.at(-1)).toBe("b goes");
  });

  it("holds at most a sixteenth of its lines (16 at least) from one address: another address's login still waits its turn", async () => {
    const held = holding(320, 10_000, 2);
    const log: string[] = [];
    const deadline = performance.now() + 5000;
    const from = (address: string, label: string) =>
      held.wait(`ip:${address}`, deadline, false, address).then(
        () => log.push(`${label} goes`),
        (error: unknown) => log.push(isSessionAuthError(error) ? `${label} ${error.code}` : String(error)),
      );
    for (let i = 0; i < 20; i++) void from("203.0.113.9", `flood ${i}`);
    void from("198.51.100.7", "family");
    await flush();
    expect(held.waiting).toBe(21);
    // 320 / 16 = 20 from the flooding address, none more; the family's login waits as usual.
    void from("203.0.113.9", "flood 20");
    await flush();
    expect(log).toEqual(["flood 20 ERR_LOGIN_BUSY"]);
    held.settled("ip:198.51.100.7");
    await flush();
    expect(log).toEqual(["flood 20 ERR_LOGIN_BUSY", "family goes"]);
    // One of the address's own goes: it has room for one more.
    held.settled("ip:203.0.113.9");
    await flush();
    void from("203.0.113.9", "flood 21");
    await flush();
    expect(held.waiting).toBe(20);
  });
});
