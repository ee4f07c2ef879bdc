import type * as Api from "@opentelemetry/api";
import { isSessionAuthError } from "../errors.js";
import { loadOptionalPeer } from "../stores/optional-peer.js";
import type { SessionAuthTelemetry, TelemetryGauges } from "./telemetry.js";

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where spans go. @default the global one (`trace.setGlobalTracerProvider`, as the Node SDK registers it) */
  tracerProvider?: Api.TracerProvider;
  /** Where metrics go. @default the global one (`metrics.setGlobalMeterProvider`) */
  meterProvider?: Api.MeterProvider;
}

/** The instrumentation scope: the package's name. */
const SCOPE = "services-session-auth";

/** A login's outcome from what it threw: the reply's kind, never its detail. */
function loginOutcome(error: unknown): string {
  if (!isSessionAuthError(error)) return "error";
  switch (error.code) {
    case "ERR_INVALID_CREDENTIALS":
    case "ERR_ACCOUNT_BLOCKED":
    case "ERR_MISSING_ARGUMENT":
      return "failure";
    case "ERR_IP_THROTTLED":
    case "ERR_USER_THROTTLED":
      return "throttled";
    case "ERR_LOGIN_BUSY":
      return "busy";
    case "ERR_STORE_UNAVAILABLE":
    case "ERR_STORE_FULL":
      return "unavailable";
    default:
      return "refused";
  }
}

/** A guard's decision from its outcome. */
function guardOutcome(outcome: { readonly error?: unknown; readonly auth?: unknown }): string {
  if (outcome.error === undefined) return outcome.auth === undefined ? "anonymous" : "allowed";
  const code = isSessionAuthError(outcome.error) ? outcome.error.code : undefined;
  return code === "ERR_UNAUTHENTICATED"
    ? "unauthenticated"
    : code === "ERR_CSRF"
      ? "csrf"
      : code === "ERR_FORBIDDEN"
        ? "forbidden"
        : code === "ERR_STORE_UNAVAILABLE" || code === "ERR_STORE_FULL"
          ? "unavailable"
          : "refused";
}

/** Why a store call failed, as `error.type`: `timeout`, `shed` or `offline` (refused at once), `full`, or `error`. */
function storeErrorType(error: unknown): string {
  if (isSessionAuthError(error) && error.code === "ERR_STORE_FULL") return "full";
  const cause = (error as { cause?: unknown } | null)?.cause as { name?: unknown; reason?: unknown } | undefined;
  if (cause?.name === "StoreTimeout") return "timeout";
  if (cause?.name === "StoreRefusal" && typeof cause.reason === "string") return cause.reason;
  return "error";
}

/**
 * Traces and metrics of the login path, the guards and every store call, through
 * `@opentelemetry/api` (an optional peer: install it, and an SDK to export). Spans: `login`,
 * `requireSession`/`optionalSession`, and `sessionStore.get` and the like, each under the request's
 * span. Metrics: `session_auth.logins` by outcome, `session_auth.throttle.refusals`,
 * `session_auth.store.duration`, `session_auth.store.timeouts`, `session_auth.store.refusals`,
 * `session_auth.logouts.held`, `session_auth.sessions.live`. No attribute carries a session id, a
 * token, a name or an address. docs/telemetry.md.
 *
 * @example
 * ```ts
 * import { openTelemetry } from "services-session-auth/opentelemetry";
 * const sessionAuth = createSessionAuthRouter({ ...options, telemetry: openTelemetry() });
 * ```
 * @throws TypeError naming `@opentelemetry/api` when it is not installed.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): SessionAuthTelemetry {
  const api = loadOptionalPeer<typeof Api>("@opentelemetry/api", "openTelemetry()");
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (options.meterProvider ?? api.metrics.getMeterProvider()).getMeter(SCOPE);
  const logins = meter.createCounter("session_auth.logins", { description: "Logins by outcome", unit: "{login}" });
  const refusals = meter.createCounter("session_auth.throttle.refusals", { description: "Logins refused by the login throttle", unit: "{login}" });
  const duration = meter.createHistogram("session_auth.store.duration", { description: "Duration of store calls", unit: "s" });
  const timeouts = meter.createCounter("session_auth.store.timeouts", { description: "Store calls that outlived storeTimeout", unit: "{call}" });
  const refused = meter.createCounter("session_auth.store.refusals", {
    description: "Store calls refused at once: more than the store can serve in time (shed), or its connection down (offline)",
    unit: "{call}",
  });
  const held = meter.createObservableGauge("session_auth.logouts.held", { description: "Users with a logout held until the store takes it", unit: "{user}" });
  const live = meter.createObservableGauge("session_auth.sessions.live", { description: "Sessions in the session store", unit: "{session}" });

  /** Runs `work` in an active span (so store calls nest under it); `describe` gives its outcome's attributes. */
  async function traced<T>(name: string, work: () => Promise<T>, describe: (value: T | undefined, error: unknown) => Api.Attributes): Promise<T> {
    return tracer.startActiveSpan(name, async (span) => {
      try {
        const value = await work();
        span.setAttributes(describe(value, undefined));
        return value;
      } catch (error) {
        span.setAttributes(describe(undefined, error));
        span.setStatus({ code: api.SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  return {
    login(work) {
      return traced("login", work, (_value, error) => {
        const outcome = error === undefined ? "success" : loginOutcome(error);
        logins.add(1, { "session_auth.login.outcome": outcome });
        if (outcome === "throttled")
          refusals.add(1, { "session_auth.throttle.scope": isSessionAuthError(error) && error.code === "ERR_IP_THROTTLED" ? "ip" : "user" });
        return error === undefined
          ? { "session_auth.login.outcome": outcome }
          : { "session_auth.login.outcome": outcome, "error.type": isSessionAuthError(error) ? error.code : "error" };
      });
    },
    guard(required, work) {
      return traced(required ? "requireSession" : "optionalSession", work, (outcome, error) => {
        const decision = outcome === undefined ? "error" : guardOutcome(outcome);
        const code = isSessionAuthError(outcome?.error) ? outcome.error.code : error === undefined ? undefined : "error";
        return code === undefined ? { "session_auth.guard.outcome": decision } : { "session_auth.guard.outcome": decision, "error.type": code };
      });
    },
    storeCall(operation, work) {
      const started = performance.now();
      return traced(operation, work, (_value, error) => {
        const attributes: Api.Attributes = { "session_auth.store.operation": operation };
        if (error !== undefined) {
          const type = storeErrorType(error);
          attributes["error.type"] = type;
          if (type === "timeout") timeouts.add(1, { "session_auth.store.operation": operation });
          if (type === "shed" || type === "offline") refused.add(1, { "session_auth.store.operation": operation, "session_auth.store.refusal": type });
        }
        duration.record((performance.now() - started) / 1000, attributes);
        return attributes;
      });
    },
    gauges(read: TelemetryGauges) {
      held.addCallback((result) => result.observe(read.heldLogouts()));
      live.addCallback((result) => {
        const count = read.liveSessions();
        if (count !== undefined) result.observe(count);
      });
    },
  };
}
