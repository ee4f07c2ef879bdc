import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

interface Transcript {
  baseUrl: string;
  scenarios: Array<{ steps: Array<{ response: { headers: Array<[string, string]> } }> }>;
}

/** The first session cookie real Drupal 7 set in the recording, and the URL it was served at. */
function recordedCookie(): { baseUrl: string; setCookie: string } {
  const transcript = JSON.parse(readFileSync(resolve(import.meta.dirname, "../fixtures/drupal7-transcript/transcript.json"), "utf8")) as Transcript;
  for (const scenario of transcript.scenarios) {
    for (const step of scenario.steps) {
      const header = step.response.headers.find(([name, value]) => name.toLowerCase() === "set-cookie" && /^S?SESS/.test(value));
      if (header !== undefined) return { baseUrl: transcript.baseUrl, setCookie: header[1] };
    }
  }
  throw new Error("the transcript holds no session cookie");
}

/** The `key value` lines of the plain output. */
function fields(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trimEnd()
      .split("\n")
      .map((line) => [line.slice(0, 11).trim(), line.slice(11)]),
  );
}

describe("services-session-auth session-name", () => {
  it("prints the name and attributes real Drupal 7 set at the recorded URL", async () => {
    const recorded = recordedCookie();
    const name = recorded.setCookie.slice(0, recorded.setCookie.indexOf("="));
    const attributes = recorded.setCookie.toLowerCase();
    const run = await runCli(["session-name", `${recorded.baseUrl}/`]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const printed = fields(run.stdout);
    expect(printed.name).toBe(name);
    // The recording was made on an IP address: Drupal sent a host-only cookie, over plain HTTP.
    expect(attributes).not.toContain("domain=");
    expect(printed.domain).toBe("(none: host-only)");
    expect(attributes).not.toContain("secure");
    expect(printed.secure).toBe("no");
    expect(printed["set-cookie"]).toMatch(new RegExp(`^${name}=<sessid>; expires=.+; Max-Age=2000000; path=/; HttpOnly$`));

    const json = await runCli(["session-name", recorded.baseUrl, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ name, domain: null, secure: false, httpOnly: true, path: "/", maxAge: 2_000_000 });
  });

  it("follows the cookie options the router takes", async () => {
    const run = await runCli(["session-name", "https://api.example.com/", "--same-site", "lax", "--absolute-timeout", "3600"]);
    expect(run.code).toBe(0);
    const plain = fields(run.stdout);
    expect(plain).toMatchObject({ domain: ".api.example.com", secure: "yes", sameSite: "Lax", maxAge: "3600" });
    expect(plain.name).toMatch(/^SSESS[0-9a-f]{32}$/);

    const shared = fields((await runCli(["session-name", "https://api.example.com/", "--cookie-domain", ".example.com"])).stdout);
    expect(shared.domain).toBe(".example.com");
    expect(shared.name).not.toBe(plain.name);
    // The router also clears a copy at the host's own domain, where a Drupal cookie may sit.
    expect(shared["deleted at"]).toContain(".api.example.com");
  });

  it("refuses a missing or relative URL and option values the router would refuse", async () => {
    for (const args of [
      ["session-name"],
      ["session-name", "/services"],
      ["session-name", "https://x.test", "--same-site", "none"],
      ["session-name", "https://x.test", "--absolute-timeout", "1h"],
    ]) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("Usage: services-session-auth");
    }
  });
});
