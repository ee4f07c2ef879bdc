/* global console */
// Copied into a fresh app that installed the packed tarball and no optional peer (no framework
// either), and run there: every subpath loads in ESM and CommonJS, and a factory that needs a
// missing peer says which to install.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const subpaths = [
  "services-session-auth",
  "services-session-auth/express",
  "services-session-auth/redis",
  "services-session-auth/ioredis",
  "services-session-auth/sealed-cookie",
  "services-session-auth/drupal",
  "services-session-auth/fetch",
  "services-session-auth/fastify",
  "services-session-auth/nodemailer",
  "services-session-auth/opentelemetry",
];
for (const name of ["express", "redis", "ioredis", "iron-session", "mysql2", "pg", "fastify", "hono", "nodemailer", "@opentelemetry/api"]) {
  try {
    require.resolve(name);
    throw new Error(`${name} is installed in the app, so this check proves nothing`);
  } catch (error) {
    if (error.code !== "MODULE_NOT_FOUND") throw error;
  }
}
for (const subpath of subpaths) {
  const esm = await import(subpath);
  const cjs = require(subpath);
  if (Object.keys(esm).length === 0 || Object.keys(esm).join() !== Object.keys(cjs).join()) throw new Error(`${subpath}: ESM and CJS exports differ`);
  console.log(`${subpath}: ${Object.keys(esm).length} exports`);
}
// A factory that needs a missing optional peer is a TypeError naming the package to install.
const peers = [
  ["services-session-auth/sealed-cookie", "iron-session", (m) => m.sealedCookieStore({ password: "x".repeat(40), revocations: {} })],
  ["services-session-auth/nodemailer", "nodemailer", (m) => m.nodemailerMailer("smtp://127.0.0.1:25")],
];
for (const [subpath, peer, make] of peers) {
  const expected = `needs the optional peer dependency "${peer}", which is not installed: run \`npm install ${peer}\``;
  for (const [format, module] of [
    ["ESM", await import(subpath)],
    ["CJS", require(subpath)],
  ]) {
    let message = "no error";
    try {
      make(module);
    } catch (error) {
      message = `${error.name}: ${error.message}`;
    }
    if (!message.startsWith("TypeError: ") || !message.includes(expected)) throw new Error(`${format} ${subpath} without ${peer}: ${message}`);
    console.log(`${format}: ${message}`);
  }
}

const otelExpected = 'needs the optional peer dependency "@opentelemetry/api", which is not installed: run `npm install @opentelemetry/api`';
for (const [format, { openTelemetry }] of [
  ["ESM", await import("services-session-auth/opentelemetry")],
  ["CJS", require("services-session-auth/opentelemetry")],
]) {
  let message = "no error";
  try {
    openTelemetry();
  } catch (error) {
    message = `${error.name}: ${error.message}`;
  }
  if (!message.startsWith("TypeError: ") || !message.includes(otelExpected)) throw new Error(`${format} openTelemetry without @opentelemetry/api: ${message}`);
  console.log(`${format}: ${message}`);
}

// The Hono subpath imports Hono itself (one copy of its classes with the app's): without Hono it
// does not load, and the error names Hono.
for (const [format, load] of [
  ["ESM", () => import("services-session-auth/hono")],
  ["CJS", async () => require("services-session-auth/hono")],
]) {
  let message = "no error";
  try {
    await load();
  } catch (error) {
    message = `${error.code}: ${error.message.split("\n")[0]}`;
  }
  if (!/^(?:ERR_)?MODULE_NOT_FOUND: .*'hono['/]/.test(message)) throw new Error(`${format} services-session-auth/hono without hono: ${message}`);
  console.log(`${format}: ${message}`);
}

// Every docs/… page a .d.ts names (TSDoc links) is in the installed package, beside dist/.
{
  const { readdirSync, readFileSync, existsSync } = await import("node:fs");
  const { dirname, join } = await import("node:path");
  const root = dirname(require.resolve("services-session-auth/package.json"));
  const named = new Set();
  for (const file of readdirSync(join(root, "dist")).filter((name) => /\.d\.c?ts$/.test(name))) {
    for (const [, page] of readFileSync(join(root, "dist", file), "utf8").matchAll(/\b(docs\/[\w-]+\.md)/g)) named.add(page);
  }
  const missing = [...named].filter((page) => !existsSync(join(root, page)));
  if (named.size === 0 || missing.length > 0)
    throw new Error(`the .d.ts files name ${named.size} docs/ pages; missing from the package: ${missing.join(", ")}`);
  console.log(`the .d.ts files name ${named.size} docs/ pages, all in the package`);
}
