import type { CounterStore, PasswordHasher, SessionStore, UserRecord, UserStore } from "../types.js";
import type { AuthEventListener } from "./events.js";

/**
 * The public options of the package, as types only: what each means and its default. The
 * defaults themselves are the values of `DEFAULTS` (`defaults.ts`), which a test holds to the
 * `@default` tags here; the checks are the schemas of `option-schema.ts`.
 *
 * @module
 */

/**
 * Options of {@link createSessionAuth}: the stores, the secret, and how sessions, cookies,
 * logins and the endpoint behave. Validated once, when `createSessionAuth` is called; the
 * object is never modified.
 *
 * @example
 * ```ts
 * const auth = createSessionAuth({
 *   userStore,
 *   sessionStore: memorySessionStore(),
 *   secret: process.env.SESSION_SECRET!,
 *   baseUrl: "https://sports.example.com",
 *   idleTimeout: 3600,
 * });
 * ```
 */
export interface SessionAuthOptions {
  /** Where sessions live. */
  sessionStore: SessionStore;
  /** Where accounts come from. */
  userStore: UserStore;
  /**
   * The key of the session-bound CSRF token (`HMAC-SHA256(secret, sessid)`): at least 32
   * random characters, the same on every instance (`npx services-session-auth secret` makes
   * one). A secret of a few characters repeated is refused. Required unless `csrfToken` is
   * given; it also keys the hash that stands for login names in logs and counters.
   * @default none: required unless `csrfToken` is given
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
   * Seconds a session may sit unused before it ends (server-side); at most `absoluteTimeout`.
   * @default 200000 (Drupal's session.gc_maxlifetime), or `absoluteTimeout` if that is shorter
   */
  idleTimeout?: number;
  /**
   * Seconds a session may live from login, however active (server-side), and the cookie's `Max-Age`.
   * @default 2000000 (Drupal's session.cookie_lifetime)
   */
  absoluteTimeout?: number;
  /**
   * The last-seen time is written at most once per this many seconds, so most authenticated
   * requests cost one store read. Shorter than `idleTimeout`.
   * @default 180 (Drupal's session_write_interval), or half of a shorter `idleTimeout`
   */
  touchInterval?: number;
  /**
   * Seconds (fractions allowed, at most 60) any store call may take before the request gets
   * a 503: seconds, as every duration of these options. A hung call is rejected within an
   * eighth of this after it (one shared watchdog, not a timer per call).
   * @default 2
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
  /**
   * The API version of `user/logout` (`resource_api_version` of `user.logout`): 1.0 answers
   * `[true]`, 1.1 the anonymous user object (`{uid: 0, hostname, roles, cache}`). A request
   * picks another with a version header, as for the login.
   * @default "1.0"
   */
  logoutApiVersion?: "1.0" | "1.1";
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
   * @default []: only the site's own origin may post a login
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
   * @default ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]:
   * the parsers jDrupal and DrupalGap endpoints enable
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

/**
 * The options that shape the session cookie (a subset of {@link SessionAuthOptions}).
 *
 * @example
 * ```ts
 * const cookie: CookieOptions = { cookieDomain: ".example.com", cookieSecure: "always", sameSite: "lax", absoluteTimeout: 2_000_000 };
 * ```
 */
export type CookieOptions = Pick<SessionAuthOptions, "sessionName" | "cookieDomain" | "baseUrl" | "cookieSecure" | "sameSite" | "absoluteTimeout">;

/**
 * Drupal's flood-control limits (`_user_resource_flood_control_precheck` and the
 * `user_failed_login_*` variables), each configurable.
 *
 * @example
 * ```ts
 * createSessionAuth({ ...options, throttle: { userLimit: 10, userWindow: 3600, perAccountOnly: true } });
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
 * createSessionAuth({ ...options, hashing: { concurrency: 4, maxWait: 8 } });
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

/** A request body type `user/login` and the other calls can parse (see {@link SessionAuthOptions.parsers}). */
export type RequestParser = "application/json" | "application/x-www-form-urlencoded" | "multipart/form-data";

/**
 * Options of {@link SessionAuth.requireSession}, per route.
 *
 * @example
 * ```ts
 * app.post("/services/json/players", auth.requireSession({ roles: ["administrator"] }), addPlayer);
 * app.post("/services/json/beacon", auth.requireSession({ csrf: false }), beacon);
 * ```
 */
export interface RequireSessionOptions {
  /**
   * Check `X-CSRF-Token` (or `services_token`) on methods other than GET, HEAD, OPTIONS and TRACE.
   * @default true
   */
  csrf?: boolean;
  /** Role names of which the user must have at least one, else 403. @default [] */
  roles?: readonly string[];
  /**
   * Who answers a denied request. `"reply"`: the guard, in the wire format (401, 403, 503).
   * `"next"`: the app's error handlers, which get the {@link SessionAuthError} (with `status`
   * set to what the wire format would answer) and may redirect a browser to a login page or
   * answer `application/problem+json`; `errorHandler()` answers it in the wire format.
   * @default "reply"
   */
  onDenied?: "reply" | "next";
}
