import { describe, expect, it } from "vitest";
import { redisCounterStore } from "services-session-auth/redis";
import { describeCounterStore } from "./contract.js";
import { redisUrl, useSharedRedis } from "./redis-helpers.js";

if (!redisUrl) console.warn("redis-counter-store.test.ts: REDIS_URL not set, skipping the Redis counter store tests");
if (!redisUrl) it.skip("REDIS_URL not set: set REDIS_URL=redis://127.0.0.1:6379 to run these tests", () => {});

describe.skipIf(!redisUrl)("redisCounterStore on REDIS_URL", () => {
  const { client, prefix } = useSharedRedis("counter");

  describeCounterStore("redisCounterStore", () => redisCounterStore({ client, prefix }), { clock: "real" });

  it("sets the TTL once, at the first increment", async () => {
    const store = redisCounterStore({ client, prefix });
    await store.increment("ip:1", 100);
    const first = await client.pTTL(`${prefix}ip:1`);
    await store.increment("ip:1", 1000);
    const second = await client.pTTL(`${prefix}ip:1`);
    expect(first).toBeGreaterThan(90_000);
    expect(second).toBeLessThanOrEqual(first);
  });

  it("rejects a missing client with a TypeError", () => {
    expect(() => redisCounterStore({} as never)).toThrow(TypeError);
  });
});
