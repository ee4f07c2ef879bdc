import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** A free port on 127.0.0.1, for a server started in another process. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/**
 * `npm start` as a user runs it: examples/sports-api/server.ts in a process of its own, with
 * `env` on top of this one's, on a free port. Resolves once it says it serves, with its port
 * and what it printed; `stop()` ends it.
 */
export async function startExample(env: Record<string, string>): Promise<{ port: number; output: () => string; stop: () => void }> {
  const port = await freePort();
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
    env: { ...process.env, PORT: String(port), SESSION_SECRET: "example-server-test-secret-0123456789", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = () => void child.kill("SIGTERM");
  const deadline = Date.now() + 30_000;
  while (!output.includes("sports API on")) {
    if (Date.now() > deadline || child.exitCode !== null) {
      stop();
      throw new Error(`did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, output: () => output, stop };
}
