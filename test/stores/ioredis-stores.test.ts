import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { nowSeconds } from "../../src/clock.js";
import { hashSessionId } from "../../src/sessions/session-id.js";
import type { createClient } from "redis";
import { ioredisCounterStore, ioredisSessionStore, type IoredisCounterStoreOptions, type IoredisSessionStoreOptions } from "services-session-auth/ioredis";
import { sessionKey, userIndexKey } from "../../src/stores/redis/keys.js";
import { describeCounterStore, describeSessionStore } from "./contract.js";
import { deleteKeys, redisUrl, uniquePrefix } from "./redis-helpers.js";

if (!redisUrl) console.warn("ioredis-stores.test.ts: REDIS_URL not set, skipping the ioredis store tests on a server");
if (!redisUrl) it.skip("REDIS_URL not set: set REDIS_URL=redis://127.0.0.1:6379 to run these tests", () => {});

// No connection is opened here: the clients are only constructed, to check types and options.
describe("ioredis stores, without a server", () => {
  it("take a Redis or a Cluster client, and not a node-redis one (that goes to /redis)", () => {
    expectTypeOf<{ client: Redis; prefix: string }>().toExtend<IoredisSessionStoreOptions>();
    expectTypeOf<{ client: Cluster }>().toExtend<IoredisCounterStoreOptions>();
    expectTypeOf<{ client: ReturnType<typeof createClient> }>().not.toExtend<IoredisSessionStoreOptions>();
  });

  it("refuse something that is not an ioredis client, and ioredis's own keyPrefix, with a TypeError naming the factory", () => {
    const prefixed = new Redis({ lazyConnect: true, keyPrefix: "app:" });
    const prefixedCluster = new Cluster([], { lazyConnect: true, redisOptions: { keyPrefix: "app:" } });
    const topPrefixedCluster = new Cluster([], { lazyConnect: true, keyPrefix: "app:" });
    const bufferPrefixed = new Redis({ lazyConnect: true, keyPrefix: Buffer.from("app:") as unknown as string });
    try {
      expect(() => ioredisSessionStore({ client: topPrefixedCluster })).toThrow(/keyPrefix is not supported/);
      expect(() => ioredisSessionStore({ client: bufferPrefixed })).toThrow(/keyPrefix is not supported/);
      expect(() => ioredisSessionStore({} as never)).toThrow(/ioredisSessionStore: invalid options: client/);
      expect(() => ioredisCounterStore({ client: { multi() {} } } as never)).toThrow(/ioredisCounterStore: invalid options: client/);
      expect(() => ioredisSessionStore({ client: prefixed })).toThrow(/keyPrefix is not supported/);
      expect(() => ioredisCounterStore({ client: prefixedCluster })).toThrow(/keyPrefix is not supported/);
      expect(() => ioredisSessionStore({ client: new Redis({ lazyConnect: true }), prefix: 3 } as never)).toThrow(TypeError);
    } finally {
      prefixed.disconnect();
      prefixedCluster.disconnect();
      topPrefixedCluster.disconnect();
      bufferPrefixed.disconnect();
    }
  });
});

describe.skipIf(!redisUrl)("ioredis stores on REDIS_URL", () => {
  const prefix = uniquePrefix("ioredis");
  const client = new Redis(redisUrl ?? "", { lazyConnect: true, enableOfflineQueue: false });

  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    await deleteKeys([redisUrl!], prefix);
    client.disconnect();
  });

  describeSessionStore("ioredisSessionStore", () => ioredisSessionStore({ client, prefix }), { clock: "real" });
  describeCounterStore("ioredisCounterStore", () => ioredisCounterStore({ client, prefix: `${prefix}c:` }), { clock: "real" });

  it("writes the key layout of the node-redis store, so an app can switch clients without losing sessions", async () => {
    const store = ioredisSessionStore({ client, prefix });
    const now = nowSeconds();
    const record = { uid: "51", createdAt: now, lastSeenAt: now, expiresAt: now + 600, ip: "::1", userAgent: "ua" };
    const handle = hashSessionId(await store.create(record));
    await expect(client.get(sessionKey(prefix, handle))).resolves.toBe(JSON.stringify(record));
    await expect(client.pexpiretime(sessionKey(prefix, handle))).resolves.toBe((now + 600) * 1000);
    await expect(client.zscore(userIndexKey(prefix, "51"), handle)).resolves.toBe(String(now + 600));
  });

  it("rejects with the server's error when a transaction command fails", async () => {
    const store = ioredisCounterStore({ client, prefix });
    await client.set(`${prefix}not-a-number`, "x");
    await expect(store.increment("not-a-number", 60)).rejects.toThrow(/not an integer/);
  });
});
