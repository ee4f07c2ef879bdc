import { z } from "zod";
import type { RedisClientLike } from "./client.js";

/** The option check of a node-redis client, shared by the Redis stores: anything with `multi()` is taken as one. */
export const redisClientSchema = z.custom<RedisClientLike>(
  (value) => typeof value === "object" && value !== null && typeof (value as { multi?: unknown }).multi === "function",
  "expected a node-redis v5 or v6 client, cluster or sentinel",
);
