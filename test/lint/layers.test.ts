import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// Files planted in memory at a path of src, linted by the project's own eslint.config.js.
const root = fileURLToPath(new URL("../..", import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The layer rule's messages for `code` planted at `filePath`. */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath, warnIgnored: true });
  // A file the config ignores, or cannot parse, would pass every rule: neither may happen here.
  expect(result?.messages.filter((message) => message.ruleId === null) ?? ["no result"], filePath).toEqual([]);
  return result!.messages.filter((message) => message.ruleId === "house/layers").map((message) => message.message);
}

describe("the layer lint", () => {
  it("fails an upward import: a concept importing the engine above it", async () => {
    expect(await layerErrors("src/sessions/planted.ts", `import { createEngine } from "../engine/engine.js";\nexport const planted = createEngine;\n`)).toEqual(
      ["src/sessions imports src/engine, which stands above it: imports point down."],
    );
  });

  it("fails an upward import however it is written: re-exported, lazily imported, from a nested folder", async () => {
    expect(await layerErrors("src/wire/planted.ts", `export * from "../sessions/sessions.js";\n`)).toHaveLength(1);
    expect(await layerErrors("src/engine/planted.ts", `export const planted = () => import("../express/create-session-auth-router.js");\n`)).toHaveLength(1);
    expect(await layerErrors("src/stores/redis/planted.ts", `export type { EngineOptions } from "../../options/options.js";\n`)).toHaveLength(1);
    expect(await layerErrors("src/keys/planted.ts", `export { createSessionAuthRouter } from "../index.js";\n`)).toHaveLength(1);
  });

  it("fails a binding importing another binding", async () => {
    expect(await layerErrors("src/express/planted.ts", `import { plugin } from "../fastify/plugin.js";\nexport const planted = plugin;\n`)).toEqual([
      "src/express imports src/fastify, another binding: bindings never import each other.",
    ]);
    expect(await layerErrors("src/fetch/planted.ts", `export * from "../hono/middleware.js";\n`)).toHaveLength(1);
    expect(await layerErrors("src/hono/planted.ts", `export * from "../fetch/create-session-auth-handler.js";\n`)).toHaveLength(1);
    expect(await layerErrors("src/web/planted.ts", `export * from "../hono/middleware.js";\n`)).toHaveLength(1);
    // The root is framework-neutral: it stands on no binding.
    expect(await layerErrors("src/index.ts", `export * from "./express/create-session-auth-router.js";\n`)).toHaveLength(1);
    expect(await layerErrors("src/fastify/planted.ts", `export * from "../express/request.js";\n`)).toHaveLength(1);
  });

  it("fails a framework imported anywhere but its own binding", async () => {
    expect(await layerErrors("src/sessions/planted.ts", `import { Hono } from "hono";\nexport const planted = Hono;\n`)).toEqual([
      "src/sessions imports hono: only src/hono, the hono binding, imports hono.",
    ]);
    for (const [filePath, specifier] of [
      ["src/engine/planted.ts", "express"],
      ["src/web/planted.ts", "hono/http-exception"],
      ["src/http-input/planted.ts", "@fastify/cookie"],
      ["src/fetch/planted.ts", "@hono/node-server"],
      ["src/express/planted.ts", "fastify"],
      ["src/entries/planted.ts", "express-session"],
    ]) {
      expect(
        await layerErrors(filePath!, `import type * as planted from "${specifier}";\nexport type Planted = typeof planted;\n`),
        `${specifier} in ${filePath}`,
      ).toHaveLength(1);
    }
  });

  it("fails an import from a room the house does not name", async () => {
    expect(await layerErrors("src/attic/planted.ts", `export { SessionAuthError } from "../errors.js";\n`)).toEqual([
      "src/attic has no place in the house: name it in eslint.config.js with the rooms it stands on.",
    ]);
  });

  it("passes imports that point down, and a binding importing its own framework", async () => {
    expect(
      await layerErrors(
        "src/sessions/planted.ts",
        `import { sessionCookieFor } from "../cookie/session-cookie.js";\nexport const planted = sessionCookieFor;\n`,
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        "src/hono/planted.ts",
        `import { createMiddleware } from "hono/factory";\nimport { createEngine } from "../engine/engine.js";\nimport type { Json } from "../types.js";\nexport const planted: [unknown, unknown, Json] = [createMiddleware, createEngine, null];\n`,
      ),
    ).toEqual([]);
    expect(await layerErrors("src/fastify/planted.ts", `import type { FastifyInstance } from "fastify";\nexport type Planted = FastifyInstance;\n`)).toEqual(
      [],
    );
    expect(await layerErrors("src/http-input/planted.ts", `export { Busboy } from "@fastify/busboy";\n`)).toEqual([]);
  });

  it("names every room of src: each folder, and each file at its root", async () => {
    for (const entry of readdirSync(new URL("../../src", import.meta.url), { withFileTypes: true })) {
      const [filePath, code] = entry.isDirectory()
        ? [`src/${entry.name}/planted.ts`, `export * from "./planted.js";\n`]
        : [`src/${entry.name}`, `export * from "./${entry.name.replace(/\.ts$/, ".js")}";\n`];
      expect(await layerErrors(filePath, code), filePath).toEqual([]);
    }
    expect(await layerErrors("src/attic.ts", `export * from "./attic.js";\n`)).toHaveLength(1);
  });
});
