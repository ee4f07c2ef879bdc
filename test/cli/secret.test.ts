import { describe, expect, it } from "vitest";
import { memorySessionStore, memoryUserStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { runCli } from "./run-cli.js";

describe("services-session-auth secret", () => {
  it("prints a secret that createSessionAuthRouter accepts, a new one each run", async () => {
    const [first, second] = await Promise.all([runCli(["secret"]), runCli(["secret"])]);
    for (const run of [first, second]) {
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^[\w-]{43}\n$/);
      const secret = run.stdout.trim();
      expect(() => createSessionAuthRouter({ secret, sessionStore: memorySessionStore(), userStore: memoryUserStore([]) })).not.toThrow();
    }
    expect(first.stdout).not.toBe(second.stdout);
  });

  it("takes no arguments", async () => {
    const run = await runCli(["secret", "--length", "64"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("Usage: services-session-auth");
  });
});

describe("services-session-auth usage", () => {
  it("answers an unknown command, or none, with the usage and exit code 2", async () => {
    for (const args of [["import"], [], ["drupal7", "export-sessions"], ["drupal7"]]) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/^services-session-auth: .+\n\nUsage: services-session-auth <command>/);
      // A message, never a stack trace.
      expect(run.stderr.split("\n").filter((line) => line.trimStart().startsWith("at "))).toEqual([]);
    }
  });

  it("never repeats a password from a URL given where no option expected it", async () => {
    const run = await runCli(["drupal7", "import-sessions", "mysql://drupal:hunter2@db.internal/drupal"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("mysql://drupal:***@db.internal/drupal");
    expect(run.stderr).not.toContain("hunter2");
  });

  it("prints the usage on stdout when asked", async () => {
    const run = await runCli(["help"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain("drupal7 import-sessions");
  });
});
