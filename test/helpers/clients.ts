/**
 * Real HTTP from distinct loopback source addresses: 127.0.0.x stands in for distinct
 * clients, so per-address rules (throttling, fair queuing) are exercised as a server sees
 * them, without `trust proxy` or forged headers.
 */
import type { Express } from "express";
import type { Server } from "node:http";
import { request as httpRequest } from "node:http";

/** An app listening on 127.0.0.1, with its port and a way to stop it. */
export interface Listening {
  readonly port: number;
  close(): Promise<void>;
}

/** Starts `app` on a free port of 127.0.0.1. */
export async function listen(app: Express): Promise<Listening> {
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What came back: the status, reason phrase, headers and body text. */
export interface Reply {
  readonly status: number;
  readonly reason: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** When the reply had arrived, in `performance.now()` milliseconds. */
  readonly at: number;
}

/** POSTs a JSON body from `from` (a 127.0.0.0/8 address) to the app on `port`. */
export function postJson(port: number, path: string, body: unknown, options: { from?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        localAddress: options.from ?? "127.0.0.1",
        agent: false,
        headers: { "Content-Type": "application/json", "Content-Length": String(payload.length), ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? "",
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            at: performance.now(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
