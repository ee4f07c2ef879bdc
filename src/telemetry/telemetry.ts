/**
 * What the package reports while it works, for an instrumentation to turn into traces and metrics
 * (`openTelemetry()` from `services-session-auth/opentelemetry`). Nothing here imports a telemetry
 * library: without the `telemetry` option no hook is called and nothing is measured.
 *
 * @module
 */

/** How a guarded request, a login or a store call is wrapped: run `work`, and report how it went. */
export interface SessionAuthTelemetry {
  /** Around one login (`user/login`): its span, and the logins counted by outcome. */
  login<T>(work: () => Promise<T>): Promise<T>;
  /** Around one guard's decision (`requireSession` when `required`, else `optionalSession`). */
  guard<T extends { readonly error?: unknown }>(required: boolean, work: () => Promise<T>): Promise<T>;
  /** Around one store call (`sessionStore.get`, …): its span, its duration, and timeouts and refusals counted. */
  storeCall<T>(operation: string, work: () => Promise<T>): Promise<T>;
  /** Reads the gauges when the metrics are collected: logouts held in this process, and live sessions where the store can count them. */
  gauges(read: TelemetryGauges): void;
}

/** The values read when metrics are collected. */
export interface TelemetryGauges {
  /** Users with a logout held in this process until the store takes it. */
  heldLogouts(): number;
  /** Live sessions in the session store, when it can count them in memory (the memory store); else `undefined`. */
  liveSessions(): number | undefined;
}
