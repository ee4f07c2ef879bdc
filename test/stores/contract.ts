/**
 * The conformance suite every {@link SessionStore} and {@link CounterStore} in this
 * package passes. An adapter's test file calls {@link describeSessionStore} with a
 * factory; see docs/writing-a-store.md. Tests run in one process share this module, so
 * each test takes fresh uids and never depends on another test's data.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
// Only the public surface and vitest: an adapter's repository can vendor this one file.
import { createSessionId, hashSessionId } from "services-session-auth";
import type { CounterStore, SessionRecord, SessionStore } from "services-session-auth";

/** Unix seconds, as records keep them; reads `Date.now()` so fake timers move it. */
function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** What a store can do. Every capability defaults to `true`; a store declares the ones it lacks. */
export interface SessionStoreCapabilities {
  /** `touch` moves `lastSeenAt`/`expiresAt` as later `get`s see them (a stateless token cannot). */
  touchExtends?: boolean;
  /** `listByUser` returns the user's sessions. */
  listByUser?: boolean;
  /** `destroyByUser` resolves the number of sessions it ended. */
  countsDestroyed?: boolean;
}

/** Options of {@link describeSessionStore}. */
export interface SessionStoreContractOptions {
  /**
   * `"fake"`: the suite fakes `Date` (vitest fake timers) and moves time itself. `"real"`:
   * for stores whose backend has its own clock (Redis); expiry is then tested with records
   * already expired, and one record that lives for about a second.
   * @default "fake"
   */
  clock?: "fake" | "real";
  capabilities?: SessionStoreCapabilities;
  /** Runs after each test with the store it used (close timers, drop keys). */
  dispose?: (store: SessionStore) => void | Promise<void>;
  /**
   * For a store with a capacity of its own: the same store holding at most `capacity`
   * sessions. The suite then checks the capacity rule: a full store refuses a new session
   * with `ERR_STORE_FULL` and never ends a live one to make room. Leave it out for a store
   * whose backend sets the limit (Redis: `maxmemory` with `noeviction`) or that has none.
   */
  withCapacity?: (capacity: number) => SessionStore | Promise<SessionStore>;
}

const START = Date.UTC(2026, 0, 1) / 1000;
let uidSeq = 1000;

/** A uid no other test of this run uses, so stores that outlive one test (Redis) stay isolated. */
function freshUid(): string {
  uidSeq += 1;
  return String(uidSeq);
}

function recordFor(uid: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const now = nowSeconds();
  return { uid, createdAt: now, lastSeenAt: now, expiresAt: now + 3600, ip: "203.0.113.7", userAgent: "contract-test/1.0", ...overrides };
}

/**
 * On a real clock, waits until just after a second begins. A record that expires at
 * `nowSeconds() + 1` then lives for most of a second rather than for whatever was left of the
 * current one, which a loaded machine could spend between a create and the read after it.
 */
async function startOfSecond(clock: "fake" | "real"): Promise<void> {
  if (clock === "real") await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 10));
}

function tamper(sessid: string): string {
  const i = Math.floor(sessid.length / 2);
  const flipped = sessid[i] === "A" ? "B" : "A";
  return sessid.slice(0, i) + flipped + sessid.slice(i + 1);
}

/**
 * Declares the session-store contract tests for one store.
 *
 * @example
 * ```ts
 * describeSessionStore("memorySessionStore", () => memorySessionStore(), { dispose: (s) => (s as MemorySessionStore).close() });
 * ```
 */
export function describeSessionStore(name: string, makeStore: () => SessionStore | Promise<SessionStore>, options: SessionStoreContractOptions = {}): void {
  const { clock = "fake", dispose, withCapacity } = options;
  const can = { touchExtends: true, listByUser: true, countsDestroyed: true, ...options.capabilities };

  describe(`${name} (SessionStore contract)`, () => {
    let store: SessionStore;

    beforeEach(async () => {
      if (clock === "fake") {
        vi.useFakeTimers({ toFake: ["Date"] });
        vi.setSystemTime(START * 1000);
      }
      store = await makeStore();
    });

    afterEach(async () => {
      await dispose?.(store);
      vi.useRealTimers();
    });

    it("create then get returns an equal record and a handle", async () => {
      const record = recordFor(freshUid());
      const sessid = await store.create(record);
      const found = await store.get(sessid);
      expect(found?.record).toEqual(record);
      expect(typeof found?.handle).toBe("string");
    });

    it("issues ids of 43 or more base64url characters, all different", async () => {
      const uid = freshUid();
      const ids = await Promise.all(Array.from({ length: 20 }, () => store.create(recordFor(uid))));
      for (const id of ids) expect(id).toMatch(/^[\w-]{43,}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it("never uses the raw id as the handle", async () => {
      const sessid = await store.create(recordFor(freshUid()));
      const found = await store.get(sessid);
      expect(found).not.toBeNull();
      expect(found?.handle).not.toBe(sessid);
      expect(found?.handle.includes(sessid)).toBe(false);
    });

    it("resolves null for unknown, malformed and tampered ids", async () => {
      const sessid = await store.create(recordFor(freshUid()));
      await expect(store.get("A".repeat(43))).resolves.toBeNull();
      for (const bad of ["", "short", "!".repeat(43), `${sessid}x!`, "a".repeat(5000)]) await expect(store.get(bad)).resolves.toBeNull();
      await expect(store.get(tamper(sessid))).resolves.toBeNull();
    });

    it("resolves null for an expired record (expiresAt <= now)", async () => {
      const now = nowSeconds();
      const sessid = await store.create(recordFor(freshUid(), { createdAt: now - 100, lastSeenAt: now - 100, expiresAt: now }));
      await expect(store.get(sessid)).resolves.toBeNull();
    });

    it("forgets a record once its expiresAt passes", async () => {
      await startOfSecond(clock);
      const now = nowSeconds();
      const sessid = await store.create(recordFor(freshUid(), { expiresAt: now + 1 }));
      await expect(store.get(sessid)).resolves.not.toBeNull();
      if (clock === "fake") vi.setSystemTime((now + 1) * 1000);
      else await new Promise((resolve) => setTimeout(resolve, (now + 1) * 1000 - Date.now() + 50));
      await expect(store.get(sessid)).resolves.toBeNull();
    });

    it.skipIf(!can.touchExtends)("touch moves lastSeenAt and expiresAt", async () => {
      const record = recordFor(freshUid());
      const sessid = await store.create(record);
      const found = await store.get(sessid);
      await store.touch(found!.handle, record.lastSeenAt + 60, record.expiresAt + 600);
      const after = await store.get(sessid);
      expect(after?.record).toEqual({ ...record, lastSeenAt: record.lastSeenAt + 60, expiresAt: record.expiresAt + 600 });
      expect(after?.handle).toBe(found?.handle);
    });

    it.skipIf(!can.touchExtends)("a touch keeps a session alive past its first deadline", async () => {
      await startOfSecond(clock);
      const now = nowSeconds();
      const uid = freshUid();
      const sessid = await store.create(recordFor(uid, { expiresAt: now + 1 }));
      const { handle } = (await store.get(sessid))!;
      await store.touch(handle, now, now + 3600);
      if (clock === "fake") vi.setSystemTime((now + 2) * 1000);
      else await new Promise((resolve) => setTimeout(resolve, (now + 1) * 1000 - Date.now() + 50));
      await expect(store.get(sessid)).resolves.not.toBeNull();
      if (can.listByUser) expect((await store.listByUser(uid)).map((s) => s.handle)).toEqual([handle]);
    });

    it("a touch to an expiry in the past ends the session", async () => {
      const sessid = await store.create(recordFor(freshUid()));
      const { handle } = (await store.get(sessid))!;
      const now = nowSeconds();
      await store.touch(handle, now, now - 1);
      await expect(store.get(sessid)).resolves.toBeNull();
    });

    it("destroy ends one session and leaves the others", async () => {
      const uid = freshUid();
      const first = await store.create(recordFor(uid));
      const second = await store.create(recordFor(uid));
      await store.destroy((await store.get(first))!.handle);
      await expect(store.get(first)).resolves.toBeNull();
      await expect(store.get(second)).resolves.not.toBeNull();
    });

    it("touch and destroy of a missing handle do not throw", async () => {
      const handle = "0".repeat(43);
      await expect(store.touch(handle, nowSeconds(), nowSeconds() + 60)).resolves.toBeUndefined();
      await expect(store.destroy(handle)).resolves.toBeUndefined();
      const sessid = await store.create(recordFor(freshUid()));
      const { handle: real } = (await store.get(sessid))!;
      await store.destroy(real);
      await expect(store.destroy(real)).resolves.toBeUndefined();
      await expect(store.touch(real, nowSeconds(), nowSeconds() + 60)).resolves.toBeUndefined();
      await expect(store.get(sessid)).resolves.toBeNull();
    });

    it.skipIf(!can.listByUser)("listByUser lists live sessions oldest first, per user", async () => {
      const uid = freshUid();
      const other = freshUid();
      const now = nowSeconds();
      const newer = await store.create(recordFor(uid, { createdAt: now - 10 }));
      const older = await store.create(recordFor(uid, { createdAt: now - 20 }));
      await store.create(recordFor(uid, { createdAt: now - 30, expiresAt: now }));
      await store.create(recordFor(other));
      const listed = await store.listByUser(uid);
      expect(listed.map((s) => s.record.createdAt)).toEqual([now - 20, now - 10]);
      expect(listed.map((s) => s.handle)).toEqual([(await store.get(older))!.handle, (await store.get(newer))!.handle]);
      expect((await store.listByUser(other)).length).toBe(1);
      await expect(store.listByUser(freshUid())).resolves.toEqual([]);
    });

    it.skipIf(!can.listByUser)("listByUser drops a destroyed session", async () => {
      const uid = freshUid();
      const kept = await store.create(recordFor(uid));
      const gone = await store.create(recordFor(uid));
      await store.destroy((await store.get(gone))!.handle);
      expect((await store.listByUser(uid)).map((s) => s.handle)).toEqual([(await store.get(kept))!.handle]);
    });

    it("destroyByUser ends every session of one user and no one else's", async () => {
      const uid = freshUid();
      const other = freshUid();
      const mine = await Promise.all([1, 2, 3].map(() => store.create(recordFor(uid))));
      const theirs = await store.create(recordFor(other));
      const ended = await store.destroyByUser(uid);
      if (can.countsDestroyed) expect(ended).toBe(3);
      for (const sessid of mine) await expect(store.get(sessid)).resolves.toBeNull();
      await expect(store.get(theirs)).resolves.not.toBeNull();
      if (can.listByUser) await expect(store.listByUser(uid)).resolves.toEqual([]);
      if (can.countsDestroyed) await expect(store.destroyByUser(uid)).resolves.toBe(0);
    });

    it("a session created after destroyByUser is live", async () => {
      const uid = freshUid();
      await store.create(recordFor(uid));
      await store.destroyByUser(uid);
      if (clock === "fake") vi.setSystemTime((nowSeconds() + 1) * 1000);
      const sessid = await store.create(recordFor(uid));
      await expect(store.get(sessid)).resolves.not.toBeNull();
    });

    it("adopt stores a session under a given handle", async (ctx) => {
      if (store.adopt === undefined) return ctx.skip();
      const uid = freshUid();
      const handle = hashSessionId(createSessionId());
      const record = recordFor(uid);
      await store.adopt(handle, record);
      const listed = can.listByUser ? await store.listByUser(uid) : [];
      if (can.listByUser) expect(listed).toEqual([{ handle, record }]);
      await expect(store.destroyByUser(uid)).resolves.toBe(1);
    });

    it("adopted sessions are found by the id whose hash is the handle", async (ctx) => {
      if (store.adopt === undefined) return ctx.skip();
      // A Drupal 7 sessid is 43 base64url characters, as ours; 7.98+ keeps its SHA-256.
      const sessid = createSessionId();
      const handle = hashSessionId(sessid);
      const record = recordFor(freshUid());
      await store.adopt(handle, record);
      await expect(store.get(sessid)).resolves.toEqual({ handle, record });
    });

    it("adoptMany stores each session as adopt would, across users and many at once", async (ctx) => {
      if (store.adoptMany === undefined) return ctx.skip();
      await expect(store.adoptMany([])).resolves.toBeUndefined();
      // More than one chunk of any sensible batch size, spread over users.
      const uids = [freshUid(), freshUid(), freshUid()];
      const sessions = Array.from({ length: 1050 }, (_, i) => {
        const sessid = createSessionId();
        const now = nowSeconds();
        return {
          sessid,
          handle: hashSessionId(sessid),
          record: recordFor(uids[i % 3]!, { createdAt: now - i, lastSeenAt: now - i, expiresAt: now + 3600 + i }),
        };
      });
      await store.adoptMany(sessions.map(({ handle, record }) => ({ handle, record })));
      const found = await Promise.all(sessions.map(({ sessid }) => store.get(sessid)));
      expect(found).toEqual(sessions.map(({ handle, record }) => ({ handle, record })));
      if (can.listByUser) for (const uid of uids) await expect(store.listByUser(uid)).resolves.toHaveLength(350);
      for (const uid of uids) {
        const ended = await store.destroyByUser(uid);
        if (can.countsDestroyed) expect(ended).toBe(350);
      }
      await expect(store.get(sessions[0]!.sessid)).resolves.toBeNull();
    });

    it("a touch racing a destroy never brings the session back", async () => {
      const uid = freshUid();
      const ids = await Promise.all(Array.from({ length: 10 }, () => store.create(recordFor(uid))));
      const sessions = await Promise.all(ids.map(async (id) => (await store.get(id))!));
      // Both orders of issue, several at once, so the store's steps interleave.
      await Promise.all(
        sessions.map(({ handle, record }, i) => {
          const touch = () => store.touch(handle, record.lastSeenAt + 1, record.expiresAt + 600);
          return i % 2 === 0 ? Promise.all([touch(), store.destroy(handle)]) : Promise.all([store.destroy(handle), touch()]);
        }),
      );
      for (const id of ids) await expect(store.get(id)).resolves.toBeNull();
      if (can.listByUser) await expect(store.listByUser(uid)).resolves.toEqual([]);
    });

    it("creates racing destroyByUser leave each session readable and listed, or unreadable", async () => {
      const uid = freshUid();
      const before = await Promise.all([1, 2, 3].map(() => store.create(recordFor(uid))));
      const [created] = await Promise.all([Promise.all(Array.from({ length: 20 }, () => store.create(recordFor(uid)))), store.destroyByUser(uid)]);
      for (const id of before) await expect(store.get(id)).resolves.toBeNull();
      const found = await Promise.all(created.map((id) => store.get(id)));
      if (can.listByUser) {
        const readable = found.filter((s) => s !== null).map((s) => s.handle);
        const listed = (await store.listByUser(uid)).map((s) => s.handle);
        // A readable session missing from the list would survive "log out everywhere".
        expect([...listed].sort()).toEqual([...readable].sort());
      }
      // Whatever survived the race, the next destroyByUser ends it.
      await store.destroyByUser(uid);
      for (const id of created) await expect(store.get(id)).resolves.toBeNull();
    });

    it.skipIf(withCapacity === undefined)("a full store refuses a new session with ERR_STORE_FULL and ends none to make room", async () => {
      const full = await withCapacity!(3);
      try {
        const ids = await Promise.all([1, 2, 3].map(() => full.create(recordFor(freshUid()))));
        // Another user's login, and the same user's, are both refused: nobody is evicted.
        const refused = await Promise.allSettled([full.create(recordFor(freshUid())), full.create(recordFor((await full.get(ids[0]!))!.record.uid))]);
        for (const outcome of refused) {
          expect(outcome.status).toBe("rejected");
          expect((outcome as PromiseRejectedResult).reason).toMatchObject({ name: "SessionAuthError", code: "ERR_STORE_FULL" });
        }
        for (const id of ids) await expect(full.get(id)).resolves.not.toBeNull();
        // A session that ends frees its place at once, and so does one that expires.
        await full.destroy((await full.get(ids[0]!))!.handle);
        await startOfSecond(clock);
        const next = await full.create(recordFor(freshUid(), { expiresAt: nowSeconds() + 1 }));
        await expect(full.create(recordFor(freshUid()))).rejects.toMatchObject({ code: "ERR_STORE_FULL" });
        if (clock === "fake") vi.setSystemTime((nowSeconds() + 1) * 1000);
        else await new Promise((resolve) => setTimeout(resolve, 1100));
        await expect(full.get(next)).resolves.toBeNull();
        await expect(full.create(recordFor(freshUid()))).resolves.toEqual(expect.any(String));
      } finally {
        await dispose?.(full);
      }
    });

    it("50 concurrent creates are all readable and all listed", async () => {
      const uid = freshUid();
      const now = nowSeconds();
      const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create(recordFor(uid, { createdAt: now - 50 + i }))));
      const found = await Promise.all(ids.map((id) => store.get(id)));
      expect(found.every((s) => s !== null && s.record.uid === uid)).toBe(true);
      if (can.listByUser) {
        const listed = await store.listByUser(uid);
        expect(listed.length).toBe(50);
        expect(listed.map((s) => s.record.createdAt)).toEqual(Array.from({ length: 50 }, (_, i) => now - 50 + i));
      }
    });
  });
}

/** Options of {@link describeCounterStore}. */
export interface CounterStoreContractOptions {
  /** As {@link SessionStoreContractOptions.clock}. With `"real"`, TTLs are tested with 1- and 2-second windows. */
  clock?: "fake" | "real";
}

/**
 * Declares the counter-store contract tests for one store.
 *
 * @example
 * ```ts
 * describeCounterStore("memoryCounterStore", () => memoryCounterStore());
 * ```
 */
export function describeCounterStore(name: string, makeStore: () => CounterStore | Promise<CounterStore>, options: CounterStoreContractOptions = {}): void {
  const { clock = "fake" } = options;
  let seq = 0;
  const key = (label: string) => `${label}:${Date.now()}:${++seq}`;

  async function wait(ms: number): Promise<void> {
    if (clock === "fake") vi.setSystemTime(Date.now() + ms);
    else await new Promise((resolve) => setTimeout(resolve, ms));
  }

  describe(`${name} (CounterStore contract)`, () => {
    let store: CounterStore;

    beforeEach(async () => {
      if (clock === "fake") {
        vi.useFakeTimers({ toFake: ["Date"] });
        vi.setSystemTime(START * 1000);
      }
      store = await makeStore();
    });

    afterEach(() => {
      vi.useRealTimers();
    });

    it("increment creates a key at 1 and counts up", async () => {
      const k = key("count");
      await expect(store.increment(k, 60)).resolves.toBe(1);
      await expect(store.increment(k, 60)).resolves.toBe(2);
      await expect(store.get(k)).resolves.toBe(2);
    });

    it("get of a missing key is 0", async () => {
      await expect(store.get(key("missing"))).resolves.toBe(0);
    });

    it("the TTL runs from the first increment and later ones do not extend it", async () => {
      const k = key("ttl");
      // Two seconds, so that on a real clock a loaded machine's round trips stay well inside it.
      await store.increment(k, 2);
      await wait(1000);
      await store.increment(k, 2);
      await expect(store.get(k)).resolves.toBe(2);
      await wait(1200);
      await expect(store.get(k)).resolves.toBe(0);
      await expect(store.increment(k, 1)).resolves.toBe(1);
    });

    it("delete removes a key, and a missing key is not an error", async () => {
      const k = key("delete");
      await store.increment(k, 60);
      await store.delete(k);
      await expect(store.get(k)).resolves.toBe(0);
      await expect(store.delete(k)).resolves.toBeUndefined();
    });

    it("keys are independent", async () => {
      const a = key("a");
      const b = key("b");
      await store.increment(a, 60);
      await store.increment(a, 60);
      await store.increment(b, 60);
      await expect(store.get(a)).resolves.toBe(2);
      await expect(store.get(b)).resolves.toBe(1);
    });

    it("concurrent increments are all counted, each answering a count no other saw", async () => {
      const k = key("concurrent");
      const counts = await Promise.all(Array.from({ length: 50 }, () => store.increment(k, 60)));
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });

    it("decrement gives one back, never below zero, and never creates a key", async () => {
      const k = key("decrement");
      await store.increment(k, 60);
      await store.increment(k, 60);
      await store.decrement(k);
      await expect(store.get(k)).resolves.toBe(1);
      await store.decrement(k);
      await store.decrement(k);
      await expect(store.get(k)).resolves.toBe(0);
      const missing = key("decrement-missing");
      await expect(store.decrement(missing)).resolves.toBeUndefined();
      await expect(store.get(missing)).resolves.toBe(0);
      // A later increment starts the key afresh, with its own TTL.
      await expect(store.increment(missing, 1)).resolves.toBe(1);
      await wait(1100);
      await expect(store.get(missing)).resolves.toBe(0);
    });

    it("decrement leaves the TTL of the first increment as it was", async () => {
      const k = key("decrement-ttl");
      // Two seconds, so that on a real clock a loaded machine's round trips stay well inside it.
      await store.increment(k, 2);
      await store.increment(k, 2);
      await wait(1000);
      await store.decrement(k);
      await expect(store.get(k)).resolves.toBe(1);
      await wait(1100);
      await expect(store.get(k)).resolves.toBe(0);
    });

    it("concurrent increments and decrements balance", async () => {
      const k = key("balance");
      await Promise.all(Array.from({ length: 30 }, () => store.increment(k, 60)));
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? store.decrement(k) : store.increment(k, 60))));
      await expect(store.get(k)).resolves.toBe(30);
    });
  });
}
