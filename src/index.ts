/**
 * services-session-auth: the session interface of Drupal 7's Services web API
 * (`user/login`, `system/connect`, `user/logout`, `user/token`, `services/session/token`),
 * so Drupal-era clients keep working against a Node backend. The root is framework-neutral
 * (stores, hashers, errors, types, the OpenAPI document); each framework has its subpath:
 * `services-session-auth/express`, `/fastify`, `/hono`, `/fetch`.
 *
 * @packageDocumentation
 */
export { memorySessionStore } from "./stores/memory-session-store.js";
export { memoryUserStore } from "./stores/memory-user-store.js";
export { memoryCounterStore } from "./stores/memory-counter-store.js";
export { scryptHasher } from "./login/scrypt-hasher.js";
export { createSessionId, hashSessionId } from "./sessions/session-id.js";
export { reasonPhrase } from "./wire/status.js";
export { hmacCsrfToken } from "./keys/hmac-csrf-token.js";
export { drupalSessionName } from "./cookie/session-name.js";
export { sessionCookieFor } from "./cookie/session-cookie.js";
export { openApiDocument } from "./openapi/openapi.js";
export { SessionAuthError, isSessionAuthError } from "./errors.js";
export { memoryFloodStore, type FloodStore } from "./accounts/flood.js";
export { ACCOUNT_SETTINGS_DEFAULTS, type AccountSettings, type AccountSettingsSource, type CancelMethod, type RegisterPolicy } from "./accounts/settings.js";
export { USER_CALLS, type UserCall } from "./accounts/user-routes.js";
export type { OneTimeLink } from "./accounts/one-time-link.js";
export type { Mailer, MailMessage } from "./mail/mailer.js";
export type { UserMailOperation, UserMailTemplateKey } from "./mail/templates.js";

export type { AuthUser, RequestAuth } from "./sessions/session-check.js";
export type { NotFoundOptions } from "./engine/engine.js";
export type { LoginReply } from "./endpoint/endpoint.js";
export type {
  AccountsOptions,
  CookieOptions,
  CorsConfig,
  CorsOptions,
  DeviceCookieOptions,
  EndpointOptions,
  HashingOptions,
  LoginOptions,
  OriginOptions,
  OptionalSessionOptions,
  RequestParser,
  RequireSessionOptions,
  SessionAuthOptions,
  SessionOptions,
  ThrottleOptions,
} from "./options/options.js";
export type { AuthEvent, AuthEventContext, AuthEventListener, LoginSubjectFields } from "./events.js";
export type { SessionAuthTelemetry, TelemetryGauges } from "./telemetry/telemetry.js";
export type { MemorySessionStore, MemorySessionStoreOptions } from "./stores/memory-session-store.js";
export type { MemoryUserInput, MemoryUserStore, MemoryUserStoreOptions } from "./stores/memory-user-store.js";
export type { MemoryCounterStoreOptions } from "./stores/memory-counter-store.js";
export type { ScryptHasherOptions } from "./login/scrypt-hasher.js";
export type { SessionNameSource } from "./cookie/session-name.js";
export type { SessionCookieDescription } from "./cookie/session-cookie.js";
export type { GuardedMethod, GuardedRoute, Json, OpenApiObject, OpenApiOptions, OpenApiRoutes } from "./openapi/openapi.js";
export type { SessionAuthErrorCode } from "./errors.js";
export type {
  CounterStore,
  NewUserRecord,
  PasswordHasher,
  ProcessLocal,
  SessionRecord,
  SessionStore,
  SessionStoreContext,
  StoredSession,
  UserChanges,
  UserListCondition,
  UserListQuery,
  UserListRow,
  UserRecord,
  UserStore,
  UserWrite,
} from "./types.js";
