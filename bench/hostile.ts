/**
 * What a hostile header costs: `POST /services/json/user/login` with an unsupported
 * Content-Type of 16,000 `<` (echoed, once, into the 406's status line and body) next to
 * the same request with `text/csv`. One at a time, then ordinary requests while 8 clients
 * send the hostile one, against 8 clients sending ordinary ones.
 *
 *   npm run bench -- --only hostile      (builds first)
 *   npx tsx bench/hostile.ts             (after `npm run build`)
 *
 * The server is `bench/server.ts` (the built package) in its own process; its CPU time per
 * request is read from it around each measured stretch.
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { resolve } from "node:path";

const here = import.meta.dirname;
const SEQUENTIAL = Number(process.env.BENCH_HOSTILE_REQUESTS ?? 300);
const MIXED_SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 3);
const NORMAL = "text/csv";
const HOSTILE = `text/${"<".repeat(16_000)}`;

const child = spawn(process.execPath, ["--import", "tsx", resolve(here, "server.ts"), "ours-login-trivial"], {
  cwd: resolve(here, ".."),
  env: { ...process.env, NODE_ENV: "production" },
  stdio: ["ignore", "pipe", "inherit", "ipc"],
});
const port = await new Promise<number>((done, fail) => {
  let out = "";
  child.once("exit", (code) => fail(new Error(`server exited ${code} before listening`)));
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    const match = /PORT (\d+)/.exec(out);
    if (match !== null) done(Number(match[1]));
  });
});

/** The server's CPU time so far (user + system), in microseconds. */
function serverCpu(): Promise<number> {
  return new Promise((answered) => {
    child.once("message", (usage) => answered((usage as { cpu: number }).cpu));
    child.send("cpu");
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One request; resolves its latency in milliseconds, after checking it got the 406. */
function post(contentType: string): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const req = request(
      { host: "127.0.0.1", port, agent, method: "POST", path: "/services/json/user/login", headers: { "Content-Type": contentType, "Content-Length": 1 } },
      (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 406 ? done(performance.now() - started) : fail(new Error(`expected 406, got ${res.statusCode}`))));
      },
    );
    req.on("error", fail);
    req.end("x");
  });
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function oneAtATime(contentType: string): Promise<{ p50: number; cpu: number }> {
  for (let i = 0; i < 20; i++) await post(contentType);
  const before = await serverCpu();
  const latencies: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) latencies.push(await post(contentType));
  return { p50: percentile(latencies, 50), cpu: ((await serverCpu()) - before) / SEQUENTIAL };
}

/** Ordinary requests, one at a time, while 8 other clients send `background` as fast as they can. */
async function underLoad(background: string): Promise<{ p50: number; p99: number; background: number }> {
  const until = performance.now() + MIXED_SECONDS * 1000;
  let sent = 0;
  const flood = Array.from({ length: 8 }, async () => {
    while (performance.now() < until) {
      await post(background);
      sent += 1;
    }
  });
  const latencies: number[] = [];
  while (performance.now() < until) latencies.push(await post(NORMAL));
  await Promise.all(flood);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), background: sent / MIXED_SECONDS };
}

try {
  const normal = await oneAtATime(NORMAL);
  const hostile = await oneAtATime(HOSTILE);
  const calm = await underLoad(NORMAL);
  const attacked = await underLoad(HOSTILE);
  const f = (value: number) => value.toFixed(2);
  console.log(`\nHostile input: POST user/login with an unsupported Content-Type, answered 406 (${SEQUENTIAL} requests each, one at a time)`);
  console.log(`| Content-Type                      | p50 ms | server CPU µs/req |`);
  console.log(`|-----------------------------------|-------:|------------------:|`);
  console.log(`| ${NORMAL.padEnd(33)} | ${f(normal.p50).padStart(6)} | ${normal.cpu.toFixed(0).padStart(17)} |`);
  console.log(`| ${`text/ + 16,000 "<" (${HOSTILE.length} chars)`.padEnd(33)} | ${f(hostile.p50).padStart(6)} | ${hostile.cpu.toFixed(0).padStart(17)} |`);
  console.log(`  the hostile request costs ${(hostile.cpu / normal.cpu).toFixed(1)}× the server CPU of the normal one`);
  console.log(`\nOrdinary requests, one at a time, while 8 clients send for ${MIXED_SECONDS} s:`);
  console.log(`  ordinary requests: p50 ${f(calm.p50)} ms, p99 ${f(calm.p99)} ms (the 8 clients at ${calm.background.toFixed(0)} req/s)`);
  console.log(`  the hostile one:   p50 ${f(attacked.p50)} ms, p99 ${f(attacked.p99)} ms (the 8 clients at ${attacked.background.toFixed(0)} req/s)`);
} finally {
  agent.destroy();
  child.kill("SIGTERM");
}
