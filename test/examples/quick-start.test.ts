/**
 * The quick starts, exactly as printed: the README's shared `auth.ts` with each of its servers
 * (Express, Fastify, Hono, fetch on node:http) and docs/express.md's CommonJS `server.js`. Each
 * `<!-- quick-start: file -->` server is written to a fresh app directory (the TypeScript ones
 * beside `auth.ts`), the TypeScript ones type-checked with `tsc` (strict, `moduleResolution:
 * node16`) and run with tsx, the CommonJS one run with plain `node`, each as its own process,
 * then driven over HTTP. The package is built as it is published (the
 * `files` of package.json, `dist` from tsup) and installed in the app's node_modules, so its
 * `exports` map, its `.d.ts` and `.cjs` files are what the apps resolve.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/example-server.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "node_modules", ".bin");

/** The quick-start blocks of the README and the framework pages, by file name; each name printed once. */
function quickStartBlocks(): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const page of ["README.md", "docs/express.md", "docs/fastify.md", "docs/hono.md", "docs/fetch.md"]) {
    const lines = readFileSync(join(ROOT, page), "utf8").split("\n");
    lines.forEach((line, index) => {
      const match = /^<!-- quick-start: (\S+) -->$/.exec(line);
      if (match === null) return;
      expect(blocks.has(match[1]!), `${match[1]} is printed twice`).toBe(false);
      const end = lines.indexOf("```", index + 2);
      blocks.set(match[1]!, `${lines.slice(index + 2, end).join("\n")}\n`);
    });
  }
  return blocks;
}

const OUTPUT = join(ROOT, "test-output", `quick-start-${process.pid}`);

/**
 * The package as npm would publish it: package.json's `files` copied and `dist` built by tsup
 * (inside the checkout, so that its own dependencies resolve from the checkout's node_modules).
 */
function publishedPackage(): string {
  const dir = join(OUTPUT, "package");
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] };
  for (const entry of manifest.files.filter((entry) => entry !== "dist")) {
    // A `dir/*.ext` entry: the files of that directory with that ending.
    const glob = /^([\w-]+)\/\*(\.\w+)$/.exec(entry);
    if (glob === null) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
    else
      for (const name of readdirSync(join(ROOT, glob[1]!)).filter((name) => name.endsWith(glob[2]!)))
        cpSync(join(ROOT, glob[1]!, name), join(dir, glob[1]!, name));
  }
  cpSync(join(ROOT, "package.json"), join(dir, "package.json"));
  const build = spawnSync(join(BIN, "tsup"), ["--out-dir", join(dir, "dist"), "--silent"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`tsup failed:\n${build.stdout}${build.stderr}`);
  return dir;
}

/** A fresh app directory with the published package in its node_modules (express and tsx resolve from the checkout's). */
function appDir(name: string, packageJson: object, file: string, code: string, pkg: string): string {
  const dir = join(OUTPUT, name);
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(pkg, join(dir, "node_modules", "services-session-auth"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "node16",
        moduleResolution: "node16",
        target: "es2022",
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      },
      files: [file],
    }),
  );
  writeFileSync(join(dir, file), code);
  // The TypeScript servers import the options from the README's auth.ts, as printed.
  if (file.endsWith(".ts")) writeFileSync(join(dir, "auth.ts"), blocks.get("auth.ts")!);
  return dir;
}

/** How the README runs each file: TypeScript with tsx, JavaScript with plain node. */
function runner(file: string): [string, string[]] {
  return file.endsWith(".ts") ? [join(BIN, "tsx"), [file]] : [process.execPath, [file]];
}

/** Starts `file` and resolves once it says it listens; fails with its output if it exits first. */
async function start(dir: string, file: string, env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  const [command, args] = runner(file);
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, NODE_ENV: "production", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${file} did not start in 60 s:\n${output}`)), 60_000);
    child.stdout!.on("data", () => {
      if (output.includes("Services endpoint on http://localhost:")) {
        clearTimeout(timer);
        done();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`${file} exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output };
}

async function json(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.text()) || "", headers: res.headers };
}

const blocks = quickStartBlocks();
const children: ChildProcess[] = [];
let pkg = "";
beforeAll(() => {
  pkg = publishedPackage();
}, 120_000);
afterAll(() => {
  for (const child of children) child.kill();
  rmSync(OUTPUT, { recursive: true, force: true });
});

describe.each([
  { file: "server.ts", packageJson: { type: "module" } },
  { file: "server.js", packageJson: {} },
  { file: "fastify.ts", packageJson: { type: "module" } },
  { file: "hono.ts", packageJson: { type: "module" } },
  { file: "fetch.ts", packageJson: { type: "module" } },
])("README quick start: $file", ({ file, packageJson }) => {
  let dir = "";
  beforeAll(() => {
    const code = blocks.get(file);
    expect(code, `README has a <!-- quick-start: ${file} --> block`).toBeDefined();
    dir = appDir(file.replace(".", "-"), packageJson, file, code!, pkg);
  });

  it.runIf(file.endsWith(".ts"))(
    "type-checks as printed (strict, moduleResolution node16)",
    () => {
      const tsc = spawnSync(join(BIN, "tsc"), ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
      expect(tsc.stdout + tsc.stderr).toBe("");
      expect(tsc.status).toBe(0);
    },
    120_000,
  );

  it("refuses to start without SESSION_SECRET, or with an empty one, saying how to make one", () => {
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.SESSION_SECRET;
    const [command, args] = runner(file);
    // Empty: what SESSION_SECRET=$(…) gives when the command in it fails.
    for (const secret of [undefined, ""]) {
      const run = spawnSync(command, args, {
        cwd: dir,
        env: secret === undefined ? env : { ...env, SESSION_SECRET: secret },
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toContain("npx services-session-auth secret");
    }
  }, 90_000);

  it("listens, logs in right away, serves the players to the session and 404s in the wire format", async () => {
    const port = await freePort();
    // The secret as the README makes it: the package's own `secret` command, through its bin.
    const { bin } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { bin: Record<string, string> };
    const secret = spawnSync(process.execPath, [join(pkg, bin["services-session-auth"]!), "secret"], { encoding: "utf8" });
    expect(secret.status, secret.stderr).toBe(0);
    const { child } = await start(dir, file, { PORT: String(port), SESSION_SECRET: secret.stdout.trim() });
    children.push(child);
    const base = `http://localhost:${port}`;
    const anonymous = await fetch(`${base}/services/json/players`);
    expect(anonymous.status).toBe(401);
    // Services' reason phrase, where the server writes the Response's (not @hono/node-server).
    if (file !== "hono.ts") expect(anonymous.statusText).toBe("Unauthorized : Access denied for user anonymous");
    // At once: the demo password may still be hashing; the login waits for it.
    const login = await json(`${base}/services/json/user/login.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "demo", password: "demo-password" }),
    });
    expect(login.status).toBe(200);
    const { session_name, sessid, token } = JSON.parse(login.body) as { session_name: string; sessid: string; token: string };
    const cookie = `${session_name}=${sessid}`;
    const players = await json(`${base}/services/json/players`, { headers: { Cookie: cookie } });
    expect([players.status, JSON.parse(players.body)]).toEqual([
      200,
      [
        { id: 1, name: "Ada Lovelace" },
        { id: 2, name: "Grace Hopper" },
      ],
    ]);
    expect((await json(`${base}/services/session/token`, { headers: { Cookie: cookie } })).body).toBe(token);
    const missing = await json(`${base}/services/json/teams`);
    expect([missing.status, missing.body]).toEqual([404, ""]);
    const logout = await json(`${base}/services/json/user/logout.json`, { method: "POST", headers: { Cookie: cookie, "X-CSRF-Token": token } });
    expect(logout.body).toBe("[true]");
    child.kill();
  }, 120_000);
});
