import { availableParallelism } from "node:os";
import { z } from "zod";
import type { CounterStore, PasswordHasher } from "../types.js";
import { implementing } from "../validate.js";
import { scryptHasher } from "./scrypt-hasher.js";

/**
 * The options of the login path: hashing, throttling and the limits on what a login may
 * send, with their documentation, checks and defaults. {@link SessionAuthOptions} includes them.
 */
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
   * How a login to a blocked account is answered. `"drupal"` is Services' 403, which tells a
   * caller the account exists; `"generic"` answers the same 401 as a wrong password.
   * @default "drupal"
   */
  blockedAccountResponse?: "drupal" | "generic";
  /** @default 1024: longer passwords are refused before any hashing */
  maxPasswordBytes?: number;
  /** @default 255: longer names are refused before any lookup */
  maxNameLength?: number;
  /**
   * How many leading bits of an IPv6 address name one client, for the login throttle and
   * the fair hashing queue: an ISP hands each subscriber a whole /64 (or more), so counting
   * single addresses would give an attacker a fresh counter per guess. 128 counts every
   * address alone. IPv4 addresses, and IPv4-mapped IPv6 ones, always count alone.
   * @default 64
   */
  ipv6Prefix?: number;
  /** Admission control for password checks. @default see {@link HashingOptions} */
  hashing?: HashingOptions;
  /**
   * Device cookies against lockout abuse (OWASP's "device cookies"): after a successful
   * login, the reply also sets a signed cookie bound to the account (by keyed tags of its
   * name and its uid, never either). A later login that carries it for the same account (the
   * one the user store finds for the name: `démo` earns nothing at `demo` where the store
   * tells them apart) is counted against that cookie alone, with the account's limit
   * (`throttle.userLimit` per `userWindow`), not against its address or the account, so
   * others' failures, from its own network or anywhere, cannot lock its holder out; and it
   * goes ahead of other clients in the hashing queue. A holder's own failures use up its
   * cookie, not the account. Every value of the cookie a request carries is read, so values
   * planted beside it never hide it; over HTTPS it is a `__Host-` cookie, which a sibling
   * subdomain cannot plant at all (see {@link DeviceCookieOptions}).
   * `true` for the defaults of {@link DeviceCookieOptions}. Off by default because it adds a
   * second `Set-Cookie` to the login reply, which Drupal never sent: a client written for
   * Drupal that reads one `Set-Cookie` header to find its session (Java's
   * `HttpURLConnection.getHeaderField` and OkHttp's `header()` read the last, other code the
   * first) could pick up the wrong cookie. Turn it on once your clients keep cookies in a jar
   * (browsers, jDrupal, DrupalGap, OkHttp with a `CookieJar`, `NSHTTPCookieStorage`); they then
   * get it with no change. The device cookie is set before the session cookie, which stays last.
   * @default off: the login reply sets Drupal's cookies only
   */
  deviceCookies?: boolean | DeviceCookieOptions;
}

/**
 * The device cookie (see {@link LoginOptions.deviceCookies}): `HttpOnly`, host-only (no
 * `Domain`), `path=/`, with the session cookie's `Secure` and `SameSite`. Where the session
 * cookie is `Secure` (HTTPS), it is named `__Host-<name>`, a name a browser accepts only from
 * this host over HTTPS, so a sibling subdomain cannot plant one; only that name is read there.
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
 * Drupal's flood-control limits (`_user_resource_flood_control_precheck` and the
 * `user_failed_login_*` variables), each configurable.
 *
 * @example
 * ```ts
 * createSessionAuthRouter({ ...options, throttle: { userLimit: 10, userWindow: 3600, perAccountOnly: true } });
 * ```
 */
export interface ThrottleOptions {
  /**
   * Counted per client address (`req.ip`). A request whose address is not an IP address (an
   * app on a Unix socket whose `trust proxy` is not a hop count) has no address limit and its
   * account is counted alone, as with `perAccountOnly`; the first one raises `address.unknown`.
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
 * Admission control for password checks: how many run at once and how long a login may wait
 * for one. Checks run on libuv's thread pool (4 threads unless `UV_THREADPOOL_SIZE` says
 * otherwise), which Node shares with file access and DNS lookups; the default leaves one
 * thread free for those and runs no more checks at once than there are cores. Waiting logins
 * are served fairly, one per client address (an IPv6 /64 counts as one) in turn, so a burst
 * from one address waits behind itself. A login that would wait longer than `maxWait` is
 * answered at once with `503` and `Retry-After`, is not counted as a failed login, and
 * changes nothing. `maxWait` also bounds the wait of a login the throttle holds back only
 * because other attempts of its address or account are still being checked.
 *
 * @example
 * ```ts
 * createSessionAuthRouter({ ...options, hashing: { concurrency: 4, maxWait: 8 } });
 * ```
 */
export interface HashingOptions {
  /**
   * Password checks run at once.
   * @default the number of cores, at most the thread pool's size minus one (2 on a 2-core machine with the default pool)
   */
  concurrency?: number;
  /**
   * Seconds a login may wait in all, for a check or for its turn behind other attempts of its
   * address or account still being checked, before it is answered `503`. Keep it below your
   * clients' request timeout (OkHttp's default read timeout is 10 s), so they read the 503.
   * At most 120.
   * @default 5
   */
  maxWait?: number;
  /**
   * The most logins waiting at once for a check, whatever their wait; and, apart, the most
   * waiting for their turn behind others of their address or account still being checked.
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
          // Browsers refuse a prefixed cookie over plain HTTP; over HTTPS the package adds __Host- itself.
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
