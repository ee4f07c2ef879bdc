/**
 * Runs the command line as `npx services-session-auth` would, from the sources under tsx
 * (so the tests need no build), in its own process: exit code, stdout and stderr as written.
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";

const MAIN = resolve(import.meta.dirname, "../../src/cli/main.ts");

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `services-session-auth …args` with `env` added to a minimal environment (no REDIS_URL or DATABASE_URL unless given). */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", MAIN, ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        done({ code, stdout, stderr });
      },
    );
  });
}
