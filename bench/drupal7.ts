/**
 * The benchmark's Drupal 7 rows (`npm run bench`, or alone: `npm run build && tsx bench/drupal7.ts`):
 * a protected GET over drupal7SessionStore on MariaDB and on PostgreSQL (loopback), against
 * express-session with connect-pg-simple on the same PostgreSQL, in one run; and the number of
 * database statements each protected GET sends, counted in the server over the measured window
 * (the goal: one read, no write, while sessions are fresh).
 *
 * Each configuration is its own server process on a throw-away database with Drupal 7's schema
 * (dropped afterwards), logged in once, checked to refuse a request without its session,
 * warmed up, then measured; rounds interleave the configurations, rotating the first.
 *
 * Options: --duration / BENCH_DURATION, --warmup / BENCH_WARMUP, --rounds / BENCH_ROUNDS (as
 * bench/run.ts); MYSQL_URL and POSTGRES_URL name the servers (each row is skipped, with a word,
 * without its URL).
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createMysql, createPostgres, type TestDrupalDb } from "../test/drupal/helpers/drupal-databases.js";
import { drupal } from "./built.js";
import { node, runJson } from "./processes.js";
import { BENCH_NAME, BENCH_PASSWORD } from "./shared.js";

const { values: flags } = parseArgs({ options: { duration: { type: "string" }, warmup: { type: "string" }, rounds: { type: "string" } } });
const seconds = Number(flags.duration ?? process.env.BENCH_DURATION ?? 5);
const warmup = Number(flags.warmup ?? process.env.BENCH_WARMUP ?? 5);
const rounds = Number(flags.rounds ?? process.env.BENCH_ROUNDS ?? 5);
const here = import.meta.dirname;

interface Config {
  readonly name: string;
  readonly label: string;
  readonly server: "drupal7" | "express-session-pg";
  readonly db: "mysql" | "postgres";
  readonly login: { readonly path: string; readonly body: string };
}

const body = JSON.stringify({ username: BENCH_NAME, password: BENCH_PASSWORD });
const ALL: readonly Config[] = [
  {
    name: "drupal7-mariadb",
    label: "requireSession, drupal7SessionStore (MariaDB)",
    server: "drupal7",
    db: "mysql",
    login: { path: "/services/json/user/login", body },
  },
  {
    name: "drupal7-postgres",
    label: "requireSession, drupal7SessionStore (PostgreSQL)",
    server: "drupal7",
    db: "postgres",
    login: { path: "/services/json/user/login", body },
  },
  {
    name: "express-session-pg",
    label: "express-session + connect-pg-simple (PostgreSQL)",
    server: "express-session-pg",
    db: "postgres",
    login: { path: "/login", body },
  },
];
const BASELINE = "express-session-pg";

/** A Drupal 7 database with the bench account (a cheap $S$ hash: the bench measures sessions, not hashing) and a private key. */
async function drupalDatabase(make: (url: string) => Promise<TestDrupalDb>, url: string): Promise<TestDrupalDb> {
  const db = await make(url);
  const hash = await drupal.drupal7Hasher({ countLog2: 7 }).hash(BENCH_PASSWORD);
  await db.run(`INSERT INTO ${db.table("users")} (uid, name, pass, mail, status, created) VALUES (1, ?, ?, ?, 1, 0)`, [BENCH_NAME, hash, "bench@example.com"]);
  await db.run(`INSERT INTO ${db.table("variable")} (name, value) VALUES (?, ?)`, ["drupal_private_key", Buffer.from('s:11:"bench-key-1";')]);
  return db;
}

const databases = new Map<"mysql" | "postgres", TestDrupalDb>();
if (process.env.MYSQL_URL) databases.set("mysql", await drupalDatabase(createMysql, process.env.MYSQL_URL));
if (process.env.POSTGRES_URL) databases.set("postgres", await drupalDatabase(createPostgres, process.env.POSTGRES_URL));
const configs = ALL.filter((config) => {
  if (databases.has(config.db)) return true;
  console.log(
    `SKIPPED ${config.name}: set ${config.db === "mysql" ? "MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/test)" : "POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)"} to measure it`,
  );
  return false;
});

interface Measured {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
  readonly bad: number;
  readonly reads: number;
  readonly writes: number;
}

function ask<T>(child: ReturnType<typeof node>, message: string): Promise<T> {
  return new Promise((answered) => {
    child.once("message", (reply) => answered(reply as T));
    child.send(message);
  });
}

async function measure(config: Config): Promise<Measured> {
  const child = node([resolve(here, "drupal7-server.ts"), config.server, databases.get(config.db)!.url], "0", true);
  try {
    const port = await new Promise<string>((listening, fail) => {
      let out = "";
      child.on("exit", (code) => fail(new Error(`${config.name} exited ${code} before listening`)));
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const found = /PORT (\d+)/.exec(out)?.[1];
        if (found !== undefined) listening(found);
      });
    });
    child.removeAllListeners("exit");
    const url = `http://127.0.0.1:${port}`;
    const login = await fetch(url + config.login.path, { method: "POST", headers: { "Content-Type": "application/json" }, body: config.login.body });
    const cookie = login.headers.getSetCookie()[0]?.split(";")[0];
    if (!login.ok || cookie === undefined) throw new Error(`${config.name}: login answered ${login.status}`);
    if ((await fetch(`${url}/data`, { headers: { cookie } })).status !== 200) throw new Error(`${config.name}: GET /data with the session was refused`);
    if ((await fetch(`${url}/data`)).status !== 401) throw new Error(`${config.name}: GET /data without a session was not refused`);
    const spec = { url: `${url}/data`, connections: 50, headers: { cookie } };
    if (warmup > 0) await runJson([resolve(here, "load.ts"), JSON.stringify({ ...spec, seconds: warmup })], "1");
    const before = await ask<{ reads: number; writes: number; gets: number }>(child, "queries");
    const load = await runJson<{ rps: number; p50: number; p99: number; ok: number; bad: number }>(
      [resolve(here, "load.ts"), JSON.stringify({ ...spec, seconds })],
      "1",
    );
    const after = await ask<{ reads: number; writes: number; gets: number }>(child, "queries");
    // Per GET the server handled in the window (a few answered after the load stopped counting).
    const requests = Math.max(1, after.gets - before.gets);
    return { ...load, reads: (after.reads - before.reads) / requests, writes: (after.writes - before.writes) / requests };
  } finally {
    await new Promise<void>((stopped) => {
      child.once("exit", () => stopped());
      child.kill("SIGTERM");
    });
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

try {
  if (configs.length > 0) {
    console.log(`\nDrupal 7's sessions table: ${rounds} rounds; per run ${warmup} s warm-up + ${seconds} s measured`);
    const perRound: Map<string, Measured>[] = [];
    for (let round = 0; round < rounds; round++) {
      const results = new Map<string, Measured>();
      for (const config of configs.map((_, i) => configs[(i + round) % configs.length]!)) {
        const result = await measure(config);
        results.set(config.name, result);
        console.log(
          `round ${round + 1}/${rounds} ${config.name.padEnd(20)} ${result.rps.toFixed(0).padStart(7)} /s  p99 ${result.p99} ms  queries/GET ${result.reads.toFixed(2)} read + ${result.writes.toFixed(2)} write`,
        );
      }
      perRound.push(results);
    }
    console.log("\n| configuration | req/s | p50 ms | p99 ms | reads / GET | writes / GET | ratio |\n|---|---:|---:|---:|---:|---:|---:|");
    for (const config of configs) {
      const runs = perRound.map((round) => round.get(config.name)!);
      const ratios = perRound.flatMap((round) => (round.has(BASELINE) ? [round.get(config.name)!.rps / round.get(BASELINE)!.rps] : []));
      const ratio = config.name === BASELINE || ratios.length === 0 ? "—" : `${median(ratios).toFixed(2)}× ${BASELINE}`;
      const cell = (pick: (run: Measured) => number, digits: number) => median(runs.map(pick)).toFixed(digits);
      console.log(
        `| ${config.label} | ${cell((r) => r.rps, 0)} | ${cell((r) => r.p50, 1)} | ${cell((r) => r.p99, 1)} | ${cell((r) => r.reads, 2)} | ${cell((r) => r.writes, 2)} | ${ratio} |`,
      );
    }
  }
} finally {
  for (const db of databases.values()) await db.destroy();
}
