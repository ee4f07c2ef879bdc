/**
 * Two configurations measured at the same time: both servers on the server CPU, each loaded by a
 * generator of its own on the load CPU, for the same window. Whatever else the machine runs then
 * slows both alike, so the ratio of their CPU per request holds still where rates measured one
 * after the other do not. `npm run build && tsx bench/pair.ts <a> <b> [rounds]`, e.g.
 * `tsx bench/pair.ts express-floor ours-memory` (or a peer against a binding: `tsx bench/pair.ts
 * express-session-memory ours-memory`): prints each round's server CPU per request and
 * `a ÷ b` (the share of b's cost that a's is: 0.95 means b costs 1/0.95 of a).
 */
import { resolve } from "node:path";
import { runJson, startServer } from "./processes.js";
import { BENCH_NAME, BENCH_PASSWORD, GUARDED_PATH } from "./shared.js";

const [a, b, roundsArg] = process.argv.slice(2);
if (a === undefined || b === undefined) throw new Error("usage: tsx bench/pair.ts <configuration> <configuration> [rounds]");
const rounds = Number(roundsArg ?? 3);
const seconds = Number(process.env.BENCH_DURATION ?? 6);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);

/** The peers' apps (bench/peer-apps.ts): each logs in at `/login` and guards `/data`. */
const PEERS = ["express-session-memory", "iron-session", "fastify-session", "fastify-secure-session", "hono-sessions"];

/** Where each kind of server logs in and what it guards: the floors and the README-mounted bindings serve the quick starts' path. */
function routes(config: string): { login: string; path: string } {
  if (config.endsWith("-floor")) return { login: "/login", path: GUARDED_PATH };
  if (["ours-memory", "ours-fastify", "ours-hono", "ours-fetch"].includes(config)) return { login: "/services/json/user/login", path: GUARDED_PATH };
  if (PEERS.includes(config)) return { login: "/login", path: "/data" };
  throw new Error(`${config}: pair.ts compares the floors, the README-mounted bindings and the peers (${PEERS.join(", ")})`);
}

async function logIn(url: string, path: string): Promise<string> {
  const body = JSON.stringify({ username: BENCH_NAME, password: BENCH_PASSWORD });
  const response = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body });
  await response.arrayBuffer();
  const cookie = response.headers.getSetCookie()[0];
  if (!response.ok || cookie === undefined) throw new Error(`login to ${url + path} failed: ${response.status}`);
  return cookie.split(";")[0]!;
}

const load = (url: string, cookie: string, duration: number) =>
  runJson<{ rps: number; ok: number; bad: number }>(
    [resolve(import.meta.dirname, "load.ts"), JSON.stringify({ url, seconds: duration, connections: 25, headers: { cookie } })],
    "1",
  );

const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  const servers = [await startServer(a), await startServer(b)];
  try {
    const targets = await Promise.all(
      [a, b].map(async (config, i) => {
        const { login, path } = routes(config);
        return { url: servers[i]!.url + path, cookie: await logIn(servers[i]!.url, login) };
      }),
    );
    await Promise.all(targets.map((target) => load(target.url, target.cookie, warmup)));
    const before = await Promise.all(servers.map((server) => server.cpu()));
    const results = await Promise.all(targets.map((target) => load(target.url, target.cookie, seconds)));
    const after = await Promise.all(servers.map((server) => server.cpu()));
    const [ua, ub] = results.map((result, i) => (after[i]! - before[i]!) / Math.max(1, result.ok + result.bad)) as [number, number];
    ratios.push(ua / ub);
    console.log(
      `round ${round + 1}/${rounds}: ${a} ${ua.toFixed(1)} µs/req (${results[0]!.rps.toFixed(0)}/s), ${b} ${ub.toFixed(1)} µs/req (${results[1]!.rps.toFixed(0)}/s): ${a} ÷ ${b} ${(ua / ub).toFixed(2)}`,
    );
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}
const sorted = [...ratios].sort((x, y) => x - y);
console.log(`median ${a} ÷ ${b} (server CPU per request, measured side by side): ${sorted[sorted.length >> 1]!.toFixed(2)}`);
