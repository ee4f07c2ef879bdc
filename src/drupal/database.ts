import { z } from "zod";

/**
 * The one place that talks to the app's pool (mysql2 or pg): the kit never imports a driver, so
 * neither is needed unless used; the shapes below are the few methods it calls.
 *
 * @module
 */

/** Which SQL dialect a Drupal 7 database speaks. */
export type Drupal7Dialect = "mysql" | "postgres";

/** A value the kit sends as a query parameter. */
export type SqlValue = string | number | null | Buffer;

/**
 * The part of a `mysql2/promise` pool the kit uses (`mysql2.createPool(…).promise()`, or `mysql2/promise`'s `createPool`).
 *
 * @example
 * ```ts
 * import mysql from "mysql2/promise";
 * const pool: MysqlPoolLike = mysql.createPool(process.env.DRUPAL_DB_URL!);
 * ```
 */
export interface MysqlPoolLike {
  /** Runs a prepared statement; resolves `[rows or result, fields]`. */
  execute(sql: string, values: SqlValue[]): Promise<[unknown, unknown]>;
  /** Present on mysql2 pools: how the dialect is recognised. */
  getConnection(): Promise<unknown>;
}

/**
 * The part of a `pg` `Pool` the kit uses.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * const pool: PgPoolLike = new pg.Pool({ connectionString: process.env.DRUPAL_DB_URL });
 * ```
 */
export interface PgPoolLike {
  /** Runs a parameterised query. */
  query(text: string, values: SqlValue[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** Present on pg pools: how the dialect is recognised. */
  connect(): Promise<unknown>;
}

/** A `mysql2` callback pool (`require("mysql2").createPool`): the kit uses its `.promise()` form. */
export interface MysqlCallbackPoolLike {
  /** The promise form of the same pool. */
  promise(): MysqlPoolLike;
  /** Present on mysql2 callback pools: how the dialect is recognised. */
  getConnection(callback: never): void;
}

/** A pool to a Drupal 7 database: MariaDB/MySQL through `mysql2`, or PostgreSQL through `pg`. */
export type Drupal7Pool = MysqlPoolLike | MysqlCallbackPoolLike | PgPoolLike;

/** Where the Drupal 7 tables are: shared by every reader and writer in the kit. */
export interface Drupal7DatabaseOptions {
  /** The pool. A mysql2 callback pool is accepted too and turned into its promise form. */
  pool: Drupal7Pool;
  /**
   * The dialect, when detecting it from the pool's shape is not wanted (a wrapped pool).
   * @default detected: `execute` + `getConnection` is mysql2, `connect` + `totalCount` is pg
   */
  dialect?: Drupal7Dialect;
  /**
   * settings.php's table `prefix` (`drupal_`, or a PostgreSQL schema `drupal.`): letters, digits, `_`.
   * @default ""
   */
  prefix?: string;
}

/** The parsed form of {@link Drupal7DatabaseOptions} that readers and writers share. */
export interface Drupal7Database {
  readonly dialect: Drupal7Dialect;
  /** A table name with the prefix. */
  table(name: "users" | "users_roles" | "role" | "sessions" | "system" | "variable" | "flood"): string;
  /** Runs a SELECT written with `?` placeholders; resolves its rows. */
  select<Row>(sql: string, values: SqlValue[]): Promise<Row[]>;
  /** Runs an UPDATE or DELETE written with `?` placeholders; resolves the affected row count. */
  write(sql: string, values: SqlValue[]): Promise<number>;
}

/** Zod fields for the options every factory of the kit takes. */
export const databaseOptionFields = {
  pool: z.custom<Drupal7Pool>((value) => typeof value === "object" && value !== null, "must be a mysql2 promise pool or a pg Pool"),
  dialect: z.enum(["mysql", "postgres"]).optional(),
  prefix: z
    .string()
    .regex(/^(\w+\.)?\w*$/, "only letters, digits, _ and one schema dot")
    .optional(),
};

function detect(pool: Record<string, unknown>): Drupal7Dialect | null {
  if (typeof pool.execute === "function" && typeof pool.getConnection === "function") return "mysql";
  if (typeof pool.connect === "function" && "totalCount" in pool) return "postgres";
  return null;
}

/**
 * Wraps an app's pool for the kit's queries: SQL written once with `?` placeholders (numbered
 * `$1…` for PostgreSQL), every value sent as a parameter.
 * @throws TypeError when the dialect cannot be told from the pool, or the prefix is unsafe.
 */
export function drupal7Database(options: z.output<z.ZodObject<typeof databaseOptionFields>>, factory: string): Drupal7Database {
  let pool = options.pool as unknown as Record<string, unknown>;
  // A mysql2 callback pool has .promise(); its promise wrapper is what the kit speaks to.
  if (typeof pool.promise === "function" && typeof pool.getConnection === "function") {
    pool = (pool.promise as () => Record<string, unknown>).call(pool);
  }
  const dialect = options.dialect ?? detect(pool);
  if (dialect === null) throw new TypeError(`${factory}: invalid options: pool: cannot tell mysql2 from pg; pass dialect: "mysql" or "postgres"`);
  const prefix = options.prefix ?? "";

  if (dialect === "mysql") {
    const mysql = pool as unknown as MysqlPoolLike;
    return {
      dialect,
      table: (name) => `${prefix}${name}`,
      async select<Row>(sql: string, values: SqlValue[]) {
        const [rows] = await mysql.execute(sql, values);
        return rows as Row[];
      },
      async write(sql, values) {
        const [result] = await mysql.execute(sql, values);
        return (result as { affectedRows?: number }).affectedRows ?? 0;
      },
    };
  }
  const pg = pool as unknown as PgPoolLike;
  const numbered = (sql: string): string => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    dialect,
    table: (name) => `${prefix}${name}`,
    async select<Row>(sql: string, values: SqlValue[]) {
      return (await pg.query(numbered(sql), values)).rows as Row[];
    },
    async write(sql, values) {
      return (await pg.query(numbered(sql), values)).rowCount ?? 0;
    },
  };
}
