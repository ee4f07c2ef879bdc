/**
 * Recipe: audit events and unhandled errors into pino, as JSON lines with the request's id.
 * test/examples/pino-events.test.ts runs it.
 */
import type { Logger } from "pino";
import type { AuthEvent, AuthEventListener } from "services-session-auth";

/** Events that want a look: refusals and store trouble are warnings, bugs are errors. */
const LEVELS: Partial<Record<AuthEvent["type"], "warn" | "error">> = {
  "login.throttled": "warn",
  "login.cross-site": "warn",
  "csrf.rejected": "warn",
  "logout.unrecorded": "warn",
  "store.failure": "warn",
  "store.full": "warn",
  "rehash.failed": "error",
  "internal.error": "error",
};

/** `onEvent` for createSessionAuthRouter: each event one line, its error under `err` (pino serialises it). */
export function pinoAuditEvents(logger: Logger): AuthEventListener {
  return (event) => logger[LEVELS[event.type] ?? "info"](event, event.type);
}
