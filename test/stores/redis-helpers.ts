/**
 * Helpers for the Redis tests: the shared server from REDIS_URL, a key prefix unique to
 * this run, and private `redis-server` processes on loopback for outage and cluster tests.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { afterAll, beforeAll } from "vitest";

/** The shared server's URL, or `undefined` when the Redis tests should be skipped. */
export const redisUrl = process.env.REDIS_URL;

/** A prefix no other run uses, so runs can share one server and clean up after themselves. */
export function uniquePrefix(label: string): string {
  return `ssa-test:${label}:${Date.now()}:${randomBytes(4).toString("hex")}:`;
}

// Typed by what createClient returns for these options, which differs between redis 5 and 6
// (6 speaks RESP3 by default), so the helpers compile against either major.
function sharedClient() {
  return createClient({ url: redisUrl, disableOfflineQueue: true });
}
type SharedClient = ReturnType<typeof sharedClient>;

/**
 * A client on the shared server for the enclosing describe block, with a prefix of its own:
 * connected before the block's tests, its keys deleted and the client closed after them.
 */
export function useSharedRedis(label: string): { client: SharedClient; prefix: string } {
  const prefix = uniquePrefix(label);
  const client = sharedClient();
  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    await deleteKeys([redisUrl!], prefix);
    client.destroy();
  });
  return { client, prefix };
}

/** Whether a program is on the PATH. */
export function hasBinary(name: string): boolean {
  return spawnSync(name, ["--version"], { stdio: "ignore" }).status === 0;
}

/** Deletes every key under a prefix (SCAN, never KEYS), on each node given. */
export async function deleteKeys(urls: string[], prefix: string): Promise<void> {
  for (const url of urls) {
    const client = await createClient({ url }).connect();
    try {
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
        // One node of a cluster only owns some slots: delete key by key so no reply is CROSSSLOT.
        for (const key of keys) await client.del(key);
      }
    } finally {
      client.destroy();
    }
  }
}

/** A free TCP port on 127.0.0.1 at or above `from`. */
export async function freePort(from: number): Promise<number> {
  for (let port = from; port < from + 200; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port from ${from}`);
}

/** Polls `PING` until the server answers, instead of sleeping a fixed time. */
export async function waitForPing(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" });
    if (result.stdout.trim() === "PONG") return;
    if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer PING`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A private `redis-server` on loopback, with no persistence, in its own temp dir. */
export interface PrivateRedis {
  readonly port: number;
  readonly dir: string;
  /** Whether the server process is up (started and not stopped or dead). */
  readonly running: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

/**
 * Prepares (does not start) a private server. Extra arguments are passed to
 * `redis-server`, e.g. `["--cluster-enabled", "yes"]`.
 */
export function privateRedis(port: number, extra: string[] = [], dir = mkdtempSync(join(tmpdir(), "ssa-redis-"))): PrivateRedis {
  let child: ChildProcess | undefined;
  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  }
  return {
    port,
    dir,
    get running() {
      return child !== undefined && child.exitCode === null;
    },
    async start() {
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, ...extra], {
        stdio: "ignore",
      });
      await waitForPing(port);
    },
    stop,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
