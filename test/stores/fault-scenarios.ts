/**
 * The review's fault scripts, long form, for measuring (not a test: `npx tsx test/stores/fault-scenarios.ts <scenario>`).
 * Every server is on loopback and private: a `redis-server` of its own, and throw-away databases;
 * the proxy in front of them injects the faults. Prints one line per second and a summary.
 *
 *   redis-blackhole <node-redis|ioredis>   the example app, 300 GET/s: 5 s normal, a 10 s stall, then a black hole (new connections pass) for 30 s; SIGTERM
 *   soak <node-redis|ioredis> <minutes>    the example app, 100 GET/s and a login a second, a 5 s stall then a black hole every minute; RSS every 10 s
 *   drupal <mysql|postgres>                drupal7SessionStore (pool of 10), 150 GET/s: a 10 s stall then a black hole, a 10 s write lock, 20 s of replies 100 ms late
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import express from "express";
import mysql from "mysql2/promise";
import pg from "pg";
import { memoryUserStore, scryptHasher } from "../../src/index.js";
import { createSessionAuthRouter } from "../../src/entries/express.js";
import { drupal7SessionStore } from "../../src/entries/drupal.js";
import { createMysql, createPostgres, type TestDrupalDb } from "../drupal/helpers/drupal-databases.js";
import { faultProxy } from "../helpers/fault-proxy.js";
import { lockWrites } from "./write-lock.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A private `redis-server` on `port`, without persistence (the test helpers' own imports vitest). */
async function privateRedis(port: number) {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  while (spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" }).stdout.trim() !== "PONG") await sleep(50);
  return {
    port,
    async dispose() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Sends `rate` requests a second until `stop()`, tallying statuses per second sent. */
function load(rate: number, send: () => Promise<number>) {
  const seconds: Array<Record<string, number>> = [];
  const start = Date.now();
  let running = true;
  const pending = new Set<Promise<void>>();
  void (async () => {
    for (let i = 0; running; i++) {
      const second = Math.floor((Date.now() - start) / 1000);
      const tally = (seconds[second] ??= {});
      const one = send()
        .then(
          (status) => String(status),
          () => "error",
        )
        .then((status) => void (tally[status] = (tally[status] ?? 0) + 1));
      pending.add(one);
      void one.finally(() => pending.delete(one));
      const next = start + ((i + 1) * 1000) / rate;
      await sleep(Math.max(0, next - Date.now()));
    }
  })();
  return {
    seconds,
    elapsed: () => (Date.now() - start) / 1000,
    async stop() {
      running = false;
      await Promise.all(pending);
    },
  };
}

function line(second: number, tally: Record<string, number> | undefined, extra = ""): void {
  const parts = Object.entries(tally ?? {})
    .sort()
    .map(([status, n]) => `${status}:${n}`);
  console.log(`t=${String(second).padStart(3)}s ${parts.join(" ").padEnd(28)} ${extra}`);
}

/** The first second from `from` on after which every second is all 200: the recovery, in seconds after `from`. */
function recoveredAt(seconds: Array<Record<string, number>>, from: number): number | undefined {
  for (let s = from; s < seconds.length - 1; s++) {
    if (seconds.slice(s, -1).every((tally) => Object.keys(tally ?? {}).every((status) => status === "200"))) return s - from;
  }
  return undefined;
}

async function startExample(env: Record<string, string>): Promise<{ port: number; child: ChildProcess }> {
  const port = 21690;
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
    env: {
      ...process.env,
      PORT: String(port),
      SESSION_SECRET: "fault-scenarios-secret-0123456789abcdef",
      NODE_ENV: process.env.EXAMPLE_STDERR === undefined ? "test" : "production",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    // Once started, what the example prints (its audit events) goes to a file when asked, never into memory here.
    if (process.env.EXAMPLE_STDERR !== undefined && output.includes("sports API on")) appendFileSync(process.env.EXAMPLE_STDERR, chunk);
    else if (!output.includes("sports API on")) output += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    if (process.env.EXAMPLE_STDERR !== undefined) appendFileSync(process.env.EXAMPLE_STDERR, chunk);
    else output += chunk.toString();
  });
  while (!output.includes("sports API on")) {
    if (child.exitCode !== null) throw new Error(output);
    await sleep(100);
  }
  return { port, child };
}

const rssMb = (pid: number) => Number(spawnSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim()) / 1024;

async function exampleLogin(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/services/json/user/login.json`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: "demo", password: "demo-password" }),
  });
  const { sessid, session_name } = (await res.json()) as { sessid: string; session_name: string };
  return `${session_name}=${sessid}`;
}

const getter = (port: number, cookie: string) => () =>
  fetch(`http://127.0.0.1:${port}/services/json/players`, { headers: { Cookie: cookie }, signal: AbortSignal.timeout(10_000) }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });

async function redisBlackhole(library: string): Promise<void> {
  const server = await privateRedis(21651);
  const proxy = await faultProxy(server.port);
  const example = await startExample({ SESSION_STORE: "redis", REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_CLIENT: library });
  try {
    const cookie = await exampleLogin(example.port);
    const traffic = load(300, getter(example.port, cookie));
    const rss: number[] = [];
    for (let s = 0; s < 45; s++) {
      if (s === 5) proxy.stall();
      if (s === 15) proxy.blackHole();
      await sleep(1000);
      rss[s] = rssMb(example.child.pid!);
      line(s, traffic.seconds[s], `rss ${rss[s]!.toFixed(0)} MB${s === 5 ? "  stall" : s === 15 ? "  black hole" : ""}`);
    }
    await traffic.stop();
    console.log("final tallies by second sent:");
    traffic.seconds.forEach((tally, second) => line(second, tally));
    console.log(
      `${library}: recovered ${recoveredAt(traffic.seconds, 15)} s after the black hole began (new connections passing); RSS ${rss[4]!.toFixed(0)} → max ${Math.max(...rss).toFixed(0)} → ${rss.at(-1)!.toFixed(0)} MB`,
    );
    proxy.stall();
    const asked = Date.now();
    example.child.kill("SIGTERM");
    await new Promise((resolve) => example.child.once("exit", resolve));
    console.log(`${library}: exited ${Date.now() - asked} ms after SIGTERM, its store stalled`);
  } finally {
    example.child.kill("SIGKILL");
    await proxy.close();
    await server.dispose();
  }
}

async function soak(library: string, minutes: number): Promise<void> {
  const server = await privateRedis(21652);
  const proxy = await faultProxy(server.port);
  const example = await startExample({ SESSION_STORE: "redis", REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_CLIENT: library, TRUST_PROXY: "loopback" });
  try {
    const cookie = await exampleLogin(example.port);
    const traffic = load(100, getter(example.port, cookie));
    let logins = 0;
    const loginLoop = load(1, async () => {
      logins += 1;
      const res = await fetch(`http://127.0.0.1:${example.port}/services/json/user/login.json`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": `198.51.100.${logins % 200}` },
        // Another account than the GETs': the per-user cap would end their session.
        body: JSON.stringify({ username: "admin", password: logins % 3 === 0 ? "wrong" : "admin-password" }),
      });
      await res.arrayBuffer();
      return res.status;
    });
    const samples: number[] = [];
    for (let s = 0; s < minutes * 60; s++) {
      if (s % 60 === 30) proxy.stall();
      if (s % 60 === 35) proxy.blackHole();
      await sleep(1000);
      if (s % 10 === 9) {
        samples.push(rssMb(example.child.pid!));
        line(s, traffic.seconds[s], `rss ${samples.at(-1)!.toFixed(0)} MB, logins ${JSON.stringify(loginLoop.seconds[s] ?? {})}`);
      }
    }
    await Promise.all([traffic.stop(), loginLoop.stop()]);
    console.log("final tallies by second sent (those with anything but 200):");
    traffic.seconds.forEach((tally, second) => Object.keys(tally ?? {}).some((status) => status !== "200") && line(second, tally));
    const first = samples.slice(0, 6);
    const last = samples.slice(-6);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    console.log(
      `${library} soak, ${minutes} min: RSS first minute ${mean(first).toFixed(0)} MB, last minute ${mean(last).toFixed(0)} MB, max ${Math.max(...samples).toFixed(0)} MB`,
    );
  } finally {
    example.child.kill("SIGKILL");
    await proxy.close();
    await server.dispose();
  }
}

async function drupal(dialect: "mysql" | "postgres"): Promise<void> {
  const url = dialect === "mysql" ? process.env.MYSQL_URL! : process.env.POSTGRES_URL!;
  const db: TestDrupalDb = dialect === "mysql" ? await createMysql(url) : await createPostgres(url);
  const proxy = await faultProxy(Number(new URL(url).port || (dialect === "mysql" ? 3306 : 5432)));
  const through = new URL(db.url);
  through.host = `127.0.0.1:${proxy.port}`;
  const pool =
    dialect === "mysql"
      ? mysql.createPool({ uri: through.href, connectionLimit: 10, connectTimeout: 1000, enableKeepAlive: true, keepAliveInitialDelay: 1000 })
      : new pg.Pool({ connectionString: through.href, max: 10, connectionTimeoutMillis: 1000, keepAlive: true, keepAliveInitialDelayMillis: 1000 });
  if (pool instanceof pg.Pool) pool.on("error", () => undefined);
  const hasher = scryptHasher({ logN: 10, r: 8, p: 1 });
  const auth = createSessionAuthRouter({
    // The logins go to another account than the guarded GETs', whose session the per-user cap would end.
    userStore: memoryUserStore(
      [
        { uid: "14", name: "demo", password: "demo-password", mail: "demo@example.com" },
        { uid: "15", name: "other", password: "other-password", mail: "other@example.com" },
      ],
      { hasher },
    ),
    sessionStore: drupal7SessionStore({ pool, scheme: "https", hashedSids: true, joinUsers: false }),
    secret: "fault-scenarios-secret-0123456789abcdef",
    hasher,
    onEvent: () => undefined,
  });
  const app = express();
  app.use(auth);
  app.get("/services/json/players", auth.requireSession(), (_req, res) => void res.json(["Ana"]));
  app.use(auth.errorHandler());
  const server = createServer(app).listen(21691, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const cookie = await exampleLogin(21691);
    const rowsOf = async () => Number((await db.run<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${db.table("sessions")}`))[0]!.n);
    const traffic = load(150, getter(21691, cookie));
    const loginLoop = load(2, async () => {
      const res = await fetch("http://127.0.0.1:21691/services/json/user/login.json", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "other", password: "other-password" }),
      });
      await res.arrayBuffer();
      return res.status;
    });
    let unlock: (() => Promise<void>) | undefined;
    for (let s = 0; s < 75; s++) {
      if (s === 5) proxy.stall();
      if (s === 15) proxy.blackHole();
      if (s === 30) unlock = await lockWrites(db);
      if (s === 40) await unlock!();
      if (s === 45) proxy.delay(100);
      if (s === 65) proxy.pass();
      await sleep(1000);
      const note = { 5: "stall", 15: "black hole", 30: "write lock", 40: "unlocked", 45: "replies 100 ms late", 65: "normal" }[s] ?? "";
      line(s, traffic.seconds[s], `logins ${JSON.stringify(loginLoop.seconds[s] ?? {})} ${note}`);
    }
    await Promise.all([traffic.stop(), loginLoop.stop()]);
    const lockSeconds = traffic.seconds.slice(31, 40);
    const delayed = traffic.seconds.slice(47, 65);
    const ok = (tallies: Array<Record<string, number> | undefined>) => tallies.reduce((sum, tally) => sum + (tally?.["200"] ?? 0), 0);
    const okLogins = loginLoop.seconds.reduce((sum, tally) => sum + (tally?.["200"] ?? 0), 0);
    console.log("final tallies by second sent:");
    traffic.seconds.forEach((tally, second) => line(second, tally, `logins ${JSON.stringify(loginLoop.seconds[second] ?? {})}`));
    await sleep(3000);
    console.log(`${dialect}: recovered ${recoveredAt(traffic.seconds.slice(0, 30), 15)} s after the black hole began`);
    console.log(
      `${dialect}: during the write lock ${ok(lockSeconds)} of ${lockSeconds.reduce((sum, tally) => sum + Object.values(tally ?? {}).reduce((a, b) => a + b, 0), 0)} GETs 200`,
    );
    console.log(`${dialect}: replies 100 ms late, 150 GET/s asked: ${(ok(delayed) / delayed.length).toFixed(0)} GET/s 200 of at most 100/s the pool can serve`);
    console.log(`${dialect}: ${okLogins} logins of "other" answered 200 (the cap keeps 20), 1 of "demo"; rows in sessions: ${await rowsOf()}`);
  } finally {
    server.close();
    await proxy.close();
    await (pool as { end(): Promise<void> }).end().catch(() => undefined);
    await db.destroy();
  }
}

const [scenario, arg, extra] = process.argv.slice(2);
if (scenario === "redis-blackhole") await redisBlackhole(arg ?? "node-redis");
else if (scenario === "soak") await soak(arg ?? "node-redis", Number(extra ?? 10));
else if (scenario === "drupal") await drupal((arg ?? "mysql") as "mysql" | "postgres");
else console.error("usage: fault-scenarios.ts redis-blackhole|soak|drupal …");
process.exit(0);
