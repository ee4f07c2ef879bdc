import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../src/options/defaults.js";

/** Which object of DEFAULTS each options interface's keys live in. */
const SCOPES: Record<string, string[]> = {
  SessionAuthOptions: [],
  CookieOptions: [],
  SessionOptions: [],
  LoginOptions: [],
  OriginOptions: [],
  CorsOptions: [],
  CorsConfig: ["cors"],
  EndpointOptions: [],
  RequireSessionOptions: [],
  ThrottleOptions: ["throttle"],
  HashingOptions: ["hashing"],
  DeviceCookieOptions: ["deviceCookies"],
  AccountsOptions: ["accounts"],
};

/** Options whose default is made, not a value: described in words, and absent from DEFAULTS. */
const COMPUTED = new Set([
  "secret",
  "csrfToken",
  "sessionName",
  "cookieDomain",
  "baseUrl",
  "sameSite",
  "onEvent",
  "telemetry",
  "isAdmin",
  "hasher",
  "counterStore",
  "throttle",
  "hashing",
  "hashing.concurrency",
  "cors",
  "deviceCookies",
  "accounts",
  "accounts.mailer",
  "accounts.settings",
  "accounts.hashSalt",
  "accounts.siteUrl",
  "accounts.oneTimeLoginUrl",
  "accounts.flood",
]);

/** The files where the options are documented: the package's own, and each concept's slice. */
const OPTION_FILES = [
  "options/options.ts",
  "cookie/options.ts",
  "sessions/options.ts",
  "login/options.ts",
  "origins/options.ts",
  "cors/options.ts",
  "endpoint/options.ts",
  "accounts/options.ts",
];

/** Every `@default` tag of the option files: the option's path and the tag's leading literal, if it has one. */
function documentedDefaults(): { path: string; literal: unknown }[] {
  const lines = OPTION_FILES.flatMap((file) => readFileSync(new URL(`../../src/${file}`, import.meta.url), "utf8").split("\n"));
  const out: { path: string; literal: unknown }[] = [];
  let scope: string[] | undefined;
  let pending: string | undefined;
  for (const line of lines) {
    const opened = /^export interface (\w+)/.exec(line);
    if (opened !== null) scope = SCOPES[opened[1]!];
    const tag = /@default (.*)$/.exec(line);
    if (tag !== null) pending = tag[1]!;
    const property = /^ {2}(?:readonly )?(\w+)\?:/.exec(line);
    if (property !== null && pending !== undefined && scope !== undefined) {
      out.push({ path: [...scope, property[1]!].join("."), literal: literalOf(pending) });
      pending = undefined;
    }
  }
  return out;
}

/** The tag's leading JSON literal (`200000 (Drupal's …)`, `"auto"`, `[]: …`), or undefined for words. */
function literalOf(text: string): unknown {
  const match = /^(-?\d+|"[^"]*"|true|false|\[[^\]]*\])/.exec(text);
  return match === null ? undefined : (JSON.parse(match[1]!) as unknown);
}

function valueAt(path: string): unknown {
  return path.split(".").reduce<unknown>((object, key) => (object as Record<string, unknown> | undefined)?.[key], DEFAULTS);
}

describe("DEFAULTS", () => {
  const documented = documentedDefaults();

  it("is what every @default tag of the options says", () => {
    expect(documented.length).toBeGreaterThan(30);
    for (const { path, literal } of documented) {
      if (COMPUTED.has(path)) {
        expect(literal, `${path} is computed: its tag describes it in words`).toBeUndefined();
        continue;
      }
      expect(literal, `${path}: the @default tag must start with the value`).not.toBeUndefined();
      expect(valueAt(path), path).toEqual(literal);
    }
  });

  it("has a documented option for every value it holds", () => {
    const paths = new Set(documented.map((entry) => entry.path));
    const walk = (object: object, prefix: string[]): string[] =>
      Object.entries(object).flatMap(([key, value]) =>
        typeof value === "object" && value !== null && !Array.isArray(value) ? walk(value as object, [...prefix, key]) : [[...prefix, key].join(".")],
      );
    for (const path of walk(DEFAULTS, [])) expect(paths, path).toContain(path);
  });

  it("cannot be changed by a caller", () => {
    expect(Object.isFrozen(DEFAULTS) && Object.isFrozen(DEFAULTS.throttle) && Object.isFrozen(DEFAULTS.parsers)).toBe(true);
  });
});
