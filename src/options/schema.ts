import { z } from "zod";
import { COOKIE_DEFAULTS, cookieSettings, cookieShape, secureSameSiteNone, type CookieSettings } from "../cookie/options.js";
import { corsSettings, corsShape, type CorsSettings } from "../cors/options.js";
import { endpointSettings, endpointShape, type EndpointSettings } from "../endpoint/options.js";
import type { AuthEventListener } from "../events.js";
import { deriveKey } from "../keys/derive-key.js";
import { secretSchema } from "../keys/secret.js";
import { hmacCsrfToken } from "../keys/hmac-csrf-token.js";
import { loginSettings, loginShape, type LoginSettings } from "../login/options.js";
import { originSettings, originShape, type OriginSettings } from "../origins/options.js";
import { sessionRefinements, sessionSettings, sessionShape, type SessionSettings } from "../sessions/options.js";
import type { SessionAuthTelemetry } from "../telemetry/telemetry.js";
import type { CounterStore, SessionStore, UserStore } from "../types.js";
import { fn, implementing, parseOptions } from "../validate.js";
import type { SessionAuthOptions } from "./options.js";
import { accountsSchema, accountsSettings, type AccountsSettings } from "../accounts/options.js";
import { USER_CALLS } from "../accounts/user-routes.js";

/**
 * The whole options schema from each concept's slice, and the one resolver from a caller's options
 * to frozen settings per concept; defaults of layers above (the memory counter store) are handed in.
 *
 * @module
 */

/** The defaults of the options every concept shares. */
export const CORE_DEFAULTS = Object.freeze({ storeTimeout: 2 });

const coreShape = {
  sessionStore: implementing<SessionStore>("SessionStore", ["create", "get", "touch", "destroy", "listByUser", "destroyByUser"]),
  userStore: implementing<UserStore>("UserStore", ["findByName", "findById", "recordLogin", "updatePasswordHash"]),
  secret: secretSchema.optional(),
  // Seconds, as every duration here. A value in milliseconds (2000) would be half an hour; under 10 ms no store answers.
  storeTimeout: z.number().min(0.01, "is in seconds (at least 0.01)").max(60, "is in seconds, as every duration here (at most 60; e.g. 2 or 0.5)").optional(),
  onEvent: fn<AuthEventListener>("event => void").optional(),
  telemetry: implementing<SessionAuthTelemetry>("SessionAuthTelemetry (openTelemetry())", ["login", "guard", "storeCall", "gauges"]).optional(),
  accounts: accountsSchema,
};

/** The shape of every option, each concept's slice spread in. */
export const optionShape = { ...coreShape, ...cookieShape, ...sessionShape, ...loginShape, ...originShape, ...corsShape, ...endpointShape };

const [idleWithinAbsolute, touchWithinIdle] = sessionRefinements;
const optionsSchema = z
  .strictObject(optionShape)
  .refine((value) => value.secret !== undefined || value.csrfToken !== undefined, {
    message: "is required (at least 32 characters, the same on every instance) unless csrfToken is given",
    path: ["secret"],
  })
  .refine(...secureSameSiteNone)
  // CORS answers the origins of trustedOrigins: settings for it without any origin do nothing, which is a mistake.
  .refine((value) => value.cors === undefined || value.cors === false || (value.trustedOrigins ?? []).length > 0, {
    message: 'answers the origins of trustedOrigins: list the app origins there (e.g. trustedOrigins: ["capacitor://localhost"])',
    path: ["cors"],
  })
  .refine(...idleWithinAbsolute)
  .refine((value) => (value.absoluteTimeout ?? COOKIE_DEFAULTS.absoluteTimeout) <= (value.sessionStore.maxLifetime ?? Infinity), {
    message: "must not be longer than the session store keeps a session (its maxLifetime; for sealedCookieStore, maxAgeSeconds): sessions would end early",
    path: ["absoluteTimeout"],
  })
  .refine(...touchWithinIdle);

// The schema and the documented type describe the same options: a key or type in one and not
// the other fails the build here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesType: Same<Required<z.input<typeof optionsSchema>>, Required<SessionAuthOptions>> = true;
void schemaMatchesType;

/** {@link SessionAuthOptions} checked and completed, a slice per concept, frozen. */
export interface ResolvedOptions {
  readonly sessionStore: SessionStore;
  readonly userStore: UserStore;
  readonly counterStore: CounterStore;
  readonly storeTimeout: number;
  readonly onEvent: AuthEventListener | undefined;
  readonly telemetry: SessionAuthTelemetry | undefined;
  readonly cookie: CookieSettings;
  readonly sessions: SessionSettings;
  readonly login: LoginSettings;
  readonly origins: OriginSettings;
  readonly cors: CorsSettings;
  readonly endpoint: EndpointSettings;
  readonly accounts: AccountsSettings;
}

/** What a layer above supplies: the defaults the concepts cannot make themselves. */
export interface SuppliedDefaults {
  /** The counter store when the options give none. */
  counterStore(): CounterStore;
}

/**
 * Validates and completes the options once. The caller's object is not modified.
 * @throws TypeError naming every invalid option.
 */
export function resolveOptions(input: SessionAuthOptions, supplied: SuppliedDefaults, factory: string): ResolvedOptions {
  const parsed = parseOptions(optionsSchema, input, factory);
  const cookie = cookieSettings(parsed);
  const origins = originSettings(parsed, cookie.baseUrl);
  const csrfToken = parsed.csrfToken ?? hmacCsrfToken(parsed.secret!);
  // Stable across instances and a key of its own; without a secret, from the token function over
  // a value no cookie can hold (never "; "), so no token reply carries it.
  const nameKey = deriveKey(parsed.secret ?? csrfToken("services-session-auth; login names"), "login names");
  return Object.freeze({
    sessionStore: parsed.sessionStore,
    userStore: parsed.userStore,
    counterStore: parsed.counterStore ?? supplied.counterStore(),
    storeTimeout: parsed.storeTimeout ?? CORE_DEFAULTS.storeTimeout,
    onEvent: parsed.onEvent,
    telemetry: parsed.telemetry,
    cookie,
    sessions: sessionSettings(parsed, cookie, csrfToken),
    login: loginSettings(parsed, nameKey, deriveKey(parsed.secret ?? csrfToken("services-session-auth; device cookies"), "device cookies")),
    origins,
    cors: corsSettings(parsed, origins.trustedOrigins),
    endpoint: endpointSettings(parsed),
    accounts: accountsSettings(parsed.accounts, (purpose) => deriveKey(parsed.secret ?? csrfToken(`services-session-auth; ${purpose}`), purpose), factory),
  });
}

/** The options that shape the wire as a document describes it (the OpenAPI document), resolved; `accounts`, the account calls served. */
export type DocumentedSettings = Pick<ResolvedOptions, "cookie" | "login" | "cors" | "endpoint"> & { readonly accounts?: Pick<AccountsSettings, "calls"> };

/** The options a document reads: the cookie's, the login's, the origins' and CORS's, the endpoint's. */
const DOCUMENTED_OPTIONS = [
  "sessionName",
  "cookieDomain",
  "baseUrl",
  "cookieSecure",
  "sameSite",
  "absoluteTimeout",
  "clearSiteData",
  "endpoint",
  "endpointName",
  "parsers",
  "throttle",
  "blockedAccountResponse",
  "loginApiVersion",
  "logoutApiVersion",
  "maxPasswordBytes",
  "maxNameLength",
  "trustedOrigins",
  "admitCrossSiteWithoutOrigin",
  "cors",
  "deviceCookies",
  "accounts",
] as const satisfies readonly (keyof typeof optionShape)[];

const documentedSchema = z.looseObject(
  Object.fromEntries(DOCUMENTED_OPTIONS.map((key) => [key, optionShape[key]])) as Pick<typeof optionShape, (typeof DOCUMENTED_OPTIONS)[number]>,
);

/**
 * The settings a wire document needs, from options that may lack stores and secret: the same checks
 * and resolvers as {@link resolveOptions}, no key derived.
 * @throws TypeError naming every invalid option.
 */
export function resolveDocumentedOptions(input: Partial<SessionAuthOptions>, factory: string): DocumentedSettings {
  const parsed = parseOptions(documentedSchema, input, factory);
  const cookie = cookieSettings(parsed);
  const origins = originSettings(parsed, cookie.baseUrl);
  const noKey = Buffer.alloc(32);
  const calls = parsed.accounts?.calls ?? [];
  return Object.freeze({
    cookie,
    login: loginSettings(parsed, noKey, noKey),
    cors: corsSettings(parsed, origins.trustedOrigins),
    endpoint: endpointSettings(parsed),
    accounts: { calls: new Set(calls === "all" ? USER_CALLS : calls) },
  });
}
