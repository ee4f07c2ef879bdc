/**
 * A throw-away Drupal 7 database for the kit's tests, on the real MariaDB/MySQL and
 * PostgreSQL servers named by MYSQL_URL and POSTGRES_URL. Each suite gets its own
 * database (MySQL) or schema (PostgreSQL) with a random name, dropped afterwards. Without
 * the variable, the suite is one visible skipped test and a console warning.
 */
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Drupal7Dialect, Drupal7Pool } from "../../../src/drupal/index.js";
import { mysqlSchema, postgresSchema } from "./drupal-schema.js";

export interface TestDrupalDb {
  readonly dialect: Drupal7Dialect;
  readonly pool: Drupal7Pool;
  /** The table prefix the kit must be given (a schema name on PostgreSQL). */
  readonly prefix: string;
  /** A connection URL on which the tables need no prefix: the database itself, or the schema as search_path. */
  readonly url: string;
  /** Runs SQL written with `?` placeholders, for seeding and assertions; resolves the rows. */
  run<Row = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<Row[]>;
  /** A table name with the prefix. */
  table(name: string): string;
  destroy(): Promise<void>;
}

const TARGETS: ReadonlyArray<{ dialect: Drupal7Dialect; env: "MYSQL_URL" | "POSTGRES_URL" }> = [
  { dialect: "mysql", env: "MYSQL_URL" },
  { dialect: "postgres", env: "POSTGRES_URL" },
];

/** Polls until the server answers, instead of sleeping a guessed time. */
async function waitUntilReady(ping: () => Promise<unknown>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} did not answer within 30 s`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function createMysql(url: string): Promise<TestDrupalDb> {
  const parsed = new URL(url);
  const config = {
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
  const name = `ssa_test_${randomBytes(6).toString("hex")}`;
  const admin = mysql.createPool({ ...config, database: parsed.pathname.slice(1) || undefined, connectionLimit: 1 });
  await waitUntilReady(() => admin.query("SELECT 1"), `MySQL at ${parsed.host}`);
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  const pool = mysql.createPool({ ...config, database: name, connectionLimit: 4 });
  for (const statement of mysqlSchema("")) await pool.query(statement);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    dialect: "mysql",
    pool,
    prefix: "",
    url: own.href,
    table: (table) => table,
    async run<Row>(sql: string, values: unknown[] = []) {
      const [rows] = await pool.query(sql, values);
      return (Array.isArray(rows) ? rows : []) as Row[];
    },
    async destroy() {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}

async function createPostgres(url: string): Promise<TestDrupalDb> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  await waitUntilReady(() => pool.query("SELECT 1"), "PostgreSQL");
  const schema = `ssa_test_${randomBytes(6).toString("hex")}`;
  const prefix = `${schema}.`;
  await pool.query(`CREATE SCHEMA ${schema}`);
  for (const statement of postgresSchema(prefix)) await pool.query(statement);
  const own = new URL(url);
  own.searchParams.set("options", `-c search_path=${schema}`);
  return {
    dialect: "postgres",
    pool,
    prefix,
    url: own.href,
    table: (table) => `${prefix}${table}`,
    async run<Row>(sql: string, values: unknown[] = []) {
      let n = 0;
      return (await pool.query(sql.replace(/\?/g, () => `$${++n}`), values)).rows as Row[];
    },
    async destroy() {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

/**
 * Runs `body` once per database whose URL is set, each against a fresh Drupal 7 schema.
 * For a missing URL it registers a skipped test that says why, and warns on the console.
 */
export function describeEachDrupalDb(title: string, body: (db: () => TestDrupalDb, dialect: Drupal7Dialect) => void): void {
  for (const { dialect, env } of TARGETS) {
    const url = process.env[env];
    describe(`${title} on ${dialect}`, () => {
      if (url === undefined || url === "") {
        console.warn(`${env} not set: skipping "${title}" on ${dialect}`);
        it.skip(`${env} not set: "${title}" needs a real ${dialect} server`, () => {});
        return;
      }
      let db: TestDrupalDb | undefined;
      beforeAll(async () => {
        db = dialect === "mysql" ? await createMysql(url) : await createPostgres(url);
      });
      afterAll(async () => {
        await db?.destroy();
      });
      body(() => {
        if (db === undefined) throw new Error("the test database was not created");
        return db;
      }, dialect);
    });
  }
}
