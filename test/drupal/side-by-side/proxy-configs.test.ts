/**
 * The guide's nginx and Caddy configurations (docs/running-beside-drupal-7.md, "The proxy"), run
 * as printed by the real servers from Debian's packages: only the upstream ports, the listening
 * address and what a test cannot have (a certificate, Caddy's automatic HTTPS) are changed. Two
 * stand-ins, one for Drupal and one for the app, say which of them each request reached and what
 * the proxy told it. Without nginx or caddy on the machine the suite says so and skips;
 * `REQUIRE_PROXIES=1` (CI) makes that a failure.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../helpers/example-server.js";

const guide = readFileSync(new URL("../../../docs/running-beside-drupal-7.md", import.meta.url), "utf8");
const block = (language: string) => new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "m").exec(guide)?.[1] ?? "";

/** Which backend a request reached, with the headers the proxy sent it. */
interface Reached {
  backend: "node" | "drupal";
  url: string;
  headers: IncomingHttpHeaders;
}

/** Where each request must go: the session calls, the resource ported (`players`) and their `?q=` spellings to Node; every other resource and page to Drupal. */
const ROUTES: ReadonlyArray<[method: string, target: string, backend: Reached["backend"]]> = [
  ["POST", "/services/json/user/login", "node"],
  ["POST", "/services/json/user/login.json", "node"],
  ["POST", "/services/json/user/logout", "node"],
  ["POST", "/services/json/user/token.json", "node"],
  ["POST", "/services/json/system/connect", "node"],
  ["GET", "/services/session/token", "node"],
  ["GET", "/services/json/players", "node"],
  ["GET", "/services/json/players/1.json", "node"],
  ["POST", "/?q=services/json/user/login.json", "node"],
  ["POST", "/index.php?q=services/json/user/logout", "node"],
  ["POST", "/?q=services%2Fjson%2Fsystem%2Fconnect", "node"],
  ["POST", "/?q=services/json/user/token", "node"],
  ["GET", "/?q=services/session/token", "node"],
  ["GET", "/?q=services/json/players/2", "node"],
  ["GET", "/services/json/node/1", "drupal"],
  ["GET", "/services/json/user/1", "drupal"],
  ["POST", "/services/json/user/register", "drupal"],
  ["POST", "/services/json/user/login/extra", "drupal"],
  ["GET", "/services/json/views/front", "drupal"],
  ["GET", "/services/json/playersx", "drupal"],
  ["GET", "/?q=services/json/node/1", "drupal"],
  ["POST", "/?q=services/json/user/register.json", "drupal"],
  ["GET", "/?q=services/json/user/1", "drupal"],
  ["GET", "/node/1", "drupal"],
  ["GET", "/?q=node/1", "drupal"],
  ["POST", "/?q=user/login", "drupal"],
  ["GET", "/user", "drupal"],
  ["GET", "/services/jsonx/user/login", "drupal"],
  ["GET", "/?q=services/jsonx/user/login", "drupal"],
  ["GET", "/?q=services/session/tokens", "drupal"],
  ["GET", "/", "drupal"],
];

/** A backend that answers with its own name, and keeps what it was sent. */
async function standIn(backend: Reached["backend"], reached: Reached[]): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      reached.push({ backend, url: req.url ?? "", headers: req.headers });
      res.end(backend);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

function send(port: number, method: string, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path: target, headers: { Host: "www.example.com", "Content-Length": "0" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Resolves once something accepts connections on the port; rejects if the process ends first or after 20 s. */
async function accepting(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the proxy exited (${child.exitCode}):\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the proxy did not listen on ${port}:\n${output()}`);
}

interface Proxy {
  /** The server's command, found on the PATH or in its Debian place. */
  binary: string;
  /** The configuration file, from the guide's block with the test's ports. */
  config(printed: string, ports: { listen: number; node: number; drupal: number }, dir: string): string;
  args(file: string, dir: string): string[];
}

const PROXIES: Record<"nginx" | "caddy", Proxy> = {
  nginx: {
    binary: "/usr/sbin/nginx",
    config(printed, { listen, node, drupal }, dir) {
      const http = printed
        .replace("127.0.0.1:8080", `127.0.0.1:${drupal}`)
        .replace("127.0.0.1:3000", `127.0.0.1:${node}`)
        .replace("listen 443 ssl;", `listen 127.0.0.1:${listen};`);
      return [
        "daemon off;",
        "master_process off;",
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log;`,
        "events {}",
        "http {",
        "access_log off;",
        ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `${kind}_temp_path ${dir}/${kind};`),
        http,
        "}",
      ].join("\n");
    },
    args: (file, dir) => ["-p", dir, "-c", file],
  },
  caddy: {
    binary: "/usr/bin/caddy",
    config(printed, { listen, node, drupal }) {
      // A site address with a port and http:// takes Caddy's automatic HTTPS (and its ACME calls) out.
      const site = printed
        .replace("www.example.com {", `http://www.example.com:${listen} {`)
        .replaceAll("127.0.0.1:3000", `127.0.0.1:${node}`)
        .replaceAll("127.0.0.1:8080", `127.0.0.1:${drupal}`);
      return `{\n\tadmin off\n}\n\n${site}`;
    },
    args: (file) => ["run", "--config", file, "--adapter", "caddyfile"],
  },
};

function missing(proxy: Proxy): string | undefined {
  return spawnSync(proxy.binary, ["-v"]).error === undefined ? undefined : `${proxy.binary} is not installed (Debian: apt-get install nginx-light caddy)`;
}

for (const [name, proxy] of Object.entries(PROXIES) as Array<[keyof typeof PROXIES, Proxy]>) {
  const why = missing(proxy);
  if (why !== undefined && process.env.REQUIRE_PROXIES === "1") throw new Error(`REQUIRE_PROXIES=1, but ${why}`);
  if (why !== undefined) console.warn(`skipping the guide's ${name} configuration: ${why}`);

  describe.skipIf(why !== undefined)(`the guide's ${name} configuration, as printed`, () => {
    const reached: Reached[] = [];
    const servers: Server[] = [];
    let child: ChildProcess;
    let port: number;
    let dir: string;

    beforeAll(async () => {
      expect(block(name)).not.toBe("");
      const node = await standIn("node", reached);
      const drupal = await standIn("drupal", reached);
      servers.push(node.server, drupal.server);
      port = await freePort();
      dir = mkdtempSync(join(tmpdir(), `guide-${name}-`));
      chmodSync(dir, 0o755);
      const file = join(dir, `${name}.conf`);
      writeFileSync(file, proxy.config(block(name), { listen: port, node: node.port, drupal: drupal.port }, dir));
      let output = "";
      child = spawn(proxy.binary, proxy.args(file, dir), {
        cwd: dir,
        env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      await accepting(port, child, () => output);
    }, 30_000);

    afterAll(async () => {
      child?.kill("SIGTERM");
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it.each(ROUTES)("sends %s %s to %s", async (method, target, backend) => {
      reached.length = 0;
      const reply = await send(port, method, target);
      expect([reply.status, reply.body]).toEqual([200, backend]);
      expect(reached).toHaveLength(1);
      const [{ url, headers }] = reached as [Reached];
      // The path and query reach the backend as the client sent them, with the Host the cookie is named after, the client and the scheme.
      expect(url).toBe(target);
      expect([headers.host, headers["x-forwarded-for"], headers["x-forwarded-proto"]]).toEqual(["www.example.com", "127.0.0.1", "http"]);
    });
  });
}
