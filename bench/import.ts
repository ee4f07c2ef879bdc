/**
 * `npm run bench:import`: how fast `importDrupal7Sessions` (what `services-session-auth
 * drupal7 import-sessions` runs) moves Drupal 7 sessions into Redis. Seeds a throw-away
 * database (MySQL/MariaDB and/or PostgreSQL) with a `sessions` table of live rows spread
 * over many users, then imports it into Redis under a fresh prefix, a few rounds each, with
 * the Redis store's `adoptMany` and, for comparison, with `adopt` alone (the path of a store
 * without `adoptMany`, one round). Prints the median rows per second; drops everything it made.
 *
 * Options (flag or environment variable):
 *   --rows       / BENCH_ROWS        rows in `sessions` (default 200000)
 *   --users      / BENCH_USERS       distinct users they belong to (default 50000)
 *   --rounds     / BENCH_ROUNDS      imports per configuration (default 3)
 *   --batch-size / BENCH_BATCH_SIZE  importDrupal7Sessions' batchSize (default 1000)
 *   REDIS_URL (required), MYSQL_URL, POSTGRES_URL (at least one)
 */
import { createHash, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { createClient } from "redis";
import { createMysql, createPostgres, type TestDrupalDb } from "../test/drupal/helpers/drupal-databases.js";
import { drupal, redis } from "./built.js";
import type { SessionStore } from "../src/index.js";

const { values: flags } = parseArgs({
  options: { rows: { type: "string" }, users: { type: "string" }, rounds: { type: "string" }, "batch-size": { type: "string" } },
});
const rows = Number(flags.rows ?? process.env.BENCH_ROWS ?? 200_000);
const users = Math.min(rows, Number(flags.users ?? process.env.BENCH_USERS ?? 50_000));
const rounds = Number(flags.rounds ?? process.env.BENCH_ROUNDS ?? 3);
const batchSize = Number(flags["batch-size"] ?? process.env.BENCH_BATCH_SIZE ?? 1000);
const redisUrl = process.env.REDIS_URL;
if (!redisUrl) throw new Error("bench:import needs REDIS_URL (e.g. redis://127.0.0.1:6379)");

/** Inserts `count` rows a few thousand at a time, `row(i)` giving each row's values. */
async function insertMany(db: TestDrupalDb, table: string, columns: string[], count: number, row: (i: number) => unknown[]): Promise<void> {
  const chunk = 2000;
  for (let from = 0; from < count; from += chunk) {
    const size = Math.min(chunk, count - from);
    const tuple = `(${columns.map(() => "?").join(", ")})`;
    const values = Array.from({ length: size }, (_, i) => row(from + i)).flat();
    await db.run(`INSERT INTO ${db.table(table)} (${columns.join(", ")}) VALUES ${Array(size).fill(tuple).join(", ")}`, values);
  }
}

/** A Drupal 7.98+ site: active users, and hashed sids written within the last day. */
async function seed(db: TestDrupalDb): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  await db.run(`INSERT INTO ${db.table("system")} (filename, name, type, status, schema_version) VALUES (?, ?, ?, 1, ?)`, [
    "modules/system/system.module",
    "system",
    "module",
    7086,
  ]);
  await insertMany(db, "users", ["uid", "name", "pass", "mail", "status", "created"], users, (i) => [
    i + 1,
    `user${i + 1}`,
    "",
    `user${i + 1}@example.com`,
    1,
    now - 86_400 * 365,
  ]);
  await insertMany(db, "sessions", ["uid", "sid", "ssid", "hostname", "timestamp", "cache"], rows, (i) => [
    (i % users) + 1,
    createHash("sha256").update(randomBytes(32)).digest("base64url"),
    "",
    `198.51.100.${i % 250}`,
    now - (i % 86_400),
    0,
  ]);
  // As autovacuum would soon after a bulk load: without statistics the planner may sort the whole table for each page.
  if (db.dialect === "postgres") for (const table of ["users", "sessions"]) await db.run(`ANALYZE ${db.table(table)}`);
}

/** What dropKeys needs of a node-redis client: written out, so that redis 5 and 6 (whose client types differ) both fit. */
interface ScanningClient {
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[]>;
  unlink(keys: string[]): Promise<unknown>;
}

/** Deletes every key under a prefix, a batch at a time. */
async function dropKeys(client: ScanningClient, prefix: string): Promise<void> {
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.unlink(keys);
}

/** The Redis store with `adoptMany` hidden: what the import does with a store that only has `adopt`. */
function adoptOnly(store: SessionStore): SessionStore {
  const { adoptMany: _hidden, ...rest } = store;
  return rest;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const format = (n: number) => Math.round(n).toLocaleString("en-US");

const client = await createClient({ url: redisUrl }).connect();
const targets = [
  { url: process.env.MYSQL_URL, make: createMysql, label: "MySQL/MariaDB" },
  { url: process.env.POSTGRES_URL, make: createPostgres, label: "PostgreSQL" },
].filter((target) => target.url);
if (targets.length === 0) throw new Error("bench:import needs MYSQL_URL or POSTGRES_URL");

console.log(`importDrupal7Sessions: ${format(rows)} live rows of ${format(users)} users into Redis, batchSize ${batchSize}, median of ${rounds} rounds`);
try {
  for (const target of targets) {
    const db = await target.make(target.url!);
    try {
      const seeding = performance.now();
      await seed(db);
      console.log(`${target.label}: seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
      for (const mode of ["adoptMany", "adopt"] as const) {
        const rates: number[] = [];
        // The slow path once: it is there for comparison, not to be tracked.
        for (let round = 0; round < (mode === "adoptMany" ? rounds : 1); round++) {
          const prefix = `ssa-bench-${randomBytes(4).toString("hex")}:`;
          const store = redis.redisSessionStore({ client, prefix });
          const started = performance.now();
          const result = await drupal.importDrupal7Sessions({
            pool: db.pool,
            prefix: db.prefix,
            into: mode === "adoptMany" ? store : adoptOnly(store),
            batchSize,
          });
          const seconds = (performance.now() - started) / 1000;
          if (result.imported !== rows) throw new Error(`imported ${result.imported} of ${rows} rows`);
          rates.push(rows / seconds);
          await dropKeys(client, prefix);
        }
        console.log(`${target.label} → Redis, ${mode.padEnd(9)}: ${format(median(rates)).padStart(8)} rows/s  (rounds: ${rates.map(format).join(", ")})`);
      }
    } finally {
      await db.destroy();
    }
  }
} finally {
  await client.close();
}
