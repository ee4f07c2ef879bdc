import type { CookieOptions } from "../cookie/options.js";
import type { CorsConfig, CorsOptions } from "../cors/options.js";
import type { EndpointOptions } from "../endpoint/options.js";
import type { AuthEventListener } from "../events.js";
import type { LoginOptions } from "../login/options.js";
import type { OriginOptions } from "../origins/options.js";
import type { SessionOptions } from "../sessions/options.js";
import type { SessionAuthTelemetry } from "../telemetry/telemetry.js";
import type { SessionStore, UserStore } from "../types.js";
import type { AccountsOptions } from "../accounts/options.js";

/**
 * Options of every binding's factory (`createSessionAuthRouter`, `createSessionAuthPlugin`, `createSessionAuthMiddleware`, `createSessionAuthHandler`): the stores and the secret, then each concept's own
 * (cookie, sessions, login, origins, CORS, endpoint), checked once at start-up. All: docs/options.md.
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
   * The one secret: 32+ random characters, the same on every instance (`npx services-session-auth secret`);
   * a key per use is derived from it.
   * @default none: required unless `csrfToken` is given
   */
  secret?: string;
  /**
   * Seconds (fractions allowed, at most 60) any store call may take before the request gets a 503
   * (docs/performance.md#store-timeouts-one-watchdog).
   * @default 2
   */
  storeTimeout?: number;
  /**
   * Receives security events for an audit log.
   * @default none
   */
  onEvent?: AuthEventListener;
  /**
   * Traces and metrics of logins, guards and store calls: `openTelemetry()` from
   * `services-session-auth/opentelemetry` (docs/telemetry.md); without it nothing is measured.
   * @default none
   */
  telemetry?: SessionAuthTelemetry;
  /**
   * The account calls of Services' user resource (registration, forgot password, one-time links,
   * own account, admin calls), each off until named: docs/accounts.md.
   * @default none: only the session calls
   */
  accounts?: AccountsOptions;
}

export type { AccountsOptions, CookieOptions, CorsConfig, CorsOptions, EndpointOptions, LoginOptions, OriginOptions, SessionOptions };
export type { DeviceCookieOptions, HashingOptions, ThrottleOptions } from "../login/options.js";
export type { OptionalSessionOptions, RequireSessionOptions } from "../sessions/options.js";
export type { RequestParser } from "../http-input/body.js";
