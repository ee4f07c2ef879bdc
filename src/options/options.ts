import type { CookieOptions } from "../cookie/options.js";
import type { CorsConfig, CorsOptions } from "../cors/options.js";
import type { EndpointOptions } from "../endpoint/options.js";
import type { AuthEventListener } from "../events.js";
import type { LoginOptions } from "../login/options.js";
import type { OriginOptions } from "../origins/options.js";
import type { SessionOptions } from "../sessions/options.js";
import type { SessionStore, UserStore } from "../types.js";

/**
 * Options of {@link createSessionAuthRouter}: the stores and the secret, then each concept's
 * own options (the cookie, the session lifecycle, the login path, the app origins and their
 * CORS, the endpoint), documented, checked and defaulted where that concept lives. Validated once,
 * when the router is made; the object is never modified.
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthRouter({
 *   userStore,
 *   sessionStore: memorySessionStore(),
 *   secret: process.env.SESSION_SECRET!,
 *   baseUrl: "https://sports.example.com",
 *   idleTimeout: 3600,
 * });
 * ```
 */
export interface SessionAuthOptions extends CookieOptions, SessionOptions, LoginOptions, OriginOptions, CorsOptions, EndpointOptions {
  /** Where sessions live. */
  sessionStore: SessionStore;
  /** Where accounts come from. */
  userStore: UserStore;
  /**
   * The one secret of the package: at least 32 random characters, the same on every instance
   * (`npx services-session-auth secret` makes one). A secret of a few characters repeated is
   * refused. A key for each use is derived from it (the CSRF tokens, the hash that stands for
   * login names in logs and counters), so no reply ever carries a value keyed for another.
   * Required unless `csrfToken` is given.
   * @default none: required unless `csrfToken` is given
   */
  secret?: string;
  /**
   * Seconds (fractions allowed, at most 60) any store call may take before the request gets
   * a 503: seconds, as every duration of these options. A hung call is rejected within an
   * eighth of this after it (one shared watchdog, not a timer per call). This package's
   * memory stores themselves (not a copy or wrapper of one), which wait on nothing, are not timed.
   * @default 2
   */
  storeTimeout?: number;
  /**
   * Receives security events for an audit log.
   * @default none
   */
  onEvent?: AuthEventListener;
}

export type { CookieOptions, CorsConfig, CorsOptions, EndpointOptions, LoginOptions, OriginOptions, SessionOptions };
export type { DeviceCookieOptions, HashingOptions, ThrottleOptions } from "../login/options.js";
export type { RequireSessionOptions } from "../sessions/options.js";
export type { RequestParser } from "../http-input/body.js";
