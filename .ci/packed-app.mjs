/* global console */
// Copied into a fresh app that installed the packed tarball and no optional peer (no framework
// either), and run there: every subpath loads in ESM and CommonJS, and a factory that needs a
// missing peer says which to install.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const subpaths = [
  "services-session-auth",
  "services-session-auth/redis",
  "services-session-auth/ioredis",
  "services-session-auth/sealed-cookie",
  "services-session-auth/drupal",
  "services-session-auth/fetch",
  "services-session-auth/fastify",
  "services-session-auth/nodemailer",
];
for (const name of ["express", "redis", "ioredis", "iron-session", "mysql2", "pg", "fastify", "hono", "nodemailer"]) {
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
const expected = 'needs the optional peer dependency "iron-session", which is not installed: run `npm install iron-session`';
for (const [format, { sealedCookieStore }] of [
  ["ESM", await import("services-session-auth/sealed-cookie")],
  ["CJS", require("services-session-auth/sealed-cookie")],
]) {
  let message = "no error";
  try {
    sealedCookieStore({ password: "x".repeat(40), revocations: {} });
  } catch (error) {
    message = `${error.name}: ${error.message}`;
  }
  if (!message.startsWith("TypeError: ") || !message.includes(expected)) throw new Error(`${format} sealedCookieStore without iron-session: ${message}`);
  console.log(`${format}: ${message}`);
}

const mailerExpected = 'needs the optional peer dependency "nodemailer", which is not installed: run `npm install nodemailer`';
for (const [format, { nodemailerMailer }] of [
  ["ESM", await import("services-session-auth/nodemailer")],
  ["CJS", require("services-session-auth/nodemailer")],
]) {
  let message = "no error";
  try {
    nodemailerMailer("smtp://127.0.0.1:25");
  } catch (error) {
    message = `${error.name}: ${error.message}`;
  }
  if (!message.startsWith("TypeError: ") || !message.includes(mailerExpected)) throw new Error(`${format} nodemailerMailer without nodemailer: ${message}`);
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
