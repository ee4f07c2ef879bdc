import { metrics, trace } from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { SessionAuthTelemetry } from "services-session-auth";
import { openTelemetry } from "services-session-auth/opentelemetry";

/** The example's traces and metrics, and how to send what is left before it exits. */
export interface ExampleTelemetry {
  readonly telemetry: SessionAuthTelemetry;
  shutdown(): Promise<void>;
}

/**
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (e.g. `http://localhost:4318`, an OpenTelemetry Collector): the
 * package's spans and metrics exported over OTLP/HTTP, as service `OTEL_SERVICE_NAME` (default
 * `sports-api`), metrics every `OTEL_METRIC_EXPORT_INTERVAL` ms (default 60000). Unset, nothing is
 * measured (docs/telemetry.md).
 */
export function telemetryFromEnv(env: NodeJS.ProcessEnv): ExampleTelemetry | undefined {
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined || env.OTEL_EXPORTER_OTLP_ENDPOINT === "") return undefined;
  const resource = resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? "sports-api" });
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // Registers the context manager too, so store calls' spans nest under the login's and the guard's.
  tracerProvider.register();
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000) }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    telemetry: openTelemetry({ tracerProvider: trace.getTracerProvider(), meterProvider }),
    shutdown: async () => void (await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()])),
  };
}
