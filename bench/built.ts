/**
 * The built package (`dist/`), which is what apps run. The sources under tsx carry
 * transpiler helpers on every closure, so measuring them would overstate the cost.
 * `npm run bench` builds first.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Core from "../src/index.js";
import type * as ExpressEntry from "../src/entries/express.js";
import type * as Redis from "../src/entries/redis.js";
import type * as Sealed from "../src/entries/sealed-cookie.js";
import type * as Drupal from "../src/entries/drupal.js";
import type * as Fastify from "../src/entries/fastify.js";
import type * as Fetch from "../src/entries/fetch.js";
import type * as HonoEntry from "../src/entries/hono.js";

const dist = resolve(import.meta.dirname, "..", "dist");
if (!existsSync(resolve(dist, "index.js"))) throw new Error("dist/ is missing: run `npm run build` first (npm run bench does)");

const load = <T>(file: string): Promise<T> => import(pathToFileURL(resolve(dist, file)).href) as Promise<T>;

export const core = await load<typeof Core>("index.js");
export const expressBinding = await load<typeof ExpressEntry>("express.js");
export const redis = await load<typeof Redis>("redis.js");
export const sealed = await load<typeof Sealed>("sealed-cookie.js");
export const drupal = await load<typeof Drupal>("drupal.js");
export const fastify = await load<typeof Fastify>("fastify.js");
export const fetchHandler = await load<typeof Fetch>("fetch.js");
export const hono = await load<typeof HonoEntry>("hono.js");
