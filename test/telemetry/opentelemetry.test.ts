/**
 * services-session-auth/opentelemetry with the SDK's in-memory exporters: the spans of a login, a
 * guard and the store calls under them, the metrics by outcome, and nothing sensitive in either.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySessionStore, type SessionStore } from "services-session-auth";
import type { SessionAuthTelemetry } from "services-session-auth";
import { openTelemetry } from "services-session-auth/opentelemetry";
import { createTestApp, login } from "../helpers/app.js";
import { aroundMethods } from "../helpers/doubles.js";

/** A reader collected on demand. */
class Collected extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

function telemetry() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new Collected();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    telemetry: openTelemetry({ tracerProvider, meterProvider }),
    spans: () => spans.getFinishedSpans(),
    async metrics(): Promise<Map<string, Array<{ attributes: Record<string, unknown>; value: unknown }>>> {
      const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
      const found = new Map<string, Array<{ attributes: Record<string, unknown>; value: unknown }>>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          found.set(
            metric.descriptor.name,
            metric.dataPoints.map((point) => ({ attributes: point.attributes, value: point.value })),
          );
        }
      }
      return found;
    },
  };
}

const manager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(manager.enable()));
afterAll(() => void context.disable());

const sumOf = (points: Array<{ attributes: Record<string, unknown>; value: unknown }> | undefined, match: Record<string, unknown>) =>
  (points ?? [])
    .filter((point) => Object.entries(match).every(([key, value]) => point.attributes[key] === value))
    .reduce((sum, point) => sum + Number(point.value), 0);

describe("openTelemetry()", () => {
  it("traces a login with its store calls beneath it, and counts logins by outcome and throttle refusals", async () => {
    const t = telemetry();
    const { app, agent } = createTestApp({ telemetry: t.telemetry, throttle: { userLimit: 2, perAccountOnly: true } });
    const session = await login(app);
    for (let i = 0; i < 3; i++) await agent.post("/services/json/user/login").send({ username: "admin", password: "wrong" });

    const spans = t.spans();
    const logins = spans.filter((span) => span.name === "login");
    expect(logins.map((span) => span.attributes["session_auth.login.outcome"])).toEqual(["success", "failure", "failure", "throttled"]);
    expect(logins.at(-1)!.attributes["error.type"]).toBe("ERR_USER_THROTTLED");
    // The store calls of the first login are its children.
    const first = logins[0]!;
    const children = spans.filter((span) => span.parentSpanContext?.spanId === first.spanContext().spanId).map((span) => span.name);
    expect(children).toEqual(expect.arrayContaining(["counterStore.increment", "userStore.findByName", "sessionStore.create"]));

    const metrics = await t.metrics();
    expect(sumOf(metrics.get("session_auth.logins"), { "session_auth.login.outcome": "success" })).toBe(1);
    expect(sumOf(metrics.get("session_auth.logins"), { "session_auth.login.outcome": "failure" })).toBe(2);
    expect(sumOf(metrics.get("session_auth.throttle.refusals"), { "session_auth.throttle.scope": "user" })).toBe(1);
    // Nothing sensitive anywhere: no session id, token, name, password or address.
    const everything = JSON.stringify([spans.map((span: ReadableSpan) => [span.name, span.attributes]), [...metrics]]);
    for (const secret of [session.sessid, session.token, "demo", "admin", "wrong", "127.0.0.1"]) expect(everything).not.toContain(secret);
  });

  it("traces guards by decision, and store calls with their duration, timeouts and refusals", async () => {
    const t = telemetry();
    const base = memorySessionStore();
    let mode: "ok" | "hang" = "ok";
    const sessionStore: SessionStore = aroundMethods(base, (_name, call) => (mode === "hang" ? new Promise(() => undefined) : call()));
    const { app, agent } = createTestApp({ telemetry: t.telemetry, sessionStore, storeTimeout: 0.05 });
    const session = await login(app);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    expect((await agent.get("/services/json/players")).status).toBe(401);
    mode = "hang";
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(503);

    const guards = t.spans().filter((span) => span.name === "requireSession");
    expect(guards.map((span) => span.attributes["session_auth.guard.outcome"])).toEqual(["allowed", "unauthenticated", "unavailable"]);
    const gets = t.spans().filter((span) => span.name === "sessionStore.get");
    expect(gets.at(-1)!.attributes["error.type"]).toBe("timeout");
    const metrics = await t.metrics();
    expect(sumOf(metrics.get("session_auth.store.timeouts"), { "session_auth.store.operation": "sessionStore.get" })).toBe(1);
    expect(metrics.get("session_auth.store.duration")!.length).toBeGreaterThan(0);
    base.close();
  });

  it("reads the held logouts and the memory store's live sessions when metrics are collected", async () => {
    const t = telemetry();
    const base = memorySessionStore();
    const { app } = createTestApp({ telemetry: t.telemetry, sessionStore: base });
    await login(app);
    await login(app, "admin", "admin-password");
    const metrics = await t.metrics();
    expect(metrics.get("session_auth.sessions.live")).toEqual([{ attributes: {}, value: 2 }]);
    expect(metrics.get("session_auth.logouts.held")).toEqual([{ attributes: {}, value: 0 }]);
    base.close();
  });

  it("measures nothing without the option, even with an SDK registered globally", async () => {
    const spans = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    trace.setGlobalTracerProvider(provider);
    try {
      const { app, agent } = createTestApp();
      const session = await login(app);
      expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
      // The global provider works: a span of the test's own is there, and none of the package's.
      trace.getTracer("test").startSpan("probe").end();
      expect(spans.getFinishedSpans().map((span) => span.name)).toEqual(["probe"]);
    } finally {
      trace.disable();
    }
  });

  it("takes a guard's outcome from a telemetry of the app's own that answers with a thenable, not a native promise", async () => {
    const seen: string[] = [];
    // A promise library's thenable (Bluebird, another realm): the guard waits for it as for a promise.
    const thenable = <T>(work: () => Promise<T>): PromiseLike<T> => ({ then: (done, failed) => work().then(done, failed) });
    const telemetry: SessionAuthTelemetry = {
      login: (work) => work(),
      guard: (required, work) => {
        seen.push(required ? "requireSession" : "optionalSession");
        return thenable(work) as Promise<never>;
      },
      storeCall: (_operation, work) => work(),
      gauges: () => undefined,
    };
    const { app, agent } = createTestApp({ telemetry });
    const session = await login(app);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(200);
    expect((await agent.get("/services/json/players")).status).toBe(401);
    expect(seen).toEqual(["requireSession", "requireSession"]);
  });
});
