import { createHmac } from "node:crypto";
import { z } from "zod";
import type { CounterStore, PasswordHasher, SessionStore, UserRecord, UserStore } from "../types.js";
import type { SameSiteValue, SessionCookie } from "./cookie.js";
import { hmacCsrfToken } from "./csrf-token.js";
import { DEFAULTS, defaultHashConcurrency } from "./defaults.js";
import type { AuthEventListener } from "./events.js";
import type { CookieOptions, HashingOptions, RequestParser, RequireSessionOptions, SessionAuthOptions, ThrottleOptions } from "./options.js";
import { normalizeOrigin } from "./origin.js";
import { scryptHasher } from "./password.js";
import { fn, parseOptions } from "./validate.js";

/**
 * The checks on the options (zod schemas) and the one resolver that turns a caller's
 * options into frozen, complete ones. The defaults that belong to layers above the core (the
 * memory counter store, Drupal's cookie rule) are handed in by the caller: the core imports
 * nothing above it.
 *
 * @module
 */

function implementing<T>(name: string, methods: readonly string[]) {
  return z.custom<T>(
    (value) => typeof value === "object" && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
    { message: `must be a ${name} (with ${methods.join(", ")})` },
  );
}

const seconds = z.number().int().positive();

/**
 * A secret that could have come from a random generator: 32 characters at least, at least 8
 * distinct ones (random hex has 14 on average), and hardly a run of three characters twice:
 * a word or pattern repeated (`"a".repeat(32)`, `"password"` four times and a `1`) passes a
 * length check and guards nothing, while 32 random characters repeat a run of three about
 * once in two secrets at worst (hex).
 */
export const secretSchema = z
  .string()
  .min(32, "must be at least 32 characters")
  .refine(
    (value) => new Set(value).size >= 8 && !repeatsItself(value),
    "looks weak (a few characters, or a pattern, repeated): use 32+ random characters, e.g. from `npx services-session-auth secret` or `node -e \"console.log(crypto.randomBytes(32).toString('base64url'))\"`",
  );

/** Whether more than a quarter of the runs of three characters in `text` occurred earlier in it. Linear. */
function repeatsItself(text: string): boolean {
  const runs = new Set<string>();
  for (let i = 0; i + 3 <= text.length; i++) runs.add(text.slice(i, i + 3));
  return runs.size < 0.75 * (text.length - 2);
}

const cookieShape = {
  sessionName: z.string().regex(/^[!#$%&'*+\-.^\w`|~]+$/, "must be a cookie name").optional(),
  // Letters, digits, underscores, hyphens and dots: nothing that could end or extend a Set-Cookie attribute.
  cookieDomain: z.string().regex(/^[\w.-]+$/, "must be a domain such as .example.com (no ';', spaces or control characters)").optional(),
  baseUrl: z.url().optional(),
  cookieSecure: z.enum(["auto", "always"]).optional(),
  sameSite: z.enum(["lax", "strict", "none"]).optional(),
  absoluteTimeout: seconds.optional(),
};

// Browsers drop a SameSite=None cookie that is not Secure: refuse the pair at start-up, not in a user's browser.
const secureSameSiteNone = (value: { sameSite?: string | undefined; cookieSecure?: string | undefined }) => value.sameSite !== "none" || value.cookieSecure === "always";
const sameSiteMessage = { message: 'sameSite "none" needs cookieSecure: "always" (browsers refuse SameSite=None without Secure)', path: ["sameSite"] };

const optionsSchema = z
  .strictObject({
    ...cookieShape,
    sessionStore: implementing<SessionStore>("SessionStore", ["create", "get", "touch", "destroy", "listByUser", "destroyByUser"]),
    userStore: implementing<UserStore>("UserStore", ["findByName", "findById", "recordLogin", "updatePasswordHash"]),
    secret: secretSchema.optional(),
    csrfToken: fn<(sessid: string) => string>("sessid => token").optional(),
    idleTimeout: seconds.optional(),
    touchInterval: z.number().int().nonnegative().optional(),
    // Seconds, as every duration here. A value in milliseconds (2000) would be half an hour; under 10 ms no store answers.
    storeTimeout: z.number().min(0.01, "is in seconds (at least 0.01)").max(60, "is in seconds, as every duration here (at most 60; e.g. 2 or 0.5)").optional(),
    onEvent: fn<AuthEventListener>("event => void").optional(),
    isAdmin: fn<(user: UserRecord) => boolean>("user => boolean").optional(),
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
    logoutApiVersion: z.enum(["1.0", "1.1"]).optional(),
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
  .refine((value) => value.secret !== undefined || value.csrfToken !== undefined, {
    message: "is required (at least 32 characters, the same on every instance) unless csrfToken is given",
    path: ["secret"],
  })
  .refine(secureSameSiteNone, sameSiteMessage)
  .refine((value) => value.idleTimeout === undefined || value.idleTimeout <= (value.absoluteTimeout ?? DEFAULTS.absoluteTimeout), {
    message: "must not be longer than absoluteTimeout: no session lives that long",
    path: ["idleTimeout"],
  })
  // A last-seen time written less often than the idle timeout ends sessions that are in use.
  .refine((value) => value.touchInterval === undefined || value.touchInterval < effectiveIdleTimeout(value), {
    message: "must be shorter than idleTimeout: a session in use would expire between two writes of its last-seen time",
    path: ["touchInterval"],
  });

/** The idle timeout in force: the one given, else the default, never outlasting the absolute timeout the app chose. */
function effectiveIdleTimeout(value: { idleTimeout?: number | undefined; absoluteTimeout?: number | undefined }): number {
  return value.idleTimeout ?? Math.min(DEFAULTS.idleTimeout, value.absoluteTimeout ?? DEFAULTS.absoluteTimeout);
}

const cookieSchema = z.strictObject(cookieShape).refine(secureSameSiteNone, sameSiteMessage);

const onDenied = z.enum(["reply", "next"]).optional();
const requireSchema = z.strictObject({ csrf: z.boolean().optional(), roles: z.array(z.string()).readonly().optional(), onDenied });
// optionalSession takes no csrf or roles: from JavaScript, { csrf: false } would make a cookie alone count as signed in on a POST.
const optionalSchema = z.strictObject({ onDenied });

/** {@link CookieOptions} with every default filled in. */
export interface ResolvedCookieOptions {
  readonly sessionName: string | undefined;
  readonly cookieDomain: string | undefined;
  readonly baseUrl: string | undefined;
  readonly cookieSecure: "auto" | "always";
  readonly sameSite: SameSiteValue | undefined;
  readonly absoluteTimeout: number;
}

/** {@link SessionAuthOptions} with every default filled in, frozen. */
export interface ResolvedOptions extends ResolvedCookieOptions {
  readonly sessionStore: SessionStore;
  readonly userStore: UserStore;
  readonly csrfToken: (sessid: string) => string;
  readonly idleTimeout: number;
  readonly touchInterval: number;
  readonly storeTimeout: number;
  readonly onEvent: AuthEventListener | undefined;
  readonly isAdmin: (user: UserRecord) => boolean;
  readonly hasher: PasswordHasher;
  readonly counterStore: CounterStore;
  readonly throttle: Readonly<Required<ThrottleOptions>> | false;
  readonly maxSessionsPerUser: number;
  readonly blockedAccountResponse: "drupal" | "generic";
  readonly loginApiVersion: "1.0" | "1.1";
  readonly logoutApiVersion: "1.0" | "1.1";
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
  /** The session cookie of a request to `host`, by the rule the caller supplied. */
  readonly cookieOf: (host: string, secure: boolean) => SessionCookie;
}

/** What a layer above the core supplies: the defaults the core cannot make itself. */
export interface SuppliedDefaults {
  /** The counter store when the options give none. */
  counterStore(): CounterStore;
  /** The session cookie of a request to `host` under the resolved cookie options (Drupal's rule). */
  cookieOf(options: ResolvedCookieOptions, host: string, secure: boolean): SessionCookie;
}

/** {@link RequireSessionOptions} with every default filled in. */
export interface ResolvedGuardOptions {
  readonly csrf: boolean;
  readonly roles: readonly string[];
  readonly onDenied: "reply" | "next";
}

const SAME_SITE: Readonly<Record<"lax" | "strict" | "none", SameSiteValue>> = { lax: "Lax", strict: "Strict", none: "None" };

function defaultIsAdmin(user: UserRecord): boolean {
  return user.uid === "1" || Object.values(user.roles).includes("administrator");
}

function resolveCookie(input: z.output<typeof cookieSchema>): ResolvedCookieOptions {
  return {
    sessionName: input.sessionName,
    cookieDomain: input.cookieDomain,
    baseUrl: input.baseUrl,
    cookieSecure: input.cookieSecure ?? DEFAULTS.cookieSecure,
    sameSite: input.sameSite === undefined ? undefined : SAME_SITE[input.sameSite],
    absoluteTimeout: input.absoluteTimeout ?? DEFAULTS.absoluteTimeout,
  };
}

/**
 * Validates and completes the options once. The caller's object is not modified.
 * @throws TypeError naming every invalid option.
 */
export function resolveOptions(input: SessionAuthOptions, supplied: SuppliedDefaults, factory: string): ResolvedOptions {
  const parsed = parseOptions(optionsSchema, input, factory);
  const cookie = resolveCookie(parsed);
  const csrfToken = parsed.csrfToken ?? hmacCsrfToken(parsed.secret!);
  const throttle = parsed.throttle === false ? false : Object.freeze({ ...DEFAULTS.throttle, ...parsed.throttle });
  const idleTimeout = effectiveIdleTimeout(parsed);
  return Object.freeze({
    ...cookie,
    sessionStore: parsed.sessionStore,
    userStore: parsed.userStore,
    csrfToken,
    idleTimeout,
    touchInterval: parsed.touchInterval ?? Math.min(DEFAULTS.touchInterval, Math.floor(idleTimeout / 2)),
    storeTimeout: parsed.storeTimeout ?? DEFAULTS.storeTimeout,
    onEvent: parsed.onEvent,
    isAdmin: parsed.isAdmin ?? defaultIsAdmin,
    hasher: parsed.hasher ?? scryptHasher(),
    counterStore: parsed.counterStore ?? supplied.counterStore(),
    throttle,
    maxSessionsPerUser: parsed.maxSessionsPerUser ?? DEFAULTS.maxSessionsPerUser,
    blockedAccountResponse: parsed.blockedAccountResponse ?? DEFAULTS.blockedAccountResponse,
    loginApiVersion: parsed.loginApiVersion ?? DEFAULTS.loginApiVersion,
    logoutApiVersion: parsed.logoutApiVersion ?? DEFAULTS.logoutApiVersion,
    maxPasswordBytes: parsed.maxPasswordBytes ?? DEFAULTS.maxPasswordBytes,
    maxNameLength: parsed.maxNameLength ?? DEFAULTS.maxNameLength,
    bodyLimit: parsed.bodyLimit ?? DEFAULTS.bodyLimit,
    trustedOrigins: new Set((parsed.trustedOrigins ?? DEFAULTS.trustedOrigins).map((origin) => normalizeOrigin(origin)!)),
    ipv6Prefix: parsed.ipv6Prefix ?? DEFAULTS.ipv6Prefix,
    hashing: Object.freeze({
      concurrency: parsed.hashing?.concurrency ?? defaultHashConcurrency(),
      maxWait: parsed.hashing?.maxWait ?? DEFAULTS.hashing.maxWait,
      maxQueue: parsed.hashing?.maxQueue ?? DEFAULTS.hashing.maxQueue,
    }),
    // Stable across instances (so logs and shared counters agree), and never the secret itself.
    nameKey: createHmac("sha256", parsed.secret ?? csrfToken("services-session-auth:name-key")).update("login names").digest(),
    parsers: new Set(parsed.parsers ?? DEFAULTS.parsers),
    endpointName: parsed.endpointName ?? DEFAULTS.endpointName,
    clearSiteData: parsed.clearSiteData ?? DEFAULTS.clearSiteData,
    cookieOf: (host: string, secure: boolean) => supplied.cookieOf(cookie, host, secure),
  });
}

/**
 * Validates and completes the options that shape the session cookie, from an object that may
 * hold others too (all of {@link SessionAuthOptions}): they are ignored.
 * @throws TypeError naming every invalid option.
 */
export function resolveCookieOptions(input: Partial<CookieOptions>, factory: string): ResolvedCookieOptions {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(cookieShape)) if (Object.hasOwn(input, key)) picked[key] = (input as Record<string, unknown>)[key];
  return Object.freeze(resolveCookie(parseOptions(cookieSchema, picked, factory)));
}

/**
 * Validates and completes one route's {@link RequireSessionOptions}.
 * @throws TypeError naming every invalid option.
 */
export function resolveGuardOptions(input: RequireSessionOptions, factory: string, optional = false): ResolvedGuardOptions {
  const parsed: RequireSessionOptions = parseOptions(optional ? optionalSchema : requireSchema, input, factory);
  return Object.freeze({ csrf: parsed.csrf ?? DEFAULTS.csrf, roles: parsed.roles ?? DEFAULTS.roles, onDenied: parsed.onDenied ?? DEFAULTS.onDenied });
}
