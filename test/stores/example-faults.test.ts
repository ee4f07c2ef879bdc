/**
 * The example app (`npm start`) on Redis, node-redis and ioredis, behind a fault-injecting proxy in
 * front of a private `redis-server`: a stall then a black hole, a lockout left behind, and SIGTERM
 * while the store hangs. The shared Redis is never touched.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort as anyPort } from "../helpers/example-server.js";
import { faultProxy, type FaultProxy } from "../helpers/fault-proxy.js";
import { freePort, hasBinary, privateRedis, type PrivateRedis } from "./redis-helpers.js";

const canRun = hasBinary("redis-server") && hasBinary("redis-cli");
if (!canRun) it.skip("redis-server/redis-cli not on PATH: the example's fault tests are skipped", () => {});

interface Example {
  readonly port: number;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

async function startExample(env: Record<string, string>): Promise<Example> {
  const port = await anyPort();
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
    env: { ...process.env, PORT: String(port), SESSION_SECRET: "example-faults-test-secret-0123456789", TRUST_PROXY: "loopback", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!output.includes("sports API on")) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, child, exited };
}

async function call(port: number, path: string, init: RequestInit & { from?: string } = {}): Promise<{ status: number; body: string; headers: Headers }> {
  const headers = new Headers(init.headers);
  if (init.from !== undefined) headers.set("X-Forwarded-For", init.from);
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

function loginCall(port: number, from: string, password = "demo-password") {
  return call(port, "/services/json/user/login.json", {
    method: "POST",
    from,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: "demo", password }),
  });
}

describe.skipIf(!canRun)("the example app on Redis behind a faulty network", () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = privateRedis(await freePort(21640));
    await server.start();
  });
  afterAll(async () => {
    await server.dispose();
  });

  for (const library of ["node-redis", "ioredis"]) {
    describe(library, () => {
      let proxy: FaultProxy;
      let example: Example;
      beforeAll(async () => {
        proxy = await faultProxy(server.port);
        example = await startExample({
          SESSION_STORE: "redis",
          REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
          REDIS_CLIENT: library,
          REDIS_PREFIX: `faults-${library}:`,
        });
      }, 60_000);
      afterAll(async () => {
        example.child.kill("SIGKILL");
        await proxy.close();
      });

      it("after a 3 s stall and a black hole: back within 2 s, and no lockout left behind by the logins the stall cut off", async () => {
        const login = await loginCall(example.port, "198.51.100.20");
        expect(login.status).toBe(200);
        const { sessid, session_name } = JSON.parse(login.body) as { sessid: string; session_name: string };
        const players = () => call(example.port, "/services/json/players", { headers: { Cookie: `${session_name}=${sessid}` } });

        proxy.stall();
        // Logins from one address while the store stalls: each is answered 503, none may count afterwards.
        const cut = await Promise.all(Array.from({ length: 12 }, () => loginCall(example.port, "198.51.100.21", "wrong")));
        await new Promise((resolve) => setTimeout(resolve, 1500));
        proxy.blackHole();
        const start = Date.now();
        let last503 = 0;
        const seen = new Set<number>();
        while (Date.now() - start < 4000) {
          const at = Date.now() - start;
          const { status } = await players();
          seen.add(status);
          if (status !== 200) last503 = at;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        console.log(`example on ${library}: 3 s stall, then a black hole: last 503 ${last503} ms after new connections pass`);
        expect(cut.every((res) => res.status === 503)).toBe(true);
        expect([...seen].every((status) => status === 200 || status === 503)).toBe(true);
        expect(last503).toBeLessThan(2000);
        // The address the stall cut off logs in with the right password: nothing it sent was left counted.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect((await loginCall(example.port, "198.51.100.21")).status).toBe(200);
        const count = spawnSync("redis-cli", ["-p", String(server.port), "GET", `faults-${library}:ip:198.51.100.21`], { encoding: "utf8" }).stdout.trim();
        expect(Number(count || 0)).toBe(0);
      });

      it("through CLIENT PAUSE WRITE: reads go on, logins are 503, and none of their counts is left once writes resume", async () => {
        const login = await loginCall(example.port, "198.51.100.30");
        const { sessid, session_name } = JSON.parse(login.body) as { sessid: string; session_name: string };
        const players = () => call(example.port, "/services/json/players", { headers: { Cookie: `${session_name}=${sessid}` } });
        const cli = (...args: string[]) => spawnSync("redis-cli", ["-p", String(server.port), ...args], { encoding: "utf8" }).stdout.trim();
        expect(cli("CLIENT", "PAUSE", "3000", "WRITE")).toBe("OK");
        const [reads, logins] = await Promise.all([
          Promise.all(Array.from({ length: 10 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 200)).then(players))),
          Promise.all(Array.from({ length: 8 }, () => loginCall(example.port, "198.51.100.31", "wrong"))),
        ]);
        console.log(
          `example on ${library}: during CLIENT PAUSE WRITE: reads ${reads.map((res) => res.status).join(" ")}; logins ${logins.map((res) => res.status).join(" ")}`,
        );
        expect(reads.every((res) => res.status === 200)).toBe(true);
        expect(logins.every((res) => res.status === 503)).toBe(true);
        // Once writes resume and the give-backs are through, the address holds no count and logs in.
        await new Promise((resolve) => setTimeout(resolve, 3500));
        expect(Number(cli("GET", `faults-${library}:ip:198.51.100.31`) || 0)).toBe(0);
        expect((await loginCall(example.port, "198.51.100.31")).status).toBe(200);
      });

      it("exits within a few seconds of SIGTERM while its store hangs", async () => {
        proxy.stall();
        const hanging = call(example.port, "/services/json/players", { headers: { Cookie: "SESSx=y" } }).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const asked = Date.now();
        example.child.kill("SIGTERM");
        const code = await example.exited;
        const took = Date.now() - asked;
        console.log(`example on ${library}: exited ${took} ms after SIGTERM with its store stalled`);
        expect(code).toBe(0);
        expect(took).toBeLessThan(5000);
        await hanging;
        proxy.pass();
      });
    });
  }
});
