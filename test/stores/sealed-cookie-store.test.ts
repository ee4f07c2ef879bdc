import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { nowSeconds } from "../../src/clock.js";
import { memoryCounterStore } from "../../src/stores/memory-counter-store.js";
import { redisCounterStore } from "services-session-auth/redis";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import type { CounterStore, SessionRecord } from "../../src/types.js";
import { describeSessionStore, type SessionStoreCapabilities } from "./contract.js";
import { redisUrl, useSharedRedis } from "./redis-helpers.js";

const password = "a-test-password-that-is-at-least-32-characters-long";
/** A memory store fit for revocations: it refuses rather than forgets when full. */
const revocationStore = () => memoryCounterStore({ whenFull: "reject" });
const capabilities: SessionStoreCapabilities = { touchExtends: false, listByUser: false, countsDestroyed: false };

describeSessionStore("sealedCookieStore", () => sealedCookieStore({ password, revocations: revocationStore() }), { capabilities });

describe.skipIf(!redisUrl)("sealedCookieStore with Redis revocations", () => {
  const { client, prefix } = useSharedRedis("sealed");
  describeSessionStore("sealedCookieStore + redisCounterStore", () => sealedCookieStore({ password, revocations: redisCounterStore({ client, prefix }) }), {
    capabilities,
    clock: "real",
  });

  it("keeps sessions and logouts across a restart: the revocations outlive the process", async () => {
    const before = sealedCookieStore({ password, revocations: redisCounterStore({ client, prefix }) });
    const loggedOut = await before.create(recordFor("41"));
    const live = await before.create(recordFor("41"));
    await before.destroy((await before.get(loggedOut))!.handle);
    const after = sealedCookieStore({ password, revocations: redisCounterStore({ client, prefix }) });
    await expect(after.get(loggedOut)).resolves.toBeNull();
    await expect(after.get(live)).resolves.not.toBeNull();
  });

  it("bounds one user's marks in Redis too", async () => {
    const store = sealedCookieStore({ password, revocations: redisCounterStore({ client, prefix }), maxMarksPerUser: 2, prefix: "budget:" });
    const mine = await Promise.all([1, 2, 3, 4].map(() => store.create(recordFor("42"))));
    for (const sessid of mine.slice(0, 3)) await store.destroy((await store.get(sessid))!.handle);
    for (const sessid of mine) await expect(store.get(sessid)).resolves.toBeNull();
    const marks = [];
    for await (const keys of client.scanIterator({ MATCH: `${prefix}budget:h:*`, COUNT: 500 })) marks.push(...keys);
    expect(marks).toHaveLength(2);
  });
});

function recordFor(uid: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const now = nowSeconds();
  return { uid, createdAt: now, lastSeenAt: now, expiresAt: now + 3600, ip: "2001:db8::1", userAgent: "sealed-test", ...overrides };
}

describe("sealedCookieStore", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("refuses a password shorter than 32 characters or weak as the secret rule has it, or a bad option, with a TypeError", () => {
    const revocations = revocationStore();
    expect(() => sealedCookieStore({ password: "a".repeat(32), revocations })).toThrow(/looks weak/);
    expect(() => sealedCookieStore({ password: "password".repeat(4) + "1", revocations })).toThrow(/looks weak/);
    expect(() => sealedCookieStore({ password: "short", revocations })).toThrow(TypeError);
    expect(() => sealedCookieStore({ password: { 1: password, 2: "short" }, revocations })).toThrow(/32/);
    expect(() => sealedCookieStore({ password: { first: password }, revocations })).toThrow(TypeError);
    expect(() => sealedCookieStore({ password: { "01": password }, revocations })).toThrow(TypeError);
    expect(() => sealedCookieStore({ password: {}, revocations })).toThrow(TypeError);
    expect(() => sealedCookieStore({ password } as never)).toThrow(/revocations/);
  });

  it("refuses a memory counter store that evicts when full, as a TypeError naming revocations", () => {
    expect(() => sealedCookieStore({ password, revocations: memoryCounterStore() })).toThrow(/revocations: must never drop unexpired keys/);
    expect(() => sealedCookieStore({ password, revocations: memoryCounterStore({ whenFull: "evict" }) })).toThrow(TypeError);
    expect(() => sealedCookieStore({ password, revocations: memoryCounterStore({ whenFull: "reject" }) })).not.toThrow();
  });

  it("a logout survives a flood of the revocation store: a full store rejects new keys and keeps its marks", async () => {
    const revocations = memoryCounterStore({ maxKeys: 10, whenFull: "reject" });
    const store = sealedCookieStore({ password, revocations });
    const sessid = await store.create(recordFor("5"));
    await store.destroy((await store.get(sessid))!.handle);
    await expect(store.get(sessid)).resolves.toBeNull();
    // Keys of another namespace are bounded on their own and cannot touch the marks.
    await Promise.allSettled(Array.from({ length: 20 }, (_, i) => revocations.increment(`flood:ip:${i}`, 60)));
    await expect(store.get(sessid)).resolves.toBeNull();
    // A flood of the marks' own namespace fills it.
    const flood = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => revocations.increment(`sealed:flood:${i}`, 60)));
    // The logout took two keys: its mark, and its user's count of marks.
    expect(flood.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(8);
    await expect(store.get(sessid)).resolves.toBeNull();
    // A logout that finds the store full fails loudly, it is not dropped (the router then ends the session another way).
    const other = await store.create(recordFor("6"));
    await expect(store.destroy((await store.get(other))!.handle)).rejects.toThrow(/full/);
  });

  it("keeps ids sealed with an older numbered password readable after rotation", async () => {
    const revocations = revocationStore();
    const next = "the-next-password-also-32-characters-or-more";
    const before = sealedCookieStore({ password: { 1: password }, revocations });
    const sessid = await before.create(recordFor("5"));
    const rotated = sealedCookieStore({ password: { 2: next, 1: password }, revocations });
    await expect(rotated.get(sessid)).resolves.not.toBeNull();
    const fresh = await rotated.create(recordFor("5"));
    await expect(before.get(fresh)).resolves.toBeNull();
    const retired = sealedCookieStore({ password: { 2: next }, revocations });
    await expect(retired.get(sessid)).resolves.toBeNull();
    await expect(retired.get(fresh)).resolves.not.toBeNull();
  });

  it("reads only the exact id it made: a changed version marker or spare base64url bits are refused", async () => {
    const store = sealedCookieStore({ password, revocations: revocationStore() });
    // An id whose length is not a multiple of 4: its last character carries bits the decoder drops.
    let sessid = await store.create(recordFor("5"));
    for (let uid = "55"; sessid.length % 4 === 0; uid += "5") sessid = await store.create(recordFor(uid));
    const seal = Buffer.from(sessid, "base64url").toString("utf8");
    const otherMarker = Buffer.from(seal.replace(/~2$/, "~0"), "utf8").toString("base64url");
    const spareBits = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
      .map((last) => sessid.slice(0, -1) + last)
      .filter((id) => id !== sessid && Buffer.from(id, "base64url").equals(Buffer.from(sessid, "base64url")));
    expect(spareBits.length).toBeGreaterThan(0);
    for (const id of [otherMarker, ...spareBits]) await expect(store.get(id)).resolves.toBeNull();
    await expect(store.get(sessid)).resolves.not.toBeNull();
  });

  it("cannot be read with another password", async () => {
    const sessid = await sealedCookieStore({ password, revocations: revocationStore() }).create(recordFor("5"));
    const other = sealedCookieStore({ password: "another-sealing-password-0123456789-xyz", revocations: revocationStore() });
    await expect(other.get(sessid)).resolves.toBeNull();
  });

  it("fits a cookie: 0.7 to 1.7 KB, far under 4096 bytes even at the largest record the router writes", async () => {
    const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    const records = [
      recordFor("1", { userAgent: "okhttp/4.12.0", ip: "203.0.113.7" }),
      recordFor("14", { userAgent: chrome, ip: "203.0.113.7" }),
      recordFor("1234567", { userAgent: "M".repeat(256), ip: "2001:db8:85a3::8a2e:370:7334" }),
      // The router keeps 256 characters of User-Agent; quotes double in JSON, and the
      // longest textual IP is 45 characters.
      recordFor("4294967295", { userAgent: '"'.repeat(256), ip: "0000:0000:0000:0000:0000:ffff:255.255.255.255" }),
    ];
    const lengths = async (revocations: CounterStore) => {
      const store = sealedCookieStore({ password, revocations });
      return Promise.all(records.map(async (record) => (await store.create(record)).length));
    };
    // A store shared between processes (Redis), and one in this process's memory, whose
    // ids also carry its 12-character generation.
    const memory = revocationStore();
    const shared = await lengths({ increment: (k, t) => memory.increment(k, t), get: (k) => memory.get(k), delete: (k) => memory.delete(k) } as CounterStore);
    const inMemory = await lengths(memory);
    console.info(
      `sealedCookieStore sessid length: ${shared[0]} (short UA, IPv4), ${shared[1]} (${chrome.length}-char Chrome UA, IPv4), ` +
        `${shared[2]} (256-char UA, IPv6), ${shared[3]} (256 escaped UA characters, 45-char IP, 10-digit uid); ${inMemory.join(", ")} over memory revocations`,
    );
    expect(shared).toEqual([667, 838, 1150, 1634]);
    expect(inMemory).toEqual([695, 866, 1179, 1662]);
    const attributes =
      "; expires=Wed, 16 Dec 2026 20:42:04 GMT; Max-Age=2000000; path=/; domain=.a-long-host-name.example.com; secure; HttpOnly; SameSite=Strict";
    expect(`SSESS${"0".repeat(32)}=${"x".repeat(inMemory[3]!)}${attributes}`.length).toBeLessThan(4096);
  });

  it("checks expiry and revocation on every read, cached or not", async () => {
    const revocations = revocationStore();
    const store = sealedCookieStore({ password, revocations });
    const now = nowSeconds();
    const sessid = await store.create(recordFor("9", { expiresAt: now + 60 }));
    const other = await store.create(recordFor("9"));
    const { handle } = (await store.get(sessid))!;
    await store.get(sessid);
    await store.destroy(handle);
    await expect(store.get(sessid)).resolves.toBeNull();
    await expect(store.get(other)).resolves.not.toBeNull();
    const third = await store.create(recordFor("9", { expiresAt: now + 60 }));
    await store.get(third);
    vi.setSystemTime((now + 60) * 1000);
    await expect(store.get(third)).resolves.toBeNull();
  });

  it("shares revocations between instances through the counter store", async () => {
    const revocations = revocationStore();
    const a = sealedCookieStore({ password, revocations });
    const b = sealedCookieStore({ password, revocations });
    const first = await a.create(recordFor("11"));
    const second = await a.create(recordFor("11"));
    await expect(b.get(first)).resolves.not.toBeNull();
    await b.destroy((await b.get(first))!.handle);
    await expect(a.get(first)).resolves.toBeNull();
    await b.destroyByUser("11");
    await expect(a.get(second)).resolves.toBeNull();
  });

  it("gives a destroyed session's mark a TTL of its remaining life", async () => {
    const revocations = revocationStore();
    const spy = vi.spyOn(revocations, "increment");
    const store = sealedCookieStore({ password, revocations });
    const now = nowSeconds();
    const sessid = await store.create(recordFor("3", { expiresAt: now + 500 }));
    await store.destroy((await store.get(sessid))!.handle);
    expect(spy).toHaveBeenCalledWith(expect.stringContaining(":h:"), 500);
  });

  it("destroyByUser reaches sessions sealed in the previous revocation period", async () => {
    const store = sealedCookieStore({ password, revocations: revocationStore(), maxAgeSeconds: 1000 });
    // One second before a period boundary, so the read below falls in the next period.
    const boundary = Math.ceil(nowSeconds() / 1000) * 1000;
    vi.setSystemTime((boundary - 1) * 1000);
    const sessid = await store.create(recordFor("21", { expiresAt: nowSeconds() + 900 }));
    vi.setSystemTime(Date.now() + 5000);
    await expect(store.get(sessid)).resolves.not.toBeNull();
    await store.destroyByUser("21");
    await expect(store.get(sessid)).resolves.toBeNull();
    const later = await store.create(recordFor("21", { expiresAt: nowSeconds() + 900 }));
    await expect(store.get(later)).resolves.not.toBeNull();
  });

  it("ends a seal at maxAgeSeconds even if its record says later", async () => {
    const store = sealedCookieStore({ password, revocations: revocationStore(), maxAgeSeconds: 100 });
    const now = nowSeconds();
    const sessid = await store.create(recordFor("4", { expiresAt: now + 10_000 }));
    vi.setSystemTime((now + 99) * 1000);
    await expect(store.get(sessid)).resolves.not.toBeNull();
    vi.setSystemTime((now + 100) * 1000);
    await expect(store.get(sessid)).resolves.toBeNull();
  });

  it("refuses oversized and non-base64url ids before decrypting", async () => {
    const store = sealedCookieStore({ password, revocations: revocationStore() });
    await expect(store.get("A".repeat(5000))).resolves.toBeNull();
    await expect(store.get(`Fe26.2*1*${"a".repeat(60)}`)).resolves.toBeNull();
  });

  it("records at most maxMarksPerUser logouts per user: past that, a logout ends all that user's sessions", async () => {
    const revocations = revocationStore();
    const increments = vi.spyOn(revocations, "increment");
    const store = sealedCookieStore({ password, revocations, maxMarksPerUser: 3 });
    const others = await store.create(recordFor("8"));
    const mine = await Promise.all(Array.from({ length: 6 }, () => store.create(recordFor("7"))));
    for (const sessid of mine.slice(0, 3)) await store.destroy((await store.get(sessid))!.handle);
    for (const sessid of mine.slice(0, 3)) await expect(store.get(sessid)).resolves.toBeNull();
    for (const sessid of mine.slice(3)) await expect(store.get(sessid)).resolves.not.toBeNull();
    // The fourth logout: user 7 is logged out everywhere, user 8 is not.
    await store.destroy((await store.get(mine[3]!))!.handle);
    for (const sessid of mine) await expect(store.get(sessid)).resolves.toBeNull();
    await expect(store.get(others)).resolves.not.toBeNull();
    const keys = new Set(increments.mock.calls.map(([key]) => key));
    // Three marks, the count of marks, and the user's revocation count.
    expect(keys.size).toBe(5);
    // A login after it is live.
    vi.setSystemTime(Date.now() + 1000);
    await expect(store.get(await store.create(recordFor("7")))).resolves.not.toBeNull();
  });

  it("one account's login and logout cycles cannot fill the revocation store that other users' logouts need", async () => {
    const revocations = memoryCounterStore({ maxKeys: 100, whenFull: "reject" });
    const store = sealedCookieStore({ password, revocations });
    const victim = await store.create(recordFor("2"));
    for (let i = 0; i < 500; i++) {
      const sessid = await store.create(recordFor("666"));
      await store.destroy((await store.get(sessid))!.handle);
      await expect(store.get(sessid)).resolves.toBeNull();
    }
    // Before the budget, the 500 marks filled the store and this logout was refused.
    await store.destroy((await store.get(victim))!.handle);
    await expect(store.get(victim)).resolves.toBeNull();
  });

  it("over memory revocations, a restart ends every session instead of reviving logged-out ones", async () => {
    const before = sealedCookieStore({ password, revocations: revocationStore() });
    const loggedOut = await before.create(recordFor("31"));
    const live = await before.create(recordFor("31"));
    await before.destroy((await before.get(loggedOut))!.handle);
    await expect(before.get(live)).resolves.not.toBeNull();
    // A restart: a new process has a new memory store, empty of the logout above.
    const after = sealedCookieStore({ password, revocations: revocationStore() });
    await expect(after.get(loggedOut)).resolves.toBeNull();
    await expect(after.get(live)).resolves.toBeNull();
    await expect(after.get(await after.create(recordFor("31")))).resolves.not.toBeNull();
  });
});
