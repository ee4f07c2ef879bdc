/**
 * The example app exports the package's traces and metrics when given an OTLP endpoint: a local
 * collector stand-in records what it is sent over OTLP/HTTP (JSON).
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import { expect, it } from "vitest";
import { freePort } from "../helpers/example-server.js";

it("the example sends login and store spans and the logins metric to OTEL_EXPORTER_OTLP_ENDPOINT, and flushes them on SIGTERM", async () => {
  const received: Record<string, string> = { "/v1/traces": "", "/v1/metrics": "" };
  const collector = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received[req.url ?? ""] = (received[req.url ?? ""] ?? "") + body;
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
  const port = await freePort();
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "examples/sports-api/server.ts"], {
    env: { ...process.env, PORT: String(port), SESSION_SECRET: "otlp-test-secret-0123456789-abcdefgh", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    const deadline = Date.now() + 30_000;
    // The endpoint's line follows the listening line, perhaps in a chunk of its own.
    while (!output.includes("traces and metrics to")) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).toContain(`traces and metrics to ${endpoint}`);
    const login = await fetch(`http://127.0.0.1:${port}/services/json/user/login.json`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "demo", password: "demo-password" }),
    });
    expect(login.status).toBe(200);
    const { sessid } = (await login.json()) as { sessid: string };
    child.kill("SIGTERM");
    await exited;
    for (const name of ['"login"', '"sessionStore.create"', '"counterStore.increment"', '"session_auth.login.outcome"', '"sports-api"']) {
      expect(received["/v1/traces"]).toContain(name);
    }
    expect(received["/v1/metrics"]).toContain('"session_auth.logins"');
    expect(received["/v1/metrics"]).toContain('"session_auth.store.duration"');
    // Nothing sensitive left the process.
    for (const secret of [sessid, "demo-password"]) expect(JSON.stringify(received)).not.toContain(secret);
  } finally {
    child.kill("SIGKILL");
    collector.close();
  }
});
