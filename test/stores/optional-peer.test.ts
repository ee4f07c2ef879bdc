/**
 * A missing optional peer is a start-up error that names the package to install, raised by
 * the factory that needs it; importing the subpath alone never fails.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type * as Zod from "zod";
import { loadOptionalPeer } from "../../src/stores/optional-peer.js";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * Runs `code` (an ES module) under tsx in a process where Node cannot resolve `hidden`, as
 * in an app that never installed it. Resolution is refused the way Node refuses a package
 * that is not there, with `MODULE_NOT_FOUND`.
 */
function runWithout(hidden: string, code: string): { status: number | null; stdout: string; stderr: string } {
  const hide = `
    const Module = require("node:module");
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === ${JSON.stringify(hidden)}) {
        const error = new Error("Cannot find module '" + request + "'");
        error.code = "MODULE_NOT_FOUND";
        throw error;
      }
      return resolve.call(this, request, ...rest);
    };`;
  const dir = join(ROOT, "test-output", `optional-peer-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const preload = join(dir, `hide-${hidden}.cjs`);
  writeFileSync(preload, hide);
  try {
    const result = spawnSync(join(ROOT, "node_modules", ".bin", "tsx"), ["--require", preload, "--input-type=module", "--eval", code], {
      cwd: ROOT,
      encoding: "utf8",
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("loadOptionalPeer", () => {
  it("names the missing package and the command that installs it, keeping the original error as cause", () => {
    let thrown: unknown;
    try {
      loadOptionalPeer("services-session-auth-no-such-peer", "someStore (services-session-auth/some)");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toBe(
      'someStore (services-session-auth/some) needs the optional peer dependency "services-session-auth-no-such-peer", which is not installed: run `npm install services-session-auth-no-such-peer` in the app',
    );
    expect(((thrown as Error).cause as { code?: string }).code).toBe("MODULE_NOT_FOUND");
  });

  it("loads a peer that is installed", () => {
    expect(loadOptionalPeer<typeof Zod>("zod", "test").z.string().parse("x")).toBe("x");
  });
});

describe("services-session-auth/sealed-cookie without iron-session", () => {
  it("imports, and sealedCookieStore() throws a TypeError that says to install iron-session", () => {
    const entry = pathToFileURL(join(ROOT, "src/entries/sealed-cookie.ts")).href;
    const result = runWithout(
      "iron-session",
      `
      const { sealedCookieStore } = await import(${JSON.stringify(entry)});
      console.log("imported");
      try {
        sealedCookieStore({ password: "p".repeat(16) + "q".repeat(16), revocations: { get() {}, increment() {}, decrement() {}, delete() {} } });
        console.log("no error");
      } catch (error) {
        console.log(error.name + ": " + error.message);
      }`,
    );
    expect(result.stderr).toBe("");
    expect(result.stdout.trim().split("\n")).toEqual([
      "imported",
      'TypeError: sealedCookieStore (services-session-auth/sealed-cookie) needs the optional peer dependency "iron-session", which is not installed: run `npm install iron-session` in the app',
    ]);
    expect(result.status).toBe(0);
  });
});
