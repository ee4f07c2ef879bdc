/**
 * `npm run bench`: every configuration as its own server process, driven by a separate
 * autocannon process on loopback; warm-up, then a fixed measured window; several rounds,
 * configurations interleaved and the starting one rotated each round. Prints medians and
 * each configuration's ratio to a baseline measured in the same round.
 *
 * Options (flag or environment variable):
 *   --duration / BENCH_DURATION   measured seconds per run (default 5)
 *   --warmup   / BENCH_WARMUP     warm-up seconds per run (default 5)
 *   --rounds   / BENCH_ROUNDS     rounds (default 5)
 *   --only     / BENCH_ONLY       comma-separated configuration names, plus timing, attack, memory, hostile and drupal7
 *   --profile  / BENCH_PROFILE    a directory: servers run with --cpu-prof and write there
 *   BENCH_PIN=0                   do not pin the server to CPU 0 and the load to CPU 1
 *   REDIS_URL                     enables the Redis configurations
 *   MYSQL_URL, POSTGRES_URL       enable the Drupal 7 sessions-table rows (bench/drupal7.ts)
 */
import { spawn } from "node:child_process";
import { availableParallelism, cpus } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { node, pinned, runJson, startServer } from "./processes.js";
import { BENCH_NAME, BENCH_PASSWORD, GUARDED_PATH } from "./shared.js";

const { values: flags } = parseArgs({
  options: { duration: { type: "string" }, warmup: { type: "string" }, rounds: { type: "string" }, only: { type: "string" }, profile: { type: "string" } },
});
const seconds = Number(flags.duration ?? process.env.BENCH_DURATION ?? 5);
const warmup = Number(flags.warmup ?? process.env.BENCH_WARMUP ?? 5);
const rounds = Number(flags.rounds ?? process.env.BENCH_ROUNDS ?? 5);
const only = (flags.only ?? process.env.BENCH_ONLY)?.split(",").map((name) => name.trim());
const profileDir = flags.profile ?? process.env.BENCH_PROFILE;
const redisUrl = process.env.REDIS_URL;
const pin = pinned;
const here = import.meta.dirname;

type Kind = "get" | "login" | "scrypt";

interface Config {
  readonly name: string;
  readonly label: string;
  readonly kind: Kind;
  /** Where a JSON login goes; none for the bare server and raw scrypt. */
  readonly login?: { readonly path: string; readonly body: string };
  readonly redis?: boolean;
  /** Connections for the load; logins with the real hasher only queue behind libuv's four threads beyond four. */
  readonly connections?: number;
  /** What its ratio is to, when not its kind's baseline: each binding against its own bare framework. */
  readonly baseline?: string;
  /** A bare server sent the same request as a protected one: with a session cookie (of our shape), which it ignores. */
  readonly sendsCookie?: boolean;
  /** Where its GET goes: `/data` unless it is a floor or a binding mounted as the README shows (below the endpoint). */
  readonly path?: string;
  /** The framework whose floor rows it belongs to (printed against that framework's floor). */
  readonly framework?: Framework;
}

type Framework = "express" | "fastify" | "hono" | "fetch";

/** A cookie of the shape ours sets (`SESS` + 32 hex digits, a 43-character id), for a bare server that ignores it. */
const IGNORED_COOKIE = `SESS${"0123456789abcdef".repeat(2)}=${"A".repeat(43)}`;

const peerLogin = { path: "/login", body: JSON.stringify({ username: BENCH_NAME, password: BENCH_PASSWORD }) };
const ourLogin = { path: "/services/json/user/login", body: peerLogin.body };

const floorLogin = peerLogin;
const G = GUARDED_PATH;

const ALL: readonly Config[] = [
  { name: "express", label: "bare Express 5, no auth", kind: "get", framework: "express" },
  { name: "express-floor", label: "Express floor: the least guard work, by hand", kind: "get", login: floorLogin, path: G, framework: "express" },
  { name: "express-session-memory", label: "express-session + MemoryStore", kind: "get", login: peerLogin, framework: "express" },
  { name: "express-session-redis", label: "express-session + connect-redis", kind: "get", login: peerLogin, redis: true, framework: "express" },
  { name: "iron-session", label: "iron-session (sealed cookie)", kind: "get", login: peerLogin, framework: "express" },
  { name: "ours-memory", label: "requireSession, memory store (README's Express)", kind: "get", login: ourLogin, path: G, framework: "express" },
  { name: "ours-redis", label: "requireSession, Redis store", kind: "get", login: ourLogin, redis: true },
  { name: "ours-sealed", label: "requireSession, sealed-cookie store", kind: "get", login: ourLogin },
  { name: "express-cookie", label: "bare Express 5, the same request with a cookie", kind: "get", sendsCookie: true, baseline: "express" },
  { name: "fastify", label: "bare Fastify 5, no auth", kind: "get", framework: "fastify" },
  {
    name: "fastify-floor",
    label: "Fastify floor: the least guard work, by hand",
    kind: "get",
    login: floorLogin,
    path: G,
    baseline: "fastify",
    framework: "fastify",
  },
  { name: "fastify-cookie", label: "bare Fastify 5, the same request with a cookie", kind: "get", sendsCookie: true, baseline: "fastify" },
  {
    name: "ours-fastify",
    label: "Fastify plugin's requireSession (README's Fastify)",
    kind: "get",
    login: ourLogin,
    path: G,
    baseline: "fastify",
    framework: "fastify",
  },
  { name: "fastify-session", label: "@fastify/session + its MemoryStore", kind: "get", login: peerLogin, baseline: "fastify", framework: "fastify" },
  {
    name: "fastify-secure-session",
    label: "@fastify/secure-session (sealed cookie)",
    kind: "get",
    login: peerLogin,
    baseline: "fastify",
    framework: "fastify",
  },
  { name: "hono", label: "bare Hono on @hono/node-server, no auth", kind: "get", framework: "hono" },
  { name: "hono-floor", label: "Hono floor: the least guard work, by hand", kind: "get", login: floorLogin, path: G, baseline: "hono", framework: "hono" },
  { name: "hono-cookie", label: "bare Hono, the same request with a cookie", kind: "get", sendsCookie: true, baseline: "hono" },
  { name: "hono-headers", label: "bare Hono reading Host, Cookie, X-Request-Id", kind: "get", baseline: "hono" },
  { name: "hono-middleware", label: "bare Hono with two pass-through middlewares", kind: "get", baseline: "hono" },
  { name: "hono-async", label: "bare Hono, its handler declared async", kind: "get", baseline: "hono" },
  { name: "ours-hono", label: "Hono middleware's requireSession (README's Hono)", kind: "get", login: ourLogin, path: G, baseline: "hono", framework: "hono" },
  { name: "hono-sessions", label: "hono-sessions + its MemoryStore", kind: "get", login: peerLogin, baseline: "hono", framework: "hono" },
  { name: "fetch", label: "bare fetch handler on node:http, no auth", kind: "get", framework: "fetch" },
  { name: "fetch-floor", label: "fetch floor: the least guard work, by hand", kind: "get", login: floorLogin, path: G, baseline: "fetch", framework: "fetch" },
  { name: "ours-fetch", label: "fetch handler's requireSession on node:http", kind: "get", login: ourLogin, path: G, baseline: "fetch", framework: "fetch" },
  { name: "express-session-login", label: "login: express-session, trivial check", kind: "login", login: peerLogin },
  { name: "ours-login-trivial", label: "login: ours, trivial hasher", kind: "login", login: ourLogin },
  { name: "scrypt-raw", label: "raw crypto.scrypt (N=2^17,r=8,p=1)", kind: "scrypt", connections: 4 },
  { name: "ours-login-scrypt", label: "login: ours, default scrypt hasher", kind: "login", login: ourLogin, connections: 4 },
];

/** Each framework's rows against its floor: the bare framework, the floor, the package's guard (README-mounted) and the peers on it. */
const FLOORS: Readonly<Record<Framework, { readonly bare: string; readonly floor: string; readonly ours: string }>> = {
  express: { bare: "express", floor: "express-floor", ours: "ours-memory" },
  fastify: { bare: "fastify", floor: "fastify-floor", ours: "ours-fastify" },
  hono: { bare: "hono", floor: "hono-floor", ours: "ours-hono" },
  fetch: { bare: "fetch", floor: "fetch-floor", ours: "ours-fetch" },
};

const configs = ALL.filter((config) => {
  if (only !== undefined && !only.includes(config.name)) return false;
  if (config.redis === true && redisUrl === undefined) {
    console.log(`SKIPPED ${config.name}: set REDIS_URL (e.g. redis://127.0.0.1:6379) to measure it`);
    return false;
  }
  return true;
});

interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
  readonly bad: number;
  /** Server CPU time per answered request, in microseconds: steadier than req/s on a shared machine. */
  cpuPerRequest?: number;
}

function load(spec: {
  url: string;
  seconds: number;
  connections: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<LoadResult> {
  return runJson<LoadResult>([resolve(here, "load.ts"), JSON.stringify(spec)], "1");
}

async function logIn(url: string, login: NonNullable<Config["login"]>): Promise<string> {
  const response = await fetch(url + login.path, { method: "POST", headers: { "Content-Type": "application/json" }, body: login.body });
  const cookie = response.headers.getSetCookie()[0];
  if (!response.ok || cookie === undefined) throw new Error(`login to ${url + login.path} failed: ${response.status}`);
  return cookie.split(";")[0]!;
}

/** Refuses to measure a server that would not tell a session from its absence. */
async function checkProtected(url: string, cookie: string | undefined): Promise<void> {
  const withSession = await fetch(url, { headers: cookie === undefined ? {} : { cookie } });
  if (withSession.status !== 200) throw new Error(`GET ${url} with the session answered ${withSession.status}`);
  if (cookie === undefined) return;
  const without = await fetch(url);
  if (without.status !== 401) throw new Error(`GET ${url} without a session answered ${without.status}, not 401`);
}

async function measure(config: Config): Promise<LoadResult> {
  // scrypt finishes a few hashes a second: twice the window keeps the count from being too coarse.
  if (config.kind === "scrypt") return runJson<LoadResult>([resolve(here, "scrypt-rate.ts"), String(seconds * 2)], "0");
  const server = await startServer(config.name, profileDir);
  try {
    const connections = config.connections ?? 50;
    let spec: { url: string; connections: number; method?: string; headers: Record<string, string>; body?: string };
    if (config.kind === "get") {
      const cookie = config.login === undefined ? undefined : await logIn(server.url, config.login);
      const url = `${server.url}${config.path ?? "/data"}`;
      await checkProtected(url, cookie);
      const sent = config.sendsCookie === true ? IGNORED_COOKIE : cookie;
      spec = { url, connections, headers: sent === undefined ? {} : { cookie: sent } };
    } else {
      const login = config.login!;
      await logIn(server.url, login);
      spec = { url: server.url + login.path, connections, method: "POST", headers: { "content-type": "application/json" }, body: login.body };
    }
    if (warmup > 0) {
      await load({ ...spec, seconds: warmup });
      // The server may still be working on requests the warm-up abandoned (a queued scrypt
      // runs on regardless); one request more returns only once they are done.
      await fetch(spec.url, { method: spec.method ?? "GET", headers: spec.headers, ...(spec.body === undefined ? {} : { body: spec.body }) }).then((response) =>
        response.arrayBuffer(),
      );
    }
    const cpuBefore = await server.cpu();
    const result = await load({ ...spec, seconds: config.kind === "get" ? seconds : seconds * 2 });
    result.cpuPerRequest = (await server.cpu()) - cpuBefore;
    result.cpuPerRequest /= Math.max(1, result.ok + result.bad);
    if (result.bad > 0) console.log(`  warning: ${config.name} had ${result.bad} failed or non-2xx responses of ${result.ok + result.bad}`);
    return result;
  } finally {
    await server.stop();
  }
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Latency of single logins, an unknown name against a real name with a wrong password, alternated. */
async function timingProbe(samples: number): Promise<{ unknown: number; wrong: number }> {
  const server = await startServer("ours-timing");
  const time = async (username: string) => {
    const started = performance.now();
    const response = await fetch(`${server.url}/services/json/user/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username, password: "not-the-password" }),
    });
    await response.arrayBuffer();
    if (response.status !== 401) throw new Error(`a failed login answered ${response.status}`);
    return performance.now() - started;
  };
  try {
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      // The first few of each warm the JIT and are dropped.
      const u = await time(`nobody-${i}`);
      const w = await time(BENCH_NAME);
      if (i >= 3) {
        unknown.push(u);
        wrong.push(w);
      }
    }
    return { unknown: median(unknown), wrong: median(wrong) };
  } finally {
    await server.stop();
  }
}

const cpu = cpus()[0]?.model ?? "unknown CPU";
console.log(`services-session-auth benchmark: Node ${process.version}, ${availableParallelism()} cores (${cpu})`);
console.log(`${rounds} rounds; per run ${warmup} s warm-up + ${seconds} s measured; ${pin ? "server on CPU 0, load on CPU 1 (taskset)" : "not pinned"}`);
console.log(`configurations: ${configs.map((config) => config.name).join(", ")}\n`);

const results = new Map<string, LoadResult[]>(configs.map((config) => [config.name, []]));
const perRound: Map<string, LoadResult>[] = [];
for (let round = 0; round < rounds; round++) {
  const order = configs.map((_, i) => configs[(i + round) % configs.length]!);
  const thisRound = new Map<string, LoadResult>();
  for (const config of order) {
    const result = await measure(config);
    results.get(config.name)!.push(result);
    thisRound.set(config.name, result);
    const latency = config.kind === "scrypt" ? "" : `  p50 ${result.p50} ms  p99 ${result.p99} ms  server CPU ${result.cpuPerRequest!.toFixed(0)} µs/req`;
    console.log(`round ${round + 1}/${rounds} ${config.name.padEnd(24)} ${result.rps.toFixed(config.kind === "get" ? 0 : 1).padStart(7)} /s${latency}`);
  }
  perRound.push(thisRound);
}

/** The median over rounds of a configuration's rate divided by the baseline's rate in the same round. */
function ratio(name: string, baseline: string): number | undefined {
  const values = perRound.flatMap((round) => {
    const a = round.get(name);
    const b = round.get(baseline);
    return a === undefined || b === undefined ? [] : [a.rps / b.rps];
  });
  return values.length === 0 ? undefined : median(values);
}

const baselineOf: Record<Kind, string> = { get: "express", login: "express-session-login", scrypt: "scrypt-raw" };
const rows = configs.map((config) => {
  const runs = results.get(config.name)!;
  const baseline =
    config.baseline ??
    (config.name === "ours-login-scrypt"
      ? "scrypt-raw"
      : config.name === "fastify" || config.name === "hono" || config.name === "fetch"
        ? config.name
        : baselineOf[config.kind]);
  const r = ratio(config.name, baseline);
  return {
    configuration: config.label,
    "req/s": median(runs.map((run) => run.rps)).toFixed(
      config.kind === "get" || config.name.endsWith("trivial") || config.name === "express-session-login" ? 0 : 2,
    ),
    "p50 ms": config.kind === "scrypt" ? "—" : median(runs.map((run) => run.p50)).toFixed(1),
    "p99 ms": config.kind === "scrypt" ? "—" : median(runs.map((run) => run.p99)).toFixed(1),
    "CPU µs/req": config.kind === "scrypt" ? "—" : median(runs.map((run) => run.cpuPerRequest!)).toFixed(0),
    ratio: r === undefined || config.name === baseline ? "—" : `${r.toFixed(2)}× ${baseline}`,
  };
});
console.log("\nMedians over rounds; ratio = median of per-round ratios to the baseline measured in the same round");
console.log(markdownTable(rows));

const targets: [string, number | undefined, number][] = [
  ["requireSession, memory store ≥ 0.90× bare Express", ratio("ours-memory", "express"), 0.9],
  ["requireSession, Redis store ≥ 0.80× bare Express", ratio("ours-redis", "express"), 0.8],
  ["Fastify plugin's requireSession, memory store ≥ 0.90× bare Fastify", ratio("ours-fastify", "fastify"), 0.9],
  ["Hono middleware's requireSession, memory store ≥ 0.90× bare Hono", ratio("ours-hono", "hono"), 0.9],
  ["requireSession, sealed cookie ≥ 2× iron-session", ratio("ours-sealed", "iron-session"), 2],
  ["login, default scrypt ≥ 0.9× raw scrypt rate", ratio("ours-login-scrypt", "scrypt-raw"), 0.9],
  ["login, trivial hasher ≥ 1.0× express-session login", ratio("ours-login-trivial", "express-session-login"), 1.0],
];

let timing: { unknown: number; wrong: number } | undefined;
if (only === undefined || only.includes("timing")) {
  timing = await timingProbe(Math.max(20, rounds * 10));
  console.log(
    `\nlogin latency (default scrypt, sequential, median): unknown name ${timing.unknown.toFixed(1)} ms, wrong password ${timing.wrong.toFixed(1)} ms, ratio ${(timing.unknown / timing.wrong).toFixed(3)}`,
  );
}

/** The median over rounds of a configuration's server CPU per request less the other's, in the same round (µs). */
function cpuOver(name: string, other: string): number | undefined {
  const values = perRound.flatMap((round) => {
    const a = round.get(name)?.cpuPerRequest;
    const b = round.get(other)?.cpuPerRequest;
    return a === undefined || b === undefined ? [] : [a - b];
  });
  return values.length === 0 ? undefined : median(values);
}

// Each framework against its floor: the same framework with the least guard work written by hand.
const floorRows = (Object.keys(FLOORS) as Framework[]).flatMap((framework) => {
  const { bare, floor, ours } = FLOORS[framework];
  if (!results.has(floor)) return [];
  const rows = configs
    .filter((config) => config.framework === framework && config.name !== floor)
    .map((config) => {
      const toFloor = ratio(config.name, floor);
      const cpu = cpuOver(config.name, floor);
      return {
        configuration: config.label,
        "× floor": toFloor === undefined ? "—" : `${toFloor.toFixed(2)}×`,
        "CPU µs/req over the floor's": cpu === undefined ? "—" : `${cpu >= 0 ? "+" : ""}${cpu.toFixed(0)}`,
        "× bare": config.name === bare ? "—" : (ratio(config.name, bare)?.toFixed(2) ?? "—"),
      };
    });
  const floorToBare = ratio(floor, bare);
  rows.unshift({
    configuration: configs.find((config) => config.name === floor)!.label,
    "× floor": "1.00×",
    "CPU µs/req over the floor's": "—",
    "× bare": floorToBare?.toFixed(2) ?? "—",
  });
  void ours;
  return rows;
});
if (floorRows.length > 0) {
  console.log("\nFloors: per framework, the least guard work by hand (cookie parsed, id SHA-256'd, one awaited read of the same memory store, expiry checked)");
  console.log("ratios are medians of per-round ratios measured in the same round; CPU is the server's own, per request");
  console.log(markdownTable(floorRows));
}

const floorTargets: [string, number | undefined, number][] = (Object.keys(FLOORS) as Framework[]).map((framework) => {
  const { floor, ours } = FLOORS[framework];
  const label = configs.find((config) => config.name === ours)?.label ?? ours;
  return [`${label} ≥ 0.95× the ${framework} floor`, ratio(ours, floor), 0.95];
});
console.log("\nTargets");
for (const [target, value, goal] of [...floorTargets, ...targets]) {
  if (value === undefined) continue;
  console.log(`  ${value >= goal ? "MET   " : "MISSED"} ${target}: ${value.toFixed(2)}`);
}
for (const framework of Object.keys(FLOORS) as Framework[]) {
  const { bare, floor, ours } = FLOORS[framework];
  const mine = ratio(ours, bare);
  const peers = configs.filter((config) => config.framework === framework && ![bare, floor, ours].includes(config.name));
  if (mine === undefined || peers.length === 0) continue;
  const best = peers.map((peer) => ({ peer, value: ratio(peer.name, bare) })).sort((a, b) => (b.value ?? 0) - (a.value ?? 0))[0]!;
  if (best.value === undefined) continue;
  console.log(
    `  ${mine > best.value ? "MET   " : "MISSED"} ${framework}: the package's guard ahead of every peer (${mine.toFixed(2)}× bare against ${best.peer.name}'s ${best.value.toFixed(2)}×)`,
  );
}
// The targets compare with a bare server that gets no cookie; these say what the session check
// itself costs, against the same framework sent the same request (its cookie ignored).
const sameRequest: [string, string, string][] = [
  ["requireSession, memory store", "ours-memory", "express-cookie"],
  ["Fastify plugin's requireSession", "ours-fastify", "fastify-cookie"],
  ["Hono middleware's requireSession", "ours-hono", "hono-cookie"],
];
for (const [label, ours, bare] of sameRequest) {
  const value = ratio(ours, bare);
  if (value !== undefined) console.log(`  (info) ${label} against the same request to the bare framework (${bare}): ${value.toFixed(2)}`);
}
// A guard answers through a promise; in Hono that alone leaves the synchronous response path.
const asyncFloor = ratio("hono-async", "hono");
if (asyncFloor !== undefined) console.log(`  (info) bare Hono with its handler declared async, the floor for any guard that awaits: ${asyncFloor.toFixed(2)}`);
if (timing !== undefined) {
  const r = timing.unknown / timing.wrong;
  console.log(`  ${Math.abs(1 - r) <= 0.1 ? "MET   " : "MISSED"} unknown name vs wrong password login latency within ±10%: ${r.toFixed(3)}`);
}

if (only === undefined || only.includes("attack")) {
  console.log("\nThe login path under attack (default scrypt, flood and admission control)");
  await new Promise<void>((done, fail) => {
    // The clients run here, on the load CPU; the servers it starts go to the server CPU.
    const child = node([resolve(here, "login-attack.ts"), String(rounds)], "1");
    child.stdout!.pipe(process.stdout);
    child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`login-attack.ts exited ${code}`))));
  });
}

if (only === undefined || only.includes("memory")) {
  console.log("\nMemory (retained heap after GC)");
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", resolve(here, "memory.ts")], { cwd: resolve(here, ".."), stdio: "inherit" });
    child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`memory.ts exited ${code}`))));
  });
}

if (only === undefined || only.includes("drupal7")) {
  // Drupal 7's sessions table against express-session + connect-pg-simple (MYSQL_URL, POSTGRES_URL): bench/drupal7.ts.
  const env = { ...process.env, BENCH_DURATION: String(seconds), BENCH_WARMUP: String(warmup), BENCH_ROUNDS: String(rounds) };
  const child = spawn(process.execPath, ["--import", "tsx", resolve(here, "drupal7.ts")], { cwd: resolve(here, ".."), stdio: "inherit", env });
  await new Promise<void>((done, fail) => child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`drupal7.ts exited ${code}`)))));
}

if (only === undefined || only.includes("hostile")) {
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", resolve(here, "hostile.ts")], { cwd: resolve(here, ".."), stdio: "inherit" });
    child.on("exit", (code) => (code === 0 ? done() : fail(new Error(`hostile.ts exited ${code}`))));
  });
}

function markdownTable(data: readonly Record<string, string>[]): string {
  const columns = Object.keys(data[0] ?? {});
  const widths = columns.map((column) => Math.max(column.length, ...data.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(" | ")} |`;
  return [
    line(columns),
    `|${widths.map((width, i) => (i === 0 ? "-".repeat(width + 2) : `${"-".repeat(width + 1)}:`)).join("|")}|`,
    ...data.map((row) => line(columns.map((column) => row[column]!))),
  ].join("\n");
}
