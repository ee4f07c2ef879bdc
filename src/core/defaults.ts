import { availableParallelism } from "node:os";
import type { RequestParser } from "./options.js";

/**
 * The default of every option that has a plain value, in one place: the resolver fills
 * options from it, the OpenAPI document reads it, and a test holds each `@default` tag of
 * `options.ts` to it. Defaults that are computed (the cookie's name, the hasher, the counter
 * store, the check concurrency) are described where they are made.
 */
export const DEFAULTS = Object.freeze({
  cookieSecure: "auto",
  idleTimeout: 200_000,
  absoluteTimeout: 2_000_000,
  touchInterval: 180,
  storeTimeout: 2,
  throttle: Object.freeze({ ipLimit: 50, ipWindow: 3600, userLimit: 5, userWindow: 21_600, perAccountOnly: false }),
  maxSessionsPerUser: 20,
  blockedAccountResponse: "drupal",
  loginApiVersion: "1.0",
  logoutApiVersion: "1.0",
  maxPasswordBytes: 1024,
  maxNameLength: 255,
  bodyLimit: 65_536,
  trustedOrigins: Object.freeze([] as string[]),
  ipv6Prefix: 64,
  hashing: Object.freeze({ maxWait: 5, maxQueue: 1000 }),
  parsers: Object.freeze(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"] as RequestParser[]),
  endpointName: "services",
  clearSiteData: false,
  csrf: true,
  roles: Object.freeze([] as string[]),
  onDenied: "reply",
} as const);

/** One check per core, leaving one libuv thread for the file and DNS work that shares the pool. */
export function defaultHashConcurrency(): number {
  const pool = Number(process.env.UV_THREADPOOL_SIZE);
  const threads = Number.isInteger(pool) && pool > 0 ? pool : 4;
  return Math.max(1, Math.min(availableParallelism(), threads - 1));
}
