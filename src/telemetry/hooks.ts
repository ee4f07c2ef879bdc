import type { Authenticator } from "../login/authenticator.js";
import type { Sessions } from "../sessions/sessions.js";
import type { SessionStore } from "../types.js";
import type { SessionAuthTelemetry } from "./telemetry.js";

/** Puts every login of `authenticator` inside the telemetry's span, and gives it the gauges to read: only when telemetry is set. */
export function traceLogins(authenticator: Authenticator, telemetry: SessionAuthTelemetry, sessions: Sessions, store: SessionStore): void {
  const login = authenticator.login.bind(authenticator);
  authenticator.login = (attempt) => telemetry.login(() => login(attempt));
  // The memory session store counts its sessions; other stores are not asked (a count would cost a scan).
  const counted = store as { readonly size?: unknown };
  telemetry.gauges({
    heldLogouts: () => sessions.heldLogouts,
    liveSessions: () => (typeof counted.size === "number" ? counted.size : undefined),
  });
}
