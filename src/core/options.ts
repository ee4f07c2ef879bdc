import { createHmac, randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { z } from "zod";
import { memoryCounterStore } from "../stores/memory-counter-store.js";
import type { CounterStore, PasswordHasher, SessionStore, UserRecord, UserStore } from "../types.js";
import type { SameSiteValue } from "./cookie.js";
import type { AuthEventListener } from "./events.js";
import { hmacCsrfToken } from "./csrf-token.js";
import { scryptHasher } from "./password.js";
import { normalizeOrigin } from "./origin.js";
import { fn, parseOptions } from "./validate.js";

function implementing<T>(name: string, methods: readonly string[]) {
  return z.custom<T>(
    (value) => typeof value === "object" && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
    { message: `must be a ${name} (with ${methods.join(", ")})` },
  );
}

const seconds = z.number().int().positive();

/**
 * Options shared by {@link createSessionAuthRouter} and {@link requireSession}: pass the same object to both.
 *
 * @example
 * ```ts
 * const auth: SessionOptions = {
 *   userStore,
 *   sessionStore: memorySessionStore(),
 *   secret: process.env.SESSION_SECRET!,
 *   baseUrl: "https://sports.example.com",
 *   idleTimeout: 3600,
 * };
 * ```
 */
export interface SessionOptions {
  /** Where sessions live. */
  sessionStore: SessionStore;
  /** Where accounts come from. */
  userStore: UserStore;
  /**
   * The key of the session-bound CSRF token (`HMAC-SHA256(secret, sessid)`): at least 32
   * characters, the same on every instance. Required unless `csrfToken` is given.
   * @default none (required unless `csrfToken` is given, or `csrf: false` on requireSession)
   */
  secret?: string;
  /**
   * Derives a session's CSRF token from its id instead of the HMAC of `secret`, e.g. the migration kit's `drupal7CsrfToken`.
   * @default hmacCsrfToken(secret)
   */
  csrfToken?: (sessid: string) => string;
  /**
   * The session cookie's name, set outright.
   * @default derived as Drupal derives it: `SESS` (`SSESS` on HTTPS) + 32 hex of sha256 of `cookieDomain`, `baseUrl` or the `Host`
   */
  sessionName?: string;
  /**
   * settings.php `$cookie_domain`: names the cookie as Drupal would and sets its `Domain`
   * attribute by Drupal's rule: only a value with more than two dot-separated parts that is
   * not an IP address (`.example.com` yes; `example.com`, as in Drupal, names the cookie but
   * sends no `Domain`).
   * @default none: `Domain=.<host>` from the request's `Host` (port dropped, `www.` kept), as
   * Drupal 7 sets it, except for `localhost`, single-label hosts and IP addresses (host-only)
   */
  cookieDomain?: string;
  /**
   * settings.php `$base_url` (e.g. `https://example.com`): names the cookie as Drupal would.
   * @default none: the request's `Host` names the cookie, as Drupal does
   */
  baseUrl?: string;
  /**
   * Whether the cookie is `Secure`: `"auto"` when the request came over HTTPS (Express's
   * `req.secure`, so set `trust proxy` behind a TLS-terminating proxy), `"always"` on every
   * reply, as settings.php `ini_set('session.cookie_secure', TRUE)`. A derived name starts
   * with `SSESS` whenever the cookie is `Secure`, as in Drupal.
   * @default "auto"
   */
  cookieSecure?: "auto" | "always";
  /**
   * The cookie's `SameSite` attribute. Drupal 7 sends none, and older WebViews and hybrid
   * apps rely on that; `"none"` needs `cookieSecure: "always"` (browsers refuse
   * `SameSite=None` without `Secure`).
   * @default none: no `SameSite` attribute, as Drupal 7
   */
  sameSite?: "lax" | "strict" | "none";
  /**
   * Seconds a session may sit unused before it ends (server-side).
   * @default 200000 (Drupal's session.gc_maxlifetime)
   */
  idleTimeout?: number;
  /**
   * Seconds a session may live from login, however active (server-side), and the cookie's `Max-Age`.
   * @default 2000000 (Drupal's session.cookie_lifetime)
   */
  absoluteTimeout?: number;
  /**
   * The last-seen time is written at most once per this many seconds, so most authenticated requests cost one store read.
   * @default 180 (Drupal's session_write_interval)
   */
  touchInterval?: number;
  /**
   * Milliseconds any store call may take before the request gets a 503. A hung call is
   * rejected within an eighth of this after it (one shared watchdog, not a timer per call).
   * @default 2000
   */
  storeTimeout?: number;
  /**
   * Receives security events for an audit log.
   * @default none
   */
  onEvent?: AuthEventListener;
  /**
   * Whether a user may see `init` in their own user object (Drupal's "administer users").
   * @default uid "1" or a role named "administrator"
   */
  isAdmin?: (user: UserRecord) => boolean;
}

/**
 * The options that shape the session cookie (a subset of {@link SessionOptions}).
 *
 * @example
 * ```ts
 * const cookie: CookieOptions = { cookieDomain: ".example.com", cookieSecure: "always", sameSite: "lax", absoluteTimeout: 2_000_000 };
 * ```
 */
export type CookieOptions = Pick<SessionOptions, "sessionName" | "cookieDomain" | "baseUrl" | "cookieSecure" | "sameSite" | "absoluteTimeout">;

/**
 * Drupal's flood-control limits (reference §6), each configurable.
 *
 * @example
 * ```ts
 * createSessionAuthRouter({ ...auth, throttle: { userLimit: 10, userWindow: 3600, perAccountOnly: true } });
 * ```
 */
export interface ThrottleOptions {
  /** @default 50 failed logins per IP per window */
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
 * changes nothing.
 *
 * @example
 * ```ts
 * createSessionAuthRouter({ ...auth, hashing: { concurrency: 4, maxWait: 8 } });
 * ```
 */
export interface HashingOptions {
  /**
   * Password checks run at once.
   * @default the number of cores, at most the thread pool's size minus one (2 on a 2-core machine with the default pool)
   */
  concurrency?: number;
  /**
   * Seconds a login may wait for a check before it is answered `503`. Keep it below your
   * clients' request timeout (OkHttp's default read timeout is 10 s), so they read the 503.
   * At most 120.
   * @default 5
   */
  maxWait?: number;
  /**
   * The most logins waiting at once, whatever their wait.
   * @default 1000
   */
  maxQueue?: number;
}

/**
 * Options of {@link createSessionAuthRouter}.
 *
 * @example
 * ```ts
 * const auth: SessionAuthRouterOptions = {
 *   userStore, sessionStore, secret: process.env.SESSION_SECRET!,
 *   counterStore: redisCounterStore({ client }),
 *   maxSessionsPerUser: 5,
 *   blockedAccountResponse: "generic",
 * };
 * app.use("/services/json", createSessionAuthRouter(auth));
 * ```
 */
export interface SessionAuthRouterOptions extends SessionOptions {
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
   * The most sessions one user may hold. A login at the cap ends that user's own oldest
   * sessions (a `session.revoked` event, reason `"session-limit"`), never anyone else's, so
   * one account cannot fill a session store. Raise it for accounts shared by many devices.
   * The sealed-cookie store cannot list sessions, so this cap does not apply to it.
   * @default 20
   */
  maxSessionsPerUser?: number;
  /**
   * How a login to a blocked account is answered. `"drupal"` is Services' 403, which tells a
   * caller the account exists; `"generic"` answers the same 401 as a wrong password.
   * @default "drupal"
   */
  blockedAccountResponse?: "drupal" | "generic";
  /**
   * The API version of `user/login` (the endpoint's `resource_api_version`): 1.0 reads
   * `username`/`password`, 1.1 reads `name`/`pass`, and each only its own. A request picks
   * another with a `services_<resource>_<method>_version` header (any resource and method
   * counts, as in Services), e.g. `Services-User-Login-Version: 1.1`.
   * @default "1.0"
   */
  loginApiVersion?: "1.0" | "1.1";
  /** @default 1024: longer passwords are refused before any hashing */
  maxPasswordBytes?: number;
  /** @default 255: longer names are refused before any lookup */
  maxNameLength?: number;
  /** @default 65536: larger request bodies get a 413 */
  bodyLimit?: number;
  /**
   * Origins other than the site's own whose pages may log in, written as browsers send
   * `Origin` (`https://app.example.com`, `capacitor://localhost`, `null`). A login whose
   * `Origin` is neither the site's own (`baseUrl`'s, else the request's scheme and `Host`)
   * nor listed here, or that a browser marks `Sec-Fetch-Site: cross-site`, is refused with a
   * 403 (login CSRF). Clients that send no `Origin` (native apps, curl) are not affected.
   * Hybrid apps (Cordova/DrupalGap WebViews, Ionic, Capacitor) are cross-origin by nature:
   * list the origins your CORS set-up already allows. `null` is the origin of `file:` pages and
   * sandboxed frames, which any site can produce, so a login from a trusted `null` must also
   * carry an `X-CSRF-Token` header or a JSON body, which a form cannot send (jDrupal and
   * DrupalGap send the header on every request). Write international host names in punycode
   * (`xn--…`), as browsers send them.
   * @default none
   */
  trustedOrigins?: readonly string[];
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
   * The request body types the endpoint parses (Services' enabled parsers); any other
   * Content-Type is `406 Unsupported request content type`. A request with no Content-Type
   * counts as form-urlencoded, as in Services.
   * @default all three: `application/json`, `application/x-www-form-urlencoded` and
   * `multipart/form-data` (the parsers jDrupal and DrupalGap endpoints enable)
   */
  parsers?: readonly RequestParser[];
  /**
   * The endpoint's machine name, answered at the endpoint root (`GET /services/json`):
   * `Services Endpoint "<name>" has been setup successfully.`, which clients use as a health check.
   * @default "services"
   */
  endpointName?: string;
  /**
   * Send `Clear-Site-Data: "cookies"` with a logout. A browser then drops **every** cookie of
   * the site, including those of a Drupal site still running beside this one and of a load
   * balancer: turn it on only when this app owns the whole origin.
   * @default false
   */
  clearSiteData?: boolean;
}

/** A request body type `user/login` and the other calls can parse (see {@link SessionAuthRouterOptions.parsers}). */
export type RequestParser = "application/json" | "application/x-www-form-urlencoded" | "multipart/form-data";

/**
 * Options of {@link requireSession}.
 *
 * @example
 * ```ts
 * app.post("/services/json/players", requireSession({ ...auth, roles: ["administrator"] }), addPlayer);
 * app.post("/services/json/beacon", requireSession({ ...auth, csrf: false }), beacon);
 * ```
 */
export interface RequireSessionOptions extends SessionOptions {
  /**
   * Check `X-CSRF-Token` (or `services_token`) on methods other than GET, HEAD, OPTIONS and TRACE.
   * @default true
   */
  csrf?: boolean;
  /** Role names of which the user must have at least one, else 403. @default none required */
  roles?: readonly string[];
}

const sessionShape = {
  sessionStore: implementing<SessionStore>("SessionStore", ["create", "get", "touch", "destroy", "listByUser", "destroyByUser"]),
  userStore: implementing<UserStore>("UserStore", ["findByName", "findById", "recordLogin", "updatePasswordHash"]),
  secret: z.string().min(32, "must be at least 32 characters").optional(),
  csrfToken: fn<(sessid: string) => string>("sessid => token").optional(),
  sessionName: z.string().regex(/^[!#$%&'*+\-.^\w`|~]+$/, "must be a cookie name").optional(),
  cookieDomain: z.string().regex(/^[a-z0-9.-]+$/i, "must be a domain such as .example.com").optional(),
  baseUrl: z.url().optional(),
  cookieSecure: z.enum(["auto", "always"]).optional(),
  sameSite: z.enum(["lax", "strict", "none"]).optional(),
  idleTimeout: seconds.optional(),
  absoluteTimeout: seconds.optional(),
  touchInterval: z.number().int().nonnegative().optional(),
  storeTimeout: z.number().int().positive().optional(),
  onEvent: fn<AuthEventListener>("event => void").optional(),
  isAdmin: fn<(user: UserRecord) => boolean>("user => boolean").optional(),
};

const requireSecret = (value: { secret?: string | undefined; csrfToken?: unknown; csrf?: boolean | undefined }) =>
  value.secret !== undefined || value.csrfToken !== undefined || value.csrf === false;
const secretMessage = { message: "is required (at least 32 characters, the same on every instance) unless csrfToken is given", path: ["secret"] };
// Browsers drop a SameSite=None cookie that is not Secure: refuse the pair at start-up, not in a user's browser.
const secureSameSiteNone = (value: { sameSite?: string | undefined; cookieSecure?: string | undefined }) => value.sameSite !== "none" || value.cookieSecure === "always";
const sameSiteMessage = { message: 'sameSite "none" needs cookieSecure: "always" (browsers refuse SameSite=None without Secure)', path: ["sameSite"] };

const routerSchema = z
  .strictObject({
    ...sessionShape,
    hasher: implementing<PasswordHasher>("PasswordHasher", ["hash", "verify", "needsRehash"]).optional(),
    counterStore: implementing<CounterStore>("CounterStore", ["increment", "decrement", "get", "delete"]).optional(),
    throttle: z
      .union([
        z.literal(false),
        z.strictObject({
          ipLimit: seconds.optional(),
          ipWindow: seconds.optional(),
          userLimit: seconds.optional(),
          userWindow: seconds.optional(),
          perAccountOnly: z.boolean().optional(),
        }),
      ])
      .optional(),
    maxSessionsPerUser: z.number().int().positive().optional(),
    blockedAccountResponse: z.enum(["drupal", "generic"]).optional(),
    loginApiVersion: z.enum(["1.0", "1.1"]).optional(),
    maxPasswordBytes: z.number().int().positive().optional(),
    maxNameLength: z.number().int().positive().optional(),
    bodyLimit: z.number().int().positive().optional(),
    trustedOrigins: z
      .array(z.string().refine((value) => normalizeOrigin(value) !== undefined, "must be an origin such as https://app.example.com, capacitor://localhost or null (no path; international host names in punycode)"))
      .readonly()
      .optional(),
    ipv6Prefix: z.number().int().min(1).max(128).optional(),
    hashing: z
      .strictObject({
        concurrency: z.number().int().positive().optional(),
        // A login waiting longer than two minutes has long been given up by its client.
        maxWait: z.number().positive().max(120).optional(),
        maxQueue: z.number().int().positive().optional(),
      })
      .optional(),
    parsers: z.array(z.enum(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"])).readonly().optional(),
    endpointName: z.string().min(1).max(255).optional(),
    clearSiteData: z.boolean().optional(),
  })
  .refine(requireSecret, secretMessage)
  .refine(secureSameSiteNone, sameSiteMessage);

const requireSchema = z
  .strictObject({ ...sessionShape, csrf: z.boolean().optional(), roles: z.array(z.string()).readonly().optional() })
  .refine(requireSecret, secretMessage)
  .refine(secureSameSiteNone, sameSiteMessage);

/** The defaults of the router options that shape the wire, shared with the OpenAPI document. */
export const ROUTER_DEFAULTS = Object.freeze({
  blockedAccountResponse: "drupal",
  loginApiVersion: "1.0",
  maxPasswordBytes: 1024,
  maxNameLength: 255,
  bodyLimit: 65_536,
  parsers: ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"] as readonly RequestParser[],
  endpointName: "services",
  clearSiteData: false,
} as const);

/** {@link CookieOptions} with every default filled in. */
export interface ResolvedCookieOptions {
  readonly sessionName: string | undefined;
  readonly cookieDomain: string | undefined;
  readonly baseUrl: string | undefined;
  readonly cookieSecure: "auto" | "always";
  readonly sameSite: SameSiteValue | undefined;
  readonly absoluteTimeout: number;
}

/** {@link SessionOptions} with every default filled in, frozen. */
export interface ResolvedSessionOptions extends ResolvedCookieOptions {
  readonly sessionStore: SessionStore;
  readonly userStore: UserStore;
  readonly csrfToken: (sessid: string) => string;
  readonly idleTimeout: number;
  readonly touchInterval: number;
  readonly storeTimeout: number;
  readonly onEvent: AuthEventListener | undefined;
  readonly isAdmin: (user: UserRecord) => boolean;
}

/** {@link SessionAuthRouterOptions} with every default filled in. */
export interface ResolvedRouterOptions extends ResolvedSessionOptions {
  readonly hasher: PasswordHasher;
  readonly counterStore: CounterStore;
  readonly throttle: Required<ThrottleOptions> | false;
  readonly maxSessionsPerUser: number;
  readonly blockedAccountResponse: "drupal" | "generic";
  readonly loginApiVersion: "1.0" | "1.1";
  readonly maxPasswordBytes: number;
  readonly maxNameLength: number;
  readonly bodyLimit: number;
  /** Normalised with {@link normalizeOrigin}. */
  readonly trustedOrigins: ReadonlySet<string>;
  readonly ipv6Prefix: number;
  readonly hashing: Readonly<Required<HashingOptions>>;
  /** The key of the keyed hash that stands for a login name in throttle keys and audit events. */
  readonly nameKey: Buffer;
  readonly parsers: ReadonlySet<RequestParser>;
  readonly endpointName: string;
  readonly clearSiteData: boolean;
}

/** {@link RequireSessionOptions} with every default filled in. */
export interface ResolvedRequireOptions extends ResolvedSessionOptions {
  readonly csrf: boolean;
  readonly roles: readonly string[];
}

const SAME_SITE: Readonly<Record<"lax" | "strict" | "none", SameSiteValue>> = { lax: "Lax", strict: "Strict", none: "None" };

function defaultIsAdmin(user: UserRecord): boolean {
  return user.uid === "1" || Object.values(user.roles).includes("administrator");
}

function resolveCookie(input: Partial<z.output<z.ZodObject<typeof sessionShape>>>): ResolvedCookieOptions {
  return {
    sessionName: input.sessionName,
    cookieDomain: input.cookieDomain,
    baseUrl: input.baseUrl,
    cookieSecure: input.cookieSecure ?? "auto",
    sameSite: input.sameSite === undefined ? undefined : SAME_SITE[input.sameSite],
    absoluteTimeout: input.absoluteTimeout ?? 2_000_000,
  };
}

function resolveSession(input: z.output<z.ZodObject<typeof sessionShape>>): ResolvedSessionOptions {
  return {
    ...resolveCookie(input),
    sessionStore: input.sessionStore,
    userStore: input.userStore,
    // Without secret or csrfToken (csrf: false) no token is ever checked; a random key keeps the function total.
    csrfToken: input.csrfToken ?? hmacCsrfToken(input.secret ?? randomBytes(32).toString("hex")),
    idleTimeout: input.idleTimeout ?? 200_000,
    touchInterval: input.touchInterval ?? 180,
    storeTimeout: input.storeTimeout ?? 2000,
    onEvent: input.onEvent,
    isAdmin: input.isAdmin ?? defaultIsAdmin,
  };
}

/**
 * Validates and completes the router's options once. The caller's object is not modified.
 * @throws TypeError naming every invalid option.
 */
export function resolveRouterOptions(input: SessionAuthRouterOptions): ResolvedRouterOptions {
  const parsed = parseOptions(routerSchema, input, "createSessionAuthRouter");
  const throttle = parsed.throttle === false ? false : {
    ipLimit: parsed.throttle?.ipLimit ?? 50,
    ipWindow: parsed.throttle?.ipWindow ?? 3600,
    userLimit: parsed.throttle?.userLimit ?? 5,
    userWindow: parsed.throttle?.userWindow ?? 21_600,
    perAccountOnly: parsed.throttle?.perAccountOnly ?? false,
  };
  const session = resolveSession(parsed);
  return Object.freeze({
    ...session,
    hasher: parsed.hasher ?? scryptHasher(),
    counterStore: parsed.counterStore ?? memoryCounterStore(),
    throttle,
    maxSessionsPerUser: parsed.maxSessionsPerUser ?? 20,
    blockedAccountResponse: parsed.blockedAccountResponse ?? ROUTER_DEFAULTS.blockedAccountResponse,
    loginApiVersion: parsed.loginApiVersion ?? ROUTER_DEFAULTS.loginApiVersion,
    maxPasswordBytes: parsed.maxPasswordBytes ?? ROUTER_DEFAULTS.maxPasswordBytes,
    maxNameLength: parsed.maxNameLength ?? ROUTER_DEFAULTS.maxNameLength,
    bodyLimit: parsed.bodyLimit ?? ROUTER_DEFAULTS.bodyLimit,
    trustedOrigins: new Set((parsed.trustedOrigins ?? []).map((origin) => normalizeOrigin(origin)!)),
    ipv6Prefix: parsed.ipv6Prefix ?? 64,
    hashing: Object.freeze({
      concurrency: parsed.hashing?.concurrency ?? defaultHashConcurrency(),
      maxWait: parsed.hashing?.maxWait ?? 5,
      maxQueue: parsed.hashing?.maxQueue ?? 1000,
    }),
    // Stable across instances (so logs and shared counters agree), and never the secret itself.
    nameKey: createHmac("sha256", parsed.secret ?? session.csrfToken("services-session-auth:name-key")).update("login names").digest(),
    parsers: new Set(parsed.parsers ?? ROUTER_DEFAULTS.parsers),
    endpointName: parsed.endpointName ?? ROUTER_DEFAULTS.endpointName,
    clearSiteData: parsed.clearSiteData ?? ROUTER_DEFAULTS.clearSiteData,
  });
}

/** One check per core, leaving one libuv thread for the file and DNS work that shares the pool. */
function defaultHashConcurrency(): number {
  const pool = Number(process.env.UV_THREADPOOL_SIZE);
  const threads = Number.isInteger(pool) && pool > 0 ? pool : 4;
  return Math.max(1, Math.min(availableParallelism(), threads - 1));
}

/**
 * Validates and completes the shared session options once, for a factory that needs no
 * more (the session token handler). Router-only options in the same object are ignored.
 * @throws TypeError naming every invalid option.
 */
export function resolveSessionOptions(input: SessionOptions, factory: string): ResolvedSessionOptions {
  const parsed = parseOptions(requireSchema, pick(input, Object.keys(sessionShape)), factory);
  return Object.freeze(resolveSession(parsed));
}

const { sessionName, cookieDomain, baseUrl, cookieSecure, sameSite, absoluteTimeout } = sessionShape;
const cookieShape = { sessionName, cookieDomain, baseUrl, cookieSecure, sameSite, absoluteTimeout };
const cookieSchema = z.strictObject(cookieShape).refine(secureSameSiteNone, sameSiteMessage);

/**
 * Validates and completes the options that shape the session cookie, from an object that may
 * hold others too (the router's options): they are ignored.
 * @throws TypeError naming every invalid option.
 */
export function resolveCookieOptions(input: object, factory: string): ResolvedCookieOptions {
  return Object.freeze(resolveCookie(parseOptions(cookieSchema, pick(input, Object.keys(cookieShape)), factory)));
}

/**
 * Validates and completes {@link requireSession}'s options once.
 * @throws TypeError naming every invalid option.
 */
export function resolveRequireOptions(input: RequireSessionOptions): ResolvedRequireOptions {
  // Options meant for the router (hasher, throttle, …) may be passed too: one object serves both.
  const shared = pick(input, [...Object.keys(sessionShape), "csrf", "roles"]);
  const parsed = parseOptions(requireSchema, shared, "requireSession");
  return Object.freeze({ ...resolveSession(parsed), csrf: parsed.csrf ?? true, roles: parsed.roles ?? [] });
}

function pick(input: object, keys: readonly string[]): Record<string, unknown> {
  if (typeof input !== "object" || input === null) return input;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(input, key)) out[key] = (input as Record<string, unknown>)[key];
  return out;
}
