import { describe, expect, it } from "vitest";
import { nowSeconds } from "../../src/clock.js";
import { hashSessionId } from "../../src/sessions/session-id.js";
import { redisSessionStore, type RedisClientLike } from "services-session-auth/redis";
import { sessionKey, userIndexKey } from "../../src/stores/redis/keys.js";
import { describeSessionStore } from "./contract.js";
import { redisUrl, useSharedRedis } from "./redis-helpers.js";

if (!redisUrl) console.warn("redis-session-store.test.ts: REDIS_URL not set, skipping the Redis session store tests");
if (!redisUrl) it.skip("REDIS_URL not set: set REDIS_URL=redis://127.0.0.1:6379 to run these tests", () => {});

/**
 * The client as seen through a connection that drops after `allowed` round trips: every
 * later command rejects without reaching Redis. A transaction counts once, at `exec`.
 */
function droppingAfter(client: RedisClientLike, allowed: number): RedisClientLike {
  let sent = 0;
  const send = <T>(call: () => Promise<T>): Promise<T> => (++sent > allowed ? Promise.reject(new Error("connection lost")) : call());
  return new Proxy(client, {
    get(target, key: string) {
      const value = (target as unknown as Record<string, (...args: unknown[]) => unknown>)[key];
      if (typeof value !== "function") return value;
      if (key === "multi") {
        return () => {
          const tx = value.call(target) as { exec(): Promise<unknown> };
          const exec = tx.exec.bind(tx);
          tx.exec = () => send(exec);
          return tx;
        };
      }
      return (...args: unknown[]) => send(() => value.apply(target, args) as Promise<unknown>);
    },
  });
}

describe.skipIf(!redisUrl)("redisSessionStore on REDIS_URL", () => {
  const { client, prefix } = useSharedRedis("session");

  /** Whether each session's record and its index entry are both present or both absent. */
  async function consistent(uid: string, handles: string[]): Promise<boolean> {
    for (const handle of handles) {
      const hasRecord = (await client.exists(sessionKey(prefix, handle))) === 1;
      const indexed = (await client.zScore(userIndexKey(prefix, uid), handle)) !== null;
      if (hasRecord !== indexed) return false;
    }
    return true;
  }

  it("destroy and destroyByUser are all or nothing however many round trips get through", async () => {
    const now = nowSeconds();
    for (const operation of ["destroy", "destroyByUser"] as const) {
      for (let allowed = 0; allowed <= 4; allowed++) {
        const uid = `atomic-${operation}-${allowed}`;
        const setup = redisSessionStore({ client, prefix });
        const ids = await Promise.all(
          [1, 2, 3].map(() => setup.create({ uid, createdAt: now, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "ua" })),
        );
        const handles = ids.map(hashSessionId);
        const store = redisSessionStore({ client: droppingAfter(client, allowed), prefix });
        await (operation === "destroy" ? store.destroy(handles[0]!) : store.destroyByUser(uid)).catch(() => undefined);
        expect(await consistent(uid, handles), `${operation} with ${allowed} round trips`).toBe(true);
      }
    }
  });

  describeSessionStore("redisSessionStore", () => redisSessionStore({ client, prefix }), { clock: "real" });

  it("keeps only the hashed id in Redis, expiring at expiresAt", async () => {
    const store = redisSessionStore({ client, prefix });
    const now = nowSeconds();
    const record = { uid: "42", createdAt: now, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "ua" };
    const sessid = await store.create(record);
    const handle = hashSessionId(sessid);
    await expect(client.exists(`${prefix}s:${sessid}`)).resolves.toBe(0);
    await expect(client.get(sessionKey(prefix, handle))).resolves.toBe(JSON.stringify(record));
    await expect(client.pExpireTime(sessionKey(prefix, handle))).resolves.toBe((now + 600) * 1000);
    await expect(client.zScore(userIndexKey(prefix, "42"), handle)).resolves.toBe(now + 600);
    const indexExpiry = await client.pExpireTime(userIndexKey(prefix, "42"));
    expect(indexExpiry).toBeGreaterThanOrEqual((now + 600) * 1000);
  });

  it("prunes stale index members when listing", async () => {
    const store = redisSessionStore({ client, prefix });
    const now = nowSeconds();
    const uid = "4242";
    const sessid = await store.create({ uid, createdAt: now, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "ua" });
    // A record lost without its index entry (evicted under memory pressure, say).
    await client.del(sessionKey(prefix, hashSessionId(sessid)));
    await expect(store.listByUser(uid)).resolves.toEqual([]);
    await expect(client.zCard(userIndexKey(prefix, uid))).resolves.toBe(0);
  });

  it("reads a foreign or corrupt value as no session", async () => {
    const store = redisSessionStore({ client, prefix });
    const sessid = "C".repeat(43);
    await client.set(sessionKey(prefix, hashSessionId(sessid)), "{not json");
    await expect(store.get(sessid)).resolves.toBeNull();
    await client.set(sessionKey(prefix, hashSessionId(sessid)), JSON.stringify({ uid: "1", admin: true }));
    await expect(store.get(sessid)).resolves.toBeNull();
  });

  it("rejects a missing client with a TypeError", () => {
    expect(() => redisSessionStore({} as never)).toThrow(TypeError);
    expect(() => redisSessionStore({ client, prefix: 3 } as never)).toThrow(/redisSessionStore/);
  });
});
