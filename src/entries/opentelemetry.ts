/**
 * `services-session-auth/opentelemetry`: traces and metrics of logins, guards and store calls
 * through `@opentelemetry/api`, an optional peer dependency: install it (and an SDK to export)
 * in the app to use this subpath. docs/telemetry.md.
 *
 * @example
 * ```ts
 * import { createSessionAuthRouter } from "services-session-auth/express";
 * import { openTelemetry } from "services-session-auth/opentelemetry";
 *
 * const sessionAuth = createSessionAuthRouter({ userStore, sessionStore, secret, telemetry: openTelemetry() });
 * ```
 *
 * @module
 */
export { openTelemetry } from "../telemetry/opentelemetry.js";
export type { OpenTelemetryOptions } from "../telemetry/opentelemetry.js";
export type { SessionAuthTelemetry, TelemetryGauges } from "../telemetry/telemetry.js";
