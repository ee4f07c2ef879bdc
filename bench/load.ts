/**
 * The load generator, run as its own process so it never shares an event loop with the
 * server: `node --import tsx bench/load.ts '<json spec>'`. Prints one JSON line of results.
 */
import autocannon from "autocannon";

interface Spec {
  url: string;
  seconds: number;
  connections: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

const spec = JSON.parse(process.argv[2] ?? "{}") as Spec;
const result = await autocannon({
  url: spec.url,
  duration: spec.seconds,
  connections: spec.connections,
  pipelining: 1,
  method: spec.method ?? "GET",
  headers: spec.headers ?? {},
  ...(spec.body === undefined ? {} : { body: spec.body }),
});
const ok = result["2xx"];
process.stdout.write(
  `${JSON.stringify({
    rps: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok,
    bad: result.non2xx + result.errors + result.timeouts,
  })}\n`,
);
