import { createClient as createBareClient } from "@redis/client";
import { createClient, createCluster, createSentinel } from "redis";
import { describe, expect, expectTypeOf, it } from "vitest";
import { isClusterClient, type RedisClientLike } from "../../src/stores/redis/client.js";

// No connection is opened: these clients are only constructed, to check their types and shape.
describe("RedisClientLike", () => {
  it("accepts every node-redis v5 client shape an app may already have", () => {
    expectTypeOf(createClient()).toExtend<RedisClientLike>();
    expectTypeOf(createClient({ RESP: 3 })).toExtend<RedisClientLike>();
    expectTypeOf(createBareClient()).toExtend<RedisClientLike>();
    expectTypeOf(createCluster({ rootNodes: [] })).toExtend<RedisClientLike>();
    expectTypeOf(createSentinel({ name: "mymaster", sentinelRootNodes: [] })).toExtend<RedisClientLike>();
  });

  it("tells a cluster client from a plain or sentinel one", () => {
    expect(isClusterClient(createClient())).toBe(false);
    expect(isClusterClient(createSentinel({ name: "mymaster", sentinelRootNodes: [{ host: "127.0.0.1", port: 26379 }] }))).toBe(false);
    expect(isClusterClient(createCluster({ rootNodes: [{ url: "redis://127.0.0.1:7000" }] }))).toBe(true);
  });
});
