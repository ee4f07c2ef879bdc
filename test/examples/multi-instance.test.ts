import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/example-server.js";

const REDIS_URL = process.env.REDIS_URL;
if (REDIS_URL === undefined) console.warn("REDIS_URL not set: skipping the two-instance example test (set REDIS_URL=redis://127.0.0.1:6379 to run it)");

/** Starts `examples/sports-api/server.ts` as its own process and waits until it answers. */
async function startInstance(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
    env: { ...process.env, ...env, PORT: String(port), NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/services/session/token`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`instance did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, output: () => output };
}

// Both instances sit behind one host name, as behind a load balancer: Drupal's cookie name follows it.
const HOST = "sports.example.test";

/** One request with a chosen Host header (fetch drops it: Host is a forbidden header name there). */
function call(url: string, method: string, path: string, init: { cookie?: string; token?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { Host: HOST };
  if (init.cookie !== undefined) headers.Cookie = init.cookie;
  if (init.token !== undefined) headers["X-CSRF-Token"] = init.token;
  const body = init.form === undefined ? "" : new URLSearchParams(init.form).toString();
  if (init.form !== undefined) headers["Content-Type"] = "application/x-www-form-urlencoded";
  headers["Content-Length"] = String(Buffer.byteLength(body));
  const { port } = new URL(url);
  return new Promise<{ status: number; text: string; json: <T>() => T }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, json: <T>() => JSON.parse(text) as T }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const post = (url: string, path: string, init?: Parameters<typeof call>[3]) => call(url, "POST", path, init);

describe.skipIf(REDIS_URL === undefined)("two instances of the example app sharing one Redis", () => {
  let a: Awaited<ReturnType<typeof startInstance>>;
  let b: Awaited<ReturnType<typeof startInstance>>;

  beforeAll(async () => {
    const env = {
      SESSION_STORE: "redis",
      REDIS_URL: REDIS_URL!,
      REDIS_PREFIX: `multi-${randomBytes(4).toString("hex")}:`,
      SESSION_SECRET: "multi-instance-secret-0123456789-abcdef",
    };
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
  }, 60_000);

  afterAll(() => {
    a?.child.kill("SIGTERM");
    b?.child.kill("SIGTERM");
  });

  it("logs in on A, connects on B, logs out on B, and then A treats the cookie as anonymous", async () => {
    const login = await post(a.url, "/services/json/user/login.json", { form: { username: "demo", password: "demo-password" } });
    expect(login.status, a.output()).toBe(200);
    const { sessid, session_name, token } = login.json<{ sessid: string; session_name: string; token: string }>();
    const cookie = `${session_name}=${sessid}`;

    const connect = await post(b.url, "/services/json/system/connect.json", { cookie, token });
    expect(connect.json<{ user: { name: string } }>().user.name).toBe("demo");

    const logout = await post(b.url, "/services/json/user/logout.json", { cookie, token });
    expect(logout.text).toBe("[true]");

    const after = await post(a.url, "/services/json/system/connect.json", { cookie, token });
    expect(after.json<{ user: { uid: unknown } }>().user.uid).toBe(0);
    const players = await call(a.url, "GET", "/services/json/players", { cookie });
    expect(players.status).toBe(401);
  });

  it("throttles logins on B after failures recorded on A", async () => {
    for (let i = 0; i < 5; i += 1) {
      const res = await post(a.url, "/services/json/user/login", { form: { username: "admin", password: "wrong" } });
      expect(res.status).toBe(401);
    }
    const onB = await post(b.url, "/services/json/user/login", { form: { username: "admin", password: "admin-password" } });
    expect(onB.status).toBe(406);
    expect(onB.text).toBe('["Account is temporarily blocked."]');
  }, 30_000);
});
