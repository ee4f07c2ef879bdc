/**
 * The login path under attack, with the default scrypt hasher, flood control and admission
 * control, as an app runs them: `node --import tsx bench/login-attack.ts [rounds]` (`npm run
 * bench` runs it as `attack`). Distinct 127.0.0.x source addresses stand in for distinct clients.
 *
 * - unloaded: a real login with nothing else going on (median of a few, each round);
 * - one address: a real login from another address while 100 bogus logins from one address
 *   arrive at once; its latency against the unloaded one, and the slowest answer of the burst;
 * - 60 addresses: the same with 120 bogus logins, two from each of 60 addresses. Here the
 *   server is out of checks for everyone, so the real login may be told to come back
 *   (503 + Retry-After): its first answer, and the time until it is in when it retries as told;
 * - 240 addresses, with device cookies on: a returning user, who logged in from its device
 *   before the attack, logs in with its device cookie during 480 bogus logins, two from each
 *   of 240 addresses; its time against the unloaded login (target: within 4×);
 * - failed-login timing on a site half-way through a Drupal 7 migration: an unknown name, an
 *   account still on `$S$D` and one already on scrypt, alternated; their medians and ratios.
 */
import { request } from "node:http";
import { startServer, type BenchServer } from "./processes.js";
import { BENCH_NAME, BENCH_PASSWORD, LEGACY_NAME } from "./shared.js";

const rounds = Number(process.argv[2] ?? process.env.BENCH_ROUNDS ?? 3);
const LOGIN = "/services/json/user/login";

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly retryAfter: number | undefined;
  readonly setCookie: readonly string[];
}

/** One JSON login from `from`, on a connection of its own, with a `Cookie` header if given. */
function post(server: BenchServer, body: unknown, from: string, cookie?: string): Promise<Answer> {
  const payload = Buffer.from(JSON.stringify(body));
  const started = performance.now();
  const headers: Record<string, string> = { "Content-Type": "application/json", "Content-Length": String(payload.length) };
  if (cookie !== undefined) headers.Cookie = cookie;
  return new Promise((done, fail) => {
    const req = request({ host: "127.0.0.1", port: server.port, path: LOGIN, method: "POST", localAddress: from, agent: false, headers }, (res) => {
      res.resume();
      res.on("end", () => {
        const retryAfter = res.headers["retry-after"];
        done({
          status: res.statusCode ?? 0,
          ms: performance.now() - started,
          retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
          setCookie: res.headers["set-cookie"] ?? [],
        });
      });
    });
    req.on("error", fail);
    req.end(payload);
  });
}

const real = { username: BENCH_NAME, password: BENCH_PASSWORD };
const bogus = (i: number) => ({ username: `bot-${i}`, password: `guess-${i}-${Math.random()}` });
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** A real login that retries as a well-behaved client does when told to wait: the time until it is in. */
async function persistent(server: BenchServer, from: string, cookie?: string): Promise<{ first: Answer; inAfterMs: number }> {
  const started = performance.now();
  let answer = await post(server, real, from, cookie);
  const first = answer;
  while (answer.status === 503 && performance.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, (answer.retryAfter ?? 1) * 1000));
    answer = await post(server, real, from, cookie);
  }
  if (answer.status !== 200) throw new Error(`the real login ended with ${answer.status}`);
  return { first, inAfterMs: performance.now() - started };
}

async function unloaded(server: BenchServer): Promise<number> {
  await post(server, real, "127.0.0.50");
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push((await post(server, real, "127.0.0.50")).ms);
  return median(times);
}

interface BurstResult {
  readonly real: { first: Answer; inAfterMs: number };
  readonly slowestMs: number;
  readonly statuses: Record<number, number>;
}

async function underBurst(server: BenchServer, sources: readonly string[], perSource: number, realFrom: string, cookie?: string): Promise<BurstResult> {
  const burst = sources.flatMap((from, s) => Array.from({ length: perSource }, (_, i) => post(server, bogus(s * perSource + i), from)));
  // Let the burst arrive and queue first, as an attack already under way.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const realLogin = await persistent(server, realFrom, cookie);
  const answers = await Promise.all(burst);
  const statuses: Record<number, number> = {};
  for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  return { real: realLogin, slowestMs: Math.max(...answers.map((answer) => answer.ms)), statuses };
}

/** A login before the attack, from the user's own device: the device cookie it was given, as its `Cookie` header. */
async function deviceCookieOf(server: BenchServer, from: string): Promise<string> {
  const answer = await post(server, real, from);
  const header = answer.setCookie.find((value) => value.startsWith("ssa_device="));
  if (answer.status !== 200 || header === undefined) throw new Error(`no device cookie from a login that answered ${answer.status}`);
  return header.slice(0, header.indexOf(";"));
}

async function fresh<T>(use: (server: BenchServer) => Promise<T>, config = "ours-attack"): Promise<T> {
  const server = await startServer(config);
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

const oneAddress = Array.from({ length: 1 }, () => "127.0.0.2");
const sixtyAddresses = Array.from({ length: 60 }, (_, i) => `127.0.1.${i + 1}`);
const manyAddresses = Array.from({ length: 240 }, (_, i) => `127.0.${2 + (i >> 7)}.${(i & 127) + 1}`);
const measured: { base: number; one: BurstResult; many: BurstResult; device: BurstResult }[] = [];
for (let round = 0; round < rounds; round++) {
  const base = await fresh(unloaded);
  const one = await fresh((server) => underBurst(server, oneAddress, 100, "127.0.0.3"));
  const many = await fresh((server) => underBurst(server, sixtyAddresses, 2, "127.0.0.4"));
  const device = await fresh(
    async (server) => underBurst(server, manyAddresses, 2, "127.0.0.5", await deviceCookieOf(server, "127.0.0.5")),
    "ours-attack-devices",
  );
  measured.push({ base, one, many, device });
  const show = (result: BurstResult) =>
    `real login ${result.real.first.status} in ${result.real.first.ms.toFixed(0)} ms (in after ${result.real.inAfterMs.toFixed(0)} ms), slowest burst answer ${(result.slowestMs / 1000).toFixed(1)} s, burst ${JSON.stringify(result.statuses)}`;
  console.log(`round ${round + 1}/${rounds} unloaded login ${base.toFixed(0)} ms`);
  console.log(`  one address, 100 at once:  ${show(one)}`);
  console.log(`  60 addresses, 120 at once: ${show(many)}`);
  console.log(`  240 addresses, 480 at once, a returning user with its device cookie: ${show(device)}`);
}

const oneRatio = median(measured.map(({ base, one }) => one.real.inAfterMs / base));
const manyRatio = median(measured.map(({ base, many }) => many.real.inAfterMs / base));
const deviceRatio = median(measured.map(({ base, device }) => device.real.inAfterMs / base));
const slowest = Math.max(...measured.flatMap(({ one, many, device }) => [one.slowestMs, many.slowestMs, device.slowestMs]));
console.log(`\nreal login (medians over ${rounds} rounds, each against the unloaded login of its round):`);
console.log(
  `  during a 100-request burst from one address:   in after ${median(measured.map(({ one }) => one.real.inAfterMs)).toFixed(0)} ms = ${oneRatio.toFixed(2)}× unloaded (${median(measured.map(({ base }) => base)).toFixed(0)} ms)`,
);
console.log(
  `  during a 120-request burst from 60 addresses:  first answer ${median(measured.map(({ many }) => many.real.first.ms)).toFixed(0)} ms (${[...new Set(measured.map(({ many }) => many.real.first.status))].join("/")}), in after ${median(measured.map(({ many }) => many.real.inAfterMs)).toFixed(0)} ms = ${manyRatio.toFixed(2)}× unloaded`,
);
console.log(
  `  during a 480-request burst from 240 addresses, with a device cookie: first answer ${median(measured.map(({ device }) => device.real.first.ms)).toFixed(0)} ms (${[...new Set(measured.map(({ device }) => device.real.first.status))].join("/")}), in after ${median(measured.map(({ device }) => device.real.inAfterMs)).toFixed(0)} ms = ${deviceRatio.toFixed(2)}× unloaded`,
);
console.log(`  slowest answer to any burst request: ${(slowest / 1000).toFixed(1)} s`);

/** Sequential failed logins, unknown / `$S$D` / scrypt in turn, after a warm-up that meets every hash class. */
async function migrationTiming(samples: number): Promise<Record<"unknown" | "legacy" | "current", number>> {
  const server = await startServer("ours-timing-upgrade");
  try {
    const names = { unknown: "nobody", legacy: LEGACY_NAME, current: BENCH_NAME } as const;
    const times: Record<keyof typeof names, number[]> = { unknown: [], legacy: [], current: [] };
    for (let i = 0; i < samples + 2; i++) {
      for (const kind of Object.keys(names) as (keyof typeof names)[]) {
        const answer = await post(server, { username: kind === "unknown" ? `${names.unknown}-${i}` : names[kind], password: "not-the-password" }, "127.0.0.60");
        if (answer.status !== 401) throw new Error(`a failed login answered ${answer.status}`);
        if (i >= 2) times[kind].push(answer.ms);
      }
    }
    return { unknown: median(times.unknown), legacy: median(times.legacy), current: median(times.current) };
  } finally {
    await server.stop();
  }
}

const timing = await migrationTiming(Math.max(10, rounds * 5));
console.log(`\nfailed login during a Drupal 7 migration (upgradingHasher, sequential, medians):`);
console.log(
  `  unknown name ${timing.unknown.toFixed(0)} ms, account on $S$D ${timing.legacy.toFixed(0)} ms, account on scrypt ${timing.current.toFixed(0)} ms`,
);
const within = (value: number) => value >= 0.8 && value <= 1.25;
const unknownRatio = timing.unknown / timing.current;
const legacyRatio = timing.legacy / timing.current;

console.log("\nTargets");
console.log(`  ${oneRatio <= 4 ? "MET   " : "MISSED"} a real login during a one-address burst within 4× an unloaded login: ${oneRatio.toFixed(2)}`);
console.log(
  `  ${deviceRatio <= 4 ? "MET   " : "MISSED"} a returning user with its device cookie during a 240-address burst within 4× an unloaded login: ${deviceRatio.toFixed(2)}`,
);
console.log(`  ${slowest <= 15_000 ? "MET   " : "MISSED"} every request of any burst answered within 15 s: ${(slowest / 1000).toFixed(1)} s`);
console.log(`  ${within(unknownRatio) ? "MET   " : "MISSED"} failed login, unknown name / scrypt account within 0.8–1.25: ${unknownRatio.toFixed(3)}`);
console.log(`  ${within(legacyRatio) ? "MET   " : "MISSED"} failed login, $S$D account / scrypt account within 0.8–1.25: ${legacyRatio.toFixed(3)}`);
