/**
 * Every `@example` in src, type-checked against the package as it is: an example that names an
 * API that is gone, or calls one with the wrong shape, fails here instead of in a user's editor.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The names a module exports, read from its text (`export function x`, `export { a, type B } from …`). */
function exportedNames(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const names = [...text.matchAll(/^export (?:declare )?(?:async )?(?:function\*?|const|let|class|interface|type|enum) (\w+)/gm)].map((match) => match[1]!);
  for (const block of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of block[1]!.split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(" as ")
        .pop()!
        .trim();
      if (name !== "") names.push(name);
    }
  }
  return names;
}

/** The package's entry points, as an app imports them. */
const ENTRIES: Readonly<Record<string, string>> = {
  "services-session-auth": "src/index.ts",
  "services-session-auth/express": "src/entries/express.ts",
  "services-session-auth/drupal": "src/drupal/index.ts",
  "services-session-auth/redis": "src/entries/redis.ts",
  "services-session-auth/ioredis": "src/entries/ioredis.ts",
  "services-session-auth/sealed-cookie": "src/entries/sealed-cookie.ts",
  "services-session-auth/fetch": "src/entries/fetch.ts",
  "services-session-auth/fastify": "src/entries/fastify.ts",
  "services-session-auth/hono": "src/entries/hono.ts",
  "services-session-auth/nodemailer": "src/entries/nodemailer.ts",
};

/** Every public name, imported as an app would; a name of the documented module that is not public, from the module itself. */
function importsFor(file: string, own: ReadonlySet<string>): string {
  const taken = new Set(own);
  const lines: string[] = [];
  for (const [specifier, path] of Object.entries(ENTRIES)) {
    const names = exportedNames(join(root, path)).filter((name) => !taken.has(name));
    names.forEach((name) => taken.add(name));
    if (names.length > 0) lines.push(`import { ${names.join(", ")} } from "${specifier}";`);
  }
  const internal = exportedNames(join(root, file)).filter((name) => !taken.has(name));
  const fromTest = relative(join(root, "test", "examples"), join(root, file)).replace(/\.ts$/, ".js");
  if (internal.length > 0) lines.push(`import { ${internal.join(", ")} } from "${fromTest}";`);
  return lines.join("\n");
}

/** What the examples take as given: an app, its stores and data, a request being handled, and values they stand in for. */
const PRELUDE = `
import express from "express";
import { z } from "zod";
import type { NextFunction } from "express";
import { Redis, Cluster } from "ioredis";
import { createClient, createCluster } from "redis";
import { sealData, unsealData } from "iron-session";
import type * as IronSession from "iron-session";
import { writeFileSync } from "node:fs";
import Fastify from "fastify";
import { Hono } from "hono";
/** Deno's server, as the fetch handler's example uses it. */
declare const Deno: { serve(handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>): void };
// A stand-in for what an example only gestures at (a row, a logger, a schema of the app's).
type Stand = any;
declare global {
  namespace Express {
    interface Request {
      /** pino-http's request logger, as the error-log example uses it. */
      log: Stand;
    }
  }
}
declare const app: express.Express;
declare const req: express.Request;
declare const res: express.Response;
declare const userStore: UserStore;
declare const sessionStore: SessionStore;
declare const counterStore: CounterStore;
declare const options: SessionAuthOptions;
declare const sessionAuth: SessionAuthRouter;
declare const auth: SessionAuthRouter;
declare const user: UserRecord;
declare const sessid: string;
declare const players: unknown[];
declare const routes: GuardedRoute[];
declare const pool: Drupal7Pool & import("mysql2/promise").Pool;
declare const redis: import("redis").RedisClientType;
declare const secret: string;
declare function listPlayers(req: express.Request, res: express.Response): void;
declare function addPlayer(req: express.Request, res: express.Response): void;
declare function beacon(req: express.Request, res: express.Response): void;
declare const client: Stand, pg: Stand, mysql: Stand, nameKey: Buffer, parseOptions: Stand;
declare const raw: Stand, row: Stand, rows: Stand, logger: Stand, stored: Stand, password: Stand, name: Stand, err: Stand, event: Stand, metrics: Stand;
declare const settings: Stand, key: Stand, record: Stand, users: Stand, handle: Stand, tx: Stand, payload: Stand, seal: Stand, db: Stand, now: Stand, playerSchema: Stand;
declare const wrappedPool: Stand, optionsSchema: Stand, privateKey: Stand, csrfToken: Stand, connectionString: Stand, passwordHash: Stand, schemaVersion: Stand, rootNodes: Stand;
declare function scheduleRetry(...args: Stand[]): void;
declare function retryLater(...args: Stand[]): void;
`;

/** The prelude less the names an example imports itself. */
function preludeWithout(own: ReadonlySet<string>): string {
  return PRELUDE.split("\n")
    .map((line) => {
      const imported = /^import (type )?\{ ([^}]*) \} from (.*)$/.exec(line);
      if (imported !== null) {
        const kept = imported[2]!.split(", ").filter((name) => !own.has(name));
        return kept.length === 0 ? "" : `import ${imported[1] ?? ""}{ ${kept.join(", ")} } from ${imported[3]}`;
      }
      const defaultImport = /^import (\w+) from /.exec(line);
      if (defaultImport !== null && own.has(defaultImport[1]!)) return "";
      const declared = /^declare const (.*);$/.exec(line);
      if (declared !== null) {
        const kept = declared[1]!.split(", ").filter((part) => !own.has(part.split(":")[0]!.trim()));
        return kept.length === 0 ? "" : `declare const ${kept.join(", ")};`;
      }
      return line;
    })
    .join("\n");
}

interface Example {
  readonly file: string;
  readonly line: number;
  readonly code: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** The fenced code of every `@example` tag, with its file and line. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const file of sourceFiles(join(root, "src"))) {
    const lines = readFileSync(file, "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*\*\s*@example\b/.test(lines[i]!)) continue;
      const open = lines.findIndex((line, j) => j > i && /^\s*\*\s*```/.test(line));
      const close = lines.findIndex((line, j) => j > open && /^\s*\*\s*```\s*$/.test(line));
      if (open === -1 || close === -1) continue;
      const code = lines
        .slice(open + 1, close)
        .map((line) => line.replace(/^\s*\* ?/, ""))
        .join("\n");
      found.push({ file: relative(root, file), line: i + 1, code });
    }
  }
  return found;
}

/** Each example as a module: its own imports hoisted, its statements in an async function so `await` and `return` work. */
function moduleOf(example: Example, index: number): string {
  const lines = example.code.split("\n");
  const imports = lines.filter((line) => /^import\s/.test(line));
  const body = lines.filter((line) => !/^import\s/.test(line));
  const own = new Set(imports.flatMap((line) => line.slice(0, line.lastIndexOf(" from ")).match(/\w+/g) ?? []));
  // Names the prelude declares are re-declared by many examples (`const auth = …`): the example's own win, in its function.
  return `${imports.join("\n")}\n${importsFor(example.file, own)}\n${preludeWithout(own)}\nexport async function example${index}() {\n${body.join("\n")}\n}\n`;
}

describe("the @example blocks of src", () => {
  const all = examples();

  it("are found", () => {
    expect(all.length).toBeGreaterThan(60);
  });

  it("type-check against the package's public API", () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const virtual = new Map(all.map((example, index) => [join(root, "test", "examples", `__tsdoc_example_${index}.ts`), moduleOf(example, index)]));
    const host = ts.createCompilerHost(config.options);
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    host.readFile = (name) => virtual.get(name) ?? readFile(name);
    host.fileExists = (name) => virtual.has(name) || fileExists(name);
    const program = ts.createProgram([...virtual.keys()], { ...config.options, noUnusedLocals: false, noEmit: true }, host);
    const problems: string[] = [];
    for (const [name] of virtual) {
      const index = Number(/__tsdoc_example_(\d+)\.ts$/.exec(name)![1]);
      const example = all[index]!;
      for (const diagnostic of ts.getPreEmitDiagnostics(program, program.getSourceFile(name))) {
        problems.push(`${example.file}:${example.line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
