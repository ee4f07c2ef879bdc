/* global console, process, fetch, setTimeout, clearTimeout */
// Run in a fresh directory outside the checkout, with the packed tarball as its only source of
// the package: each quick start as printed (the README's auth.ts beside each of its Express,
// Fastify, Hono and fetch servers, in ES module apps, and docs/express.md's CommonJS server.js
// on Express 4) goes into an app of its own that installs only its framework, is type-checked
// by `tsc --strict` with `skipLibCheck` off (so every .d.ts the app loads is checked too; the
// CommonJS one with `checkJs`), and is run and driven over HTTP.
// Usage: node packed-quick-starts.mjs <checkout> <tarball>
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const [checkout, tarball] = process.argv.slice(2).map((path) => resolve(path));
const pages = ["README.md", "docs/express.md", "docs/fastify.md", "docs/hono.md", "docs/fetch.md"].map((page) =>
  readFileSync(join(checkout, page), "utf8").split("\n"),
);
const block = (file) => {
  for (const lines of pages) {
    const start = lines.indexOf(`<!-- quick-start: ${file} -->`);
    if (start !== -1) return `${lines.slice(start + 2, lines.indexOf("```", start + 2)).join("\n")}\n`;
  }
  throw new Error(`no quick-start block for ${file}`);
};
const TS = ["typescript@~5.9", "tsx", "@types/node@20"];
const apps = [
  { name: "express-esm", file: "server.ts", deps: ["express@5", "@types/express@5", ...TS] },
  { name: "fastify-esm", file: "fastify.ts", deps: ["fastify@5", ...TS], noExpress: true },
  { name: "hono-esm", file: "hono.ts", deps: ["hono@4", "@hono/node-server", ...TS], noExpress: true },
  { name: "fetch-esm", file: "fetch.ts", deps: [...TS], noExpress: true },
  { name: "express4-cjs", file: "server.js", deps: ["express@4", "@types/express@4", "typescript@~5.9", "@types/node@20"], commonjs: true },
];

const freePort = () =>
  new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

for (const { name, file, deps, noExpress, commonjs } of apps) {
  const dir = resolve(name);
  mkdirSync(dir, { recursive: true });
  // `npm init -y` makes a CommonJS package: no "type".
  writeFileSync(join(dir, "package.json"), JSON.stringify(commonjs ? { name, private: true } : { name, private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, ...deps], { cwd: dir, stdio: "inherit" });
  if (noExpress && (existsSync(join(dir, "node_modules", "express")) || existsSync(join(dir, "node_modules", "@types", "express"))))
    throw new Error(`${name}: express got installed`);
  const files = commonjs ? [file] : ["auth.ts", file];
  for (const each of files) writeFileSync(join(dir, each), block(each));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
        ...(commonjs ? { allowJs: true, checkJs: true } : {}),
      },
      files,
    }),
  );
  execFileSync(join(dir, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: dir, stdio: "inherit" });
  console.log(`${name}: type-checks under --strict with skipLibCheck off${noExpress ? ", without express" : ""}`);

  const port = await freePort();
  const secret = execFileSync(join(dir, "node_modules", ".bin", "services-session-auth"), ["secret"], { cwd: dir, encoding: "utf8" }).trim();
  const [command, args] = commonjs ? [process.execPath, [file]] : [join(dir, "node_modules", ".bin", "tsx"), [file]];
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, PORT: String(port), SESSION_SECRET: secret }, stdio: ["ignore", "pipe", "inherit"] });
  try {
    await new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`${name} did not start`)), 60_000);
      child.stdout.on("data", (chunk) => String(chunk).includes("Services endpoint on") && (clearTimeout(timer), done()));
      child.once("exit", (code) => fail(new Error(`${name} exited with ${code}`)));
    });
    const base = `http://localhost:${port}`;
    const anonymous = await fetch(`${base}/services/json/players`);
    if (anonymous.status !== 401) throw new Error(`${name}: anonymous players answered ${anonymous.status}`);
    const login = await fetch(`${base}/?q=services/json/user/login.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "demo", password: "demo-password" }),
    });
    if (login.status !== 200) throw new Error(`${name}: login answered ${login.status}`);
    const { session_name, sessid } = await login.json();
    const players = await fetch(`${base}/services/json/players`, { headers: { Cookie: `${session_name}=${sessid}` } });
    const rows = await players.json();
    if (players.status !== 200 || rows.length !== 2) throw new Error(`${name}: players answered ${players.status}`);
    console.log(`${name}: logs in (by its ?q= spelling) and serves the players to the session`);
  } finally {
    child.kill();
  }
}
