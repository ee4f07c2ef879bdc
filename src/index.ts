/**
 * services-session-auth: the session interface of Drupal 7's Services web API
 * (`user/login`, `system/connect`, `user/logout`, `user/token`, `services/session/token`)
 * for Express apps, so Drupal-era clients keep working against a Node backend.
 *
 * @packageDocumentation
 */
import "./express/augment.js";

export { createSessionAuth } from "./express/create-session-auth.js";
export { drupalQueryPath } from "./express/query-path.js";
export { memorySessionStore } from "./stores/memory-session-store.js";
export { memoryUserStore } from "./stores/memory-user-store.js";
export { memoryCounterStore } from "./stores/memory-counter-store.js";
export { scryptHasher } from "./core/password.js";
export { hmacCsrfToken } from "./core/csrf-token.js";
export { createSessionId, hashSessionId } from "./core/session-id.js";
export { drupalSessionName } from "./services/session-name.js";
export { sessionCookieFor } from "./services/session-cookie.js";
export { openApiDocument } from "./services/openapi.js";
export { reasonPhrase } from "./services/status.js";
export { SessionAuthError, isSessionAuthError } from "./errors.js";

export type { SessionAuth } from "./express/create-session-auth.js";
export type { ErrorHandlerOptions } from "./express/error-log.js";
export type { AuthUser, RequestAuth } from "./express/augment.js";
export type { DrupalQueryPathOptions } from "./express/query-path.js";
export type { NotFoundOptions } from "./services/engine.js";
export type { LoginReply } from "./services/endpoint.js";
export type { CookieOptions, HashingOptions, RequestParser, RequireSessionOptions, SessionAuthOptions, ThrottleOptions } from "./core/options.js";
export type { AuthEvent, AuthEventContext, AuthEventListener, LoginSubjectFields } from "./core/events.js";
export type { MemorySessionStore, MemorySessionStoreOptions } from "./stores/memory-session-store.js";
export type { MemoryUserInput, MemoryUserStore, MemoryUserStoreOptions } from "./stores/memory-user-store.js";
export type { MemoryCounterStoreOptions } from "./stores/memory-counter-store.js";
export type { ScryptHasherOptions } from "./core/password.js";
export type { SessionNameSource } from "./services/session-name.js";
export type { SessionCookieDescription } from "./services/session-cookie.js";
export type { GuardedMethod, GuardedRoute, Json, OpenApiObject, OpenApiOptions } from "./services/openapi.js";
export type { SessionAuthErrorCode } from "./errors.js";
export type { CounterStore, PasswordHasher, SessionRecord, SessionStore, StoredSession, UserRecord, UserStore } from "./types.js";
