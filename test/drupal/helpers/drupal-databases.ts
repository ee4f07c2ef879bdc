/**
 * Throw-away Drupal 7 databases on real MariaDB/MySQL and PostgreSQL servers: their own
 * database (MySQL) or schema (PostgreSQL) with a random name, dropped by `destroy`. Free of
 * the test runner, so the import benchmark makes its databases the same way.
 */
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import pg from "pg";
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

export async function createMysql(url: string): Promise<TestDrupalDb> {
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

export async function createPostgres(url: string): Promise<TestDrupalDb> {
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
      return (
        await pool.query(
          sql.replace(/\?/g, () => `$${++n}`),
          values,
        )
      ).rows as Row[];
    },
    async destroy() {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}
