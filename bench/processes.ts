/**
 * How the benchmark runs its pieces: each server and each load generator is a process of its
 * own (`node --import tsx …`, `NODE_ENV=production`), with `taskset` putting servers on CPU 0
 * and load on CPU 1 when the machine has two CPUs and `BENCH_PIN` is not `0`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";

const here = import.meta.dirname;

/** Whether processes are pinned to CPUs. */
export const pinned = process.env.BENCH_PIN !== "0" && availableParallelism() >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;

/** Starts `node --import tsx <args>` on `cpu` (when pinning), with stdout piped; `ipc` adds a message channel. */
export function node(args: readonly string[], cpu: "0" | "1" | undefined, ipc = false): ChildProcess {
  const argv = [process.execPath, "--import", "tsx", ...args];
  const [command, ...rest] = pinned && cpu !== undefined ? ["taskset", "-c", cpu, ...argv] : argv;
  const stdio = ipc ? (["ignore", "pipe", "pipe", "ipc"] as const) : (["ignore", "pipe", "inherit"] as const);
  const child = spawn(command!, rest, { cwd: resolve(here, ".."), env: { ...process.env, NODE_ENV: "production" }, stdio: [...stdio] });
  // express-session warns about its MemoryStore at every start; everything else is shown.
  child.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    if (!/MemoryStore is not|designed for a production|memory, and will not scale/.test(text)) process.stderr.write(text);
  });
  return child;
}

/** Runs a child to completion and parses the JSON line it prints last. */
export function runJson<T>(args: readonly string[], cpu: "0" | "1" | undefined): Promise<T> {
  return new Promise((done, fail) => {
    const child = node(args, cpu);
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) => (code === 0 ? done(JSON.parse(out.trim().split("\n").pop()!) as T) : fail(new Error(`${args.join(" ")} exited ${code}`))));
  });
}

/** A benchmark server process. */
export interface BenchServer {
  readonly url: string;
  /** The port it listens on, at 127.0.0.1. */
  readonly port: number;
  /** The server process's CPU time so far (user + system), in microseconds. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts `bench/server.ts <configuration>` on CPU 0; resolves once it listens. */
export function startServer(configuration: string, profileDir?: string): Promise<BenchServer> {
  // One folder per configuration; the loader's worker thread writes a profile of its own beside the main thread's.
  const profile = profileDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", resolve(profileDir, configuration)];
  const child = node([...profile, resolve(here, "server.ts"), configuration], "0", true);
  return new Promise((done, fail) => {
    let out = "";
    child.on("exit", (code) => fail(new Error(`${configuration} server exited ${code} before listening`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const port = /PORT (\d+)/.exec(out)?.[1];
      if (port === undefined) return;
      child.removeAllListeners("exit");
      const stop = () =>
        new Promise<void>((stopped) => {
          child.once("exit", () => stopped());
          child.kill("SIGTERM");
        });
      const cpu = () =>
        new Promise<number>((answered) => {
          child.once("message", (usage) => answered((usage as { cpu: number }).cpu));
          child.send("cpu");
        });
      done({ url: `http://127.0.0.1:${port}`, port: Number(port), cpu, stop });
    });
  });
}
