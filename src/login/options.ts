import { availableParallelism } from "node:os";
import { z } from "zod";
import type { CounterStore, PasswordHasher } from "../types.js";
import { implementing } from "../validate.js";
import { scryptHasher } from "./scrypt-hasher.js";

/** The login path's options, part of {@link SessionAuthOptions}; each is explained in docs/options.md#login. */
export interface LoginOptions {
  /**
   * Hashes and verifies passwords.
   * @default scryptHasher() (N=2^17, r=8, p=1)
   */
  hasher?: PasswordHasher;
  /**
   * Holds the login-failure counters. Use the Redis counter store when several instances serve logins.
   * @default memoryCounterStore()
   */
  counterStore?: CounterStore;
  /**
   * Login throttling limits, or `false` to turn throttling off (not recommended).
   * @default Drupal's: 50 per IP per hour, 5 per account per 6 hours
   */
  throttle?: ThrottleOptions | false;
  /**
   * How a login to a blocked account is answered: Services' 403 (which tells the account exists), or the wrong password's 401.
   * @default "drupal"
   */
  blockedAccountResponse?: "drupal" | "generic";
  /** @default 1024: longer passwords are refused before any hashing */
  maxPasswordBytes?: number;
  /** @default 255: longer names are refused before any lookup */
  maxNameLength?: number;
  /**
   * Leading bits of an IPv6 address that name one client (ISPs hand out a /64); IPv4 always counts alone.
   * @default 64
   */
  ipv6Prefix?: number;
  /** Admission control for password checks. @default see {@link HashingOptions} */
  hashing?: HashingOptions;
  /**
   * Device cookies against lockout abuse (OWASP): a login carrying one for its account is counted
   * against the cookie alone and checked first, so others' failures cannot lock its holder out.
   * Off because it adds a second `Set-Cookie` Drupal never sent; see docs/options.md#login.
   * @default off: the login reply sets Drupal's cookies only
   */
  deviceCookies?: boolean | DeviceCookieOptions;
}

/**
 * The device cookie of {@link LoginOptions.deviceCookies}: `HttpOnly`, host-only, `path=/`, and
 * `__Host-<name>` over HTTPS so a sibling subdomain cannot plant one.
 *
 * @example
 * ```ts
 * createSessionAuthRouter({ ...options, deviceCookies: { name: "app_device", maxAge: 30 * 86_400 } });
 * ```
 */
export interface DeviceCookieOptions {
  /** The name, without a prefix: over HTTPS the cookie is `__Host-<name>`. @default "ssa_device" */
  name?: string;
  /** How long a device cookie is good for, in seconds; each successful login sets a new one. @default 7776000 (90 days) */
  maxAge?: number;
}

/**
 * Drupal's flood-control limits (`_user_resource_flood_control_precheck`, `user_failed_login_*`).
 *
 * @example
 * ```ts
 * createSessionAuthRouter({ ...options, throttle: { userLimit: 10, userWindow: 3600, perAccountOnly: true } });
 * ```
 */
export interface ThrottleOptions {
  /**
   * Counted per client address; a request with no IP address has no address limit (`address.unknown`).
   * @default 50 failed logins per IP per window
   */
  ipLimit?: number;
  /** @default 3600 seconds */
  ipWindow?: number;
  /** @default 5 failed logins per account (and IP) per window */
  userLimit?: number;
  /** @default 21600 seconds */
  userWindow?: number;
  /**
   * Count account failures per account only, not per account and IP (Drupal's `user_failed_login_identifier_uid_only`).
   * @default false
   */
  perAccountOnly?: boolean;
}

/**
 * Admission control for password checks on libuv's thread pool: a bounded number at once, waiting
 * logins served one client address after another, a `503` past `maxWait` that counts for nothing.
 * See docs/security.md#the-login-path-under-attack.
 *
 * @example
 * ```ts
 * createSessionAuthRouter({ ...options, hashing: { concurrency: 4, maxWait: 8 } });
 * ```
 */
export interface HashingOptions {
  /**
   * Password checks run at once (leaving a pool thread for file and DNS work).
   * @default the number of cores, at most the thread pool's size minus one (2 on a 2-core machine with the default pool)
   */
  concurrency?: number;
  /**
   * Seconds a login may wait in all (for a check, or behind its address's or account's checks in
   * flight) before a `503`: keep it under clients' timeouts (OkHttp reads for 10 s). At most 120.
   * @default 5
   */
  maxWait?: number;
  /**
   * The most logins waiting for a check at once; and, apart, the most held behind others in flight.
   * @default 1000
   */
  maxQueue?: number;
}

/** The defaults of {@link LoginOptions} that are plain values. */
export const LOGIN_DEFAULTS = Object.freeze({
  throttle: Object.freeze({ ipLimit: 50, ipWindow: 3600, userLimit: 5, userWindow: 21_600, perAccountOnly: false }),
  blockedAccountResponse: "drupal",
  maxPasswordBytes: 1024,
  maxNameLength: 255,
  ipv6Prefix: 64,
  hashing: Object.freeze({ maxWait: 5, maxQueue: 1000 }),
  deviceCookies: Object.freeze({ name: "ssa_device", maxAge: 7_776_000 }),
} as const);

const count = z.number().int().positive();

/** The checks of {@link LoginOptions}, one per option. */
export const loginShape = {
  hasher: implementing<PasswordHasher>("PasswordHasher", ["hash", "verify", "needsRehash"]).optional(),
  counterStore: implementing<CounterStore>("CounterStore", ["increment", "decrement", "get", "delete"]).optional(),
  throttle: z
    .union([
      z.literal(false),
      z.strictObject({
        ipLimit: count.optional(),
        ipWindow: count.optional(),
        userLimit: count.optional(),
        userWindow: count.optional(),
        perAccountOnly: z.boolean().optional(),
      }),
    ])
    .optional(),
  blockedAccountResponse: z.enum(["drupal", "generic"]).optional(),
  maxPasswordBytes: count.optional(),
  maxNameLength: count.optional(),
  ipv6Prefix: z.number().int().min(1).max(128).optional(),
  hashing: z
    .strictObject({
      concurrency: count.optional(),
      // A login waiting longer than two minutes has long been given up by its client.
      maxWait: z.number().positive().max(120).optional(),
      maxQueue: count.optional(),
    })
    .optional(),
  deviceCookies: z
    .union([
      z.boolean(),
      z.strictObject({
        // A cookie-name token (RFC 6265), so the header can carry it as given.
        name: z
          .string()
          .regex(/^[\w!#$%&'*+\-.^`|~]{1,64}$/, "must be a cookie name: letters, digits and !#$%&'*+-.^_`|~")
          // Browsers refuse prefixed cookies over plain HTTP; over HTTPS the package adds __Host- itself.
          .refine(
            (name) => !/^__(?:host|secure)-/i.test(name),
            "must not start with __Host- or __Secure-: over HTTPS the package names it __Host-<name> itself",
          )
          .optional(),
        maxAge: count.optional(),
      }),
    ])
    .optional(),
};

/** What the login path ({@link Authenticator}) works with: its options completed. */
export interface LoginSettings {
  readonly hasher: PasswordHasher;
  readonly throttle: Readonly<Required<ThrottleOptions>> | false;
  readonly blockedAccountResponse: "drupal" | "generic";
  readonly maxPasswordBytes: number;
  readonly maxNameLength: number;
  readonly ipv6Prefix: number;
  readonly hashing: Readonly<Required<HashingOptions>>;
  /** The key of the keyed hash that stands for a login name in throttle keys and audit events. */
  readonly nameKey: Buffer;
  /** The device cookie and the key that signs it, or `false` when device cookies are off. */
  readonly deviceCookies: (Readonly<Required<DeviceCookieOptions>> & { readonly key: Buffer }) | false;
}

/** Completes checked {@link LoginOptions}; the name and device keys are derived from the secret by the caller. */
export function loginSettings(input: z.output<z.ZodObject<typeof loginShape>>, nameKey: Buffer, deviceKey: Buffer): LoginSettings {
  const devices = input.deviceCookies;
  return Object.freeze({
    hasher: input.hasher ?? scryptHasher(),
    throttle: input.throttle === false ? false : Object.freeze({ ...LOGIN_DEFAULTS.throttle, ...input.throttle }),
    blockedAccountResponse: input.blockedAccountResponse ?? LOGIN_DEFAULTS.blockedAccountResponse,
    maxPasswordBytes: input.maxPasswordBytes ?? LOGIN_DEFAULTS.maxPasswordBytes,
    maxNameLength: input.maxNameLength ?? LOGIN_DEFAULTS.maxNameLength,
    ipv6Prefix: input.ipv6Prefix ?? LOGIN_DEFAULTS.ipv6Prefix,
    hashing: Object.freeze({
      concurrency: input.hashing?.concurrency ?? defaultHashConcurrency(),
      maxWait: input.hashing?.maxWait ?? LOGIN_DEFAULTS.hashing.maxWait,
      maxQueue: input.hashing?.maxQueue ?? LOGIN_DEFAULTS.hashing.maxQueue,
    }),
    nameKey,
    deviceCookies:
      devices === undefined || devices === false
        ? false
        : Object.freeze({ ...LOGIN_DEFAULTS.deviceCookies, ...(devices === true ? {} : devices), key: deviceKey }),
  });
}

/** One check per core, leaving one libuv thread for the file and DNS work that shares the pool. */
function defaultHashConcurrency(): number {
  const pool = Number(process.env.UV_THREADPOOL_SIZE);
  const threads = Number.isInteger(pool) && pool > 0 ? pool : 4;
  return Math.max(1, Math.min(availableParallelism(), threads - 1));
}
