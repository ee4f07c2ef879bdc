/* global console, process, fetch, setTimeout, clearTimeout */
// Run in a fresh directory outside the checkout, with the packed tarball as its only source of
// the package: each of the README's Fastify and Hono quick starts goes into an app of its own
// that installs only that framework (never Express), is type-checked as printed by `tsc
// --strict` with `skipLibCheck` off (so every .d.ts the app loads is checked too), and is run
// and driven over HTTP. Usage: node packed-quick-starts.mjs <README.md> <tarball>
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const [readme, tarball] = process.argv.slice(2).map((path) => resolve(path));
const lines = readFileSync(readme, "utf8").split("\n");
const block = (file) => {
  const start = lines.indexOf(`<!-- quick-start: ${file} -->`);
  if (start === -1) throw new Error(`README.md has no quick-start block for ${file}`);
  return `${lines.slice(start + 2, lines.indexOf("```", start + 2)).join("\n")}\n`;
};
const apps = [
  { file: "fastify.ts", deps: ["fastify"] },
  { file: "hono.ts", deps: ["hono", "@hono/node-server"] },
];

const freePort = () =>
  new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

for (const { file, deps } of apps) {
  const dir = resolve(file.replace(".ts", "-app"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: file.replace(".ts", "-app"), private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, ...deps, "typescript@~5.9", "tsx", "@types/node@20"], {
    cwd: dir,
    stdio: "inherit",
  });
  if (existsSync(join(dir, "node_modules", "express")) || existsSync(join(dir, "node_modules", "@types", "express")))
    throw new Error(`${file}: express got installed`);
  writeFileSync(join(dir, file), block(file));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: false, types: ["node"] },
      files: [file],
    }),
  );
  execFileSync(join(dir, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: dir, stdio: "inherit" });
  console.log(`${file}: type-checks under --strict with skipLibCheck off, without express`);

  const port = await freePort();
  const secret = execFileSync(join(dir, "node_modules", ".bin", "services-session-auth"), ["secret"], { cwd: dir, encoding: "utf8" }).trim();
  const child = spawn(join(dir, "node_modules", ".bin", "tsx"), [file], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), SESSION_SECRET: secret },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`${file} did not start`)), 60_000);
      child.stdout.on("data", (chunk) => String(chunk).includes("Services endpoint on") && (clearTimeout(timer), done()));
      child.once("exit", (code) => fail(new Error(`${file} exited with ${code}`)));
    });
    const base = `http://localhost:${port}`;
    const anonymous = await fetch(`${base}/services/json/players`);
    if (anonymous.status !== 401) throw new Error(`${file}: anonymous players answered ${anonymous.status}`);
    const login = await fetch(`${base}/?q=services/json/user/login.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "demo", password: "demo-password" }),
    });
    if (login.status !== 200) throw new Error(`${file}: login answered ${login.status}`);
    const { session_name, sessid } = await login.json();
    const players = await fetch(`${base}/services/json/players`, { headers: { Cookie: `${session_name}=${sessid}` } });
    const rows = await players.json();
    if (players.status !== 200 || rows.length !== 2) throw new Error(`${file}: players answered ${players.status}`);
    console.log(`${file}: logs in (by its ?q= spelling) and serves the players to the session`);
  } finally {
    child.kill();
  }
}
