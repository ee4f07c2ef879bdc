import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { nowSeconds } from "../../src/core/clock.js";
import { memoryCounterStore } from "../../src/stores/memory-counter-store.js";
import { redisCounterStore } from "services-session-auth/redis";
import { sealedCookieStore } from "services-session-auth/sealed-cookie";
import type { SessionRecord } from "../../src/types.js";
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

  it("refuses a password shorter than 32 characters, or a bad option, with a TypeError", () => {
    const revocations = revocationStore();
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
    const flood = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => revocations.increment(`flood:ip:${i}`, 60)));
    expect(flood.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(9);
    await expect(store.get(sessid)).resolves.toBeNull();
    // A logout that finds the store full fails loudly (the router answers 503), it is not dropped.
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

  it("cannot be read with another password", async () => {
    const sessid = await sealedCookieStore({ password, revocations: revocationStore() }).create(recordFor("5"));
    const other = sealedCookieStore({ password: "x".repeat(32), revocations: revocationStore() });
    await expect(other.get(sessid)).resolves.toBeNull();
  });

  it("fits a cookie: 0.7 to 1.7 KB, far under 4096 bytes even at the largest record the router writes", async () => {
    const store = sealedCookieStore({ password, revocations: revocationStore() });
    const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    const small = await store.create(recordFor("1", { userAgent: "okhttp/4.12.0", ip: "203.0.113.7" }));
    const typical = await store.create(recordFor("14", { userAgent: chrome, ip: "203.0.113.7" }));
    const long = await store.create(recordFor("1234567", { userAgent: "M".repeat(256), ip: "2001:db8:85a3::8a2e:370:7334" }));
    // The router keeps 256 characters of User-Agent; quotes double in JSON, and the
    // longest textual IP is 45 characters.
    const largest = await store.create(recordFor("4294967295", { userAgent: '"'.repeat(256), ip: "0000:0000:0000:0000:0000:ffff:255.255.255.255" }));
    console.info(
      `sealedCookieStore sessid length: ${small.length} (short UA, IPv4), ${typical.length} (${chrome.length}-char Chrome UA, IPv4), ` +
        `${long.length} (256-char UA, IPv6), ${largest.length} (256 escaped UA characters, 45-char IP, 10-digit uid)`,
    );
    expect([small.length, typical.length, long.length, largest.length]).toEqual([667, 838, 1150, 1634]);
    const attributes = "; expires=Wed, 16 Dec 2026 20:42:04 GMT; Max-Age=2000000; path=/; domain=.a-long-host-name.example.com; secure; HttpOnly; SameSite=Strict";
    expect(`SSESS${"0".repeat(32)}=${largest}${attributes}`.length).toBeLessThan(4096);
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
});
