/** `EXAMPLE_FRAMEWORK=express|fastify|hono npm start`: server.ts starts the example on each, and it answers. */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

describe("examples/sports-api/server.ts", () => {
  it.each(["express", "fastify", "hono"])(
    "serves the example on %s",
    async (framework) => {
      const port = await freePort();
      let output = "";
      const child = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
        env: { ...process.env, EXAMPLE_FRAMEWORK: framework, PORT: String(port), SESSION_SECRET: "example-framework-test-secret-0123456789" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      try {
        const deadline = Date.now() + 30_000;
        while (!output.includes("sports API on")) {
          if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(output).toContain(`(${framework})`);
        const login = await fetch(`http://127.0.0.1:${port}/services/json/user/login.json`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: "username=demo&password=demo-password",
        });
        const { session_name, sessid } = (await login.json()) as { session_name: string; sessid: string };
        const players = await fetch(`http://127.0.0.1:${port}/services/json/players`, { headers: { Cookie: `${session_name}=${sessid}` } });
        expect([players.status, players.headers.get("content-type")]).toEqual([200, "application/json"]);
      } finally {
        child.kill("SIGTERM");
      }
    },
    60_000,
  );
});
