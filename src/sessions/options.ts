import { z } from "zod";
import { COOKIE_DEFAULTS, type CookieSettings } from "../cookie/options.js";
import { fn, type Refinement } from "../validate.js";

/** The session lifecycle's options, part of {@link SessionAuthOptions}; each is explained in docs/options.md#sessions. */
export interface SessionOptions {
  /**
   * Derives a session's CSRF token from its id some other way, e.g. the kit's `drupal7CsrfToken`.
   * @default an HMAC-SHA256 of the session id under a key derived from `secret`
   */
  csrfToken?: (sessid: string) => string;
  /**
   * Seconds a session may sit unused before it ends (server-side); at most `absoluteTimeout`.
   * @default 200000 (Drupal's session.gc_maxlifetime), or `absoluteTimeout` if that is shorter
   */
  idleTimeout?: number;
  /**
   * The last-seen time is written at most once per this many seconds; shorter than `idleTimeout`.
   * @default 180 (Drupal's session_write_interval), or half of a shorter `idleTimeout`
   */
  touchInterval?: number;
  /**
   * The most sessions one user may hold: a login at the cap ends that user's own oldest ones, never
   * another's (not on the sealed-cookie store, which cannot list them).
   * @default 20
   */
  maxSessionsPerUser?: number;
}

/** The defaults of {@link SessionOptions} that are plain values. */
export const SESSION_DEFAULTS = Object.freeze({ idleTimeout: 200_000, touchInterval: 180, maxSessionsPerUser: 20 });

/** The checks of {@link SessionOptions}, one per option. */
export const sessionShape = {
  csrfToken: fn<(sessid: string) => string>("sessid => token").optional(),
  idleTimeout: z.number().int().positive().optional(),
  touchInterval: z.number().int().nonnegative().optional(),
  maxSessionsPerUser: z.number().int().positive().optional(),
};

type TimeoutInput = { idleTimeout?: number | undefined; absoluteTimeout?: number | undefined; touchInterval?: number | undefined };

/** The idle timeout in force: the one given, else the default, never outlasting the absolute timeout the app chose. */
function effectiveIdleTimeout(value: TimeoutInput): number {
  return value.idleTimeout ?? Math.min(SESSION_DEFAULTS.idleTimeout, value.absoluteTimeout ?? COOKIE_DEFAULTS.absoluteTimeout);
}

/** The checks that tie the timeouts together, as zod refinements of the whole options object. */
export const sessionRefinements: readonly [Refinement<TimeoutInput>, Refinement<TimeoutInput>] = [
  [
    (value) => value.idleTimeout === undefined || value.idleTimeout <= (value.absoluteTimeout ?? COOKIE_DEFAULTS.absoluteTimeout),
    { message: "must not be longer than absoluteTimeout: no session lives that long", path: ["idleTimeout"] },
  ],
  // A last-seen time written less often than the idle timeout ends sessions that are in use.
  [
    (value) => value.touchInterval === undefined || value.touchInterval < effectiveIdleTimeout(value),
    { message: "must be shorter than idleTimeout: a session in use would expire between two writes of its last-seen time", path: ["touchInterval"] },
  ],
];

/** What the session lifecycle ({@link Sessions}) works with: its options completed, and the cookie's. */
export interface SessionSettings extends CookieSettings {
  readonly csrfToken: (sessid: string) => string;
  readonly idleTimeout: number;
  readonly touchInterval: number;
  readonly maxSessionsPerUser: number;
}

/** Completes checked {@link SessionOptions}; `csrfToken` is the one given or the default the caller made from the secret. */
export function sessionSettings(
  input: z.output<z.ZodObject<typeof sessionShape>>,
  cookie: CookieSettings,
  csrfToken: (sessid: string) => string,
): SessionSettings {
  const idleTimeout = effectiveIdleTimeout({ ...input, absoluteTimeout: cookie.absoluteTimeout });
  return Object.freeze({
    ...cookie,
    csrfToken: input.csrfToken ?? csrfToken,
    idleTimeout,
    touchInterval: input.touchInterval ?? Math.min(SESSION_DEFAULTS.touchInterval, Math.floor(idleTimeout / 2)),
    maxSessionsPerUser: input.maxSessionsPerUser ?? SESSION_DEFAULTS.maxSessionsPerUser,
  });
}

/**
 * Options of a binding's `requireSession()`, per route.
 *
 * @example
 * ```ts
 * app.post("/services/json/players", sessionAuth.requireSession({ roles: ["administrator"] }), addPlayer);
 * app.post("/services/json/beacon", sessionAuth.requireSession({ csrf: false }), beacon);
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
   * Who answers a denied request: `"reply"`, the guard in the wire format; `"next"`, the app's error
   * handlers, given the {@link SessionAuthError} (`errorHandler()` answers it in the wire format).
   * @default "reply"
   */
  onDenied?: "reply" | "next";
}

/** Options of `optionalSession`: who answers a request whose session the store could not check. */
export type OptionalSessionOptions = Pick<RequireSessionOptions, "onDenied">;

/** The defaults of {@link RequireSessionOptions}. */
export const GUARD_DEFAULTS = Object.freeze({ csrf: true, roles: Object.freeze([] as string[]), onDenied: "reply" } as const);

const onDenied = z.enum(["reply", "next"]).optional();
/** The checks of {@link RequireSessionOptions}. */
export const requireSessionSchema = z.strictObject({ csrf: z.boolean().optional(), roles: z.array(z.string()).readonly().optional(), onDenied });
/** The checks of `optionalSession`'s options: no csrf or roles, since from JavaScript `{ csrf: false }` would make a cookie alone count as signed in on a POST. */
export const optionalSessionSchema = z.strictObject({ onDenied });

/** {@link RequireSessionOptions} with every default filled in. */
export interface GuardSettings {
  readonly csrf: boolean;
  readonly roles: readonly string[];
  readonly onDenied: "reply" | "next";
}

/** Completes one route's checked {@link RequireSessionOptions}. */
export function guardSettings(parsed: RequireSessionOptions): GuardSettings {
  return Object.freeze({
    csrf: parsed.csrf ?? GUARD_DEFAULTS.csrf,
    roles: parsed.roles ?? GUARD_DEFAULTS.roles,
    onDenied: parsed.onDenied ?? GUARD_DEFAULTS.onDenied,
  });
}
