import { z } from "zod";
import { QueryGate, type Driver, type QueryKind } from "./query-gate.js";

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
  /**
   * Seconds a query of the kit may take, from when it is asked: one that cannot start in time is
   * refused at once, one not started by then never is, one still running is ended on the server
   * (at twice this while the database answers others). Keep it at the router's `storeTimeout`.
   * @default 2
   */
  queryTimeout?: number;
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
  queryTimeout: z.number().min(0.01, "is in seconds (at least 0.01)").max(60, "is in seconds (at most 60)").optional(),
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

  const timeoutMs = (options.queryTimeout ?? DEFAULT_QUERY_TIMEOUT) * 1000;
  const gate = gateOf(pool, dialect);
  if (dialect === "mysql") {
    const mysql = pool as unknown as MysqlPoolLike;
    const execute =
      gate === undefined
        ? (sql: string, values: SqlValue[]) => mysql.execute(sql, values)
        : (sql: string, values: SqlValue[], kind: QueryKind) => gate.run(kind, sql, values, timeoutMs) as Promise<[unknown, unknown]>;
    return {
      dialect,
      table: (name) => `${prefix}${name}`,
      async select<Row>(sql: string, values: SqlValue[]) {
        const [rows] = await execute(sql, values, "read");
        return rows as Row[];
      },
      async write(sql, values) {
        const [result] = await execute(sql, values, "write");
        return (result as { affectedRows?: number }).affectedRows ?? 0;
      },
    };
  }
  const pg = pool as unknown as PgPoolLike;
  const numbered = (sql: string): string => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const query =
    gate === undefined
      ? (sql: string, values: SqlValue[]) => pg.query(numbered(sql), values)
      : (sql: string, values: SqlValue[], kind: QueryKind) => gate.run(kind, numbered(sql), values, timeoutMs) as ReturnType<PgPoolLike["query"]>;
  return {
    dialect,
    table: (name) => `${prefix}${name}`,
    async select<Row>(sql: string, values: SqlValue[]) {
      return (await query(sql, values, "read")).rows as Row[];
    },
    async write(sql, values) {
      return (await query(sql, values, "write")).rowCount ?? 0;
    },
  };
}

/** The router's default `storeTimeout`, in seconds: the kit's queries take as long. */
const DEFAULT_QUERY_TIMEOUT = 2;

const gates = new WeakMap<object, QueryGate>();

/** The gate of a pool, one per pool whatever the number of stores over it; none for a pool that cannot lend a connection (a wrapper). */
function gateOf(pool: Record<string, unknown>, dialect: Drupal7Dialect): QueryGate | undefined {
  const known = gates.get(pool);
  if (known !== undefined) return known;
  const driver = dialect === "mysql" ? mysqlDriver(pool) : pgDriver(pool);
  if (driver === undefined) return undefined;
  const gate = new QueryGate(driver);
  gates.set(pool, gate);
  return gate;
}

/** A mysql2 promise pool's connection as the gate uses it. */
interface MysqlConnection {
  readonly connection: object & { readonly threadId?: number };
  execute(options: { sql: string; timeout: number }, values: SqlValue[]): Promise<[unknown, unknown]>;
  release(): void;
  destroy(): void;
}

function mysqlDriver(pool: Record<string, unknown>): Driver | undefined {
  const core = pool.pool as { config?: { connectionLimit?: number }; on?: (event: string, listener: (raw: object) => void) => void } | undefined;
  if (typeof pool.getConnection !== "function" || typeof pool.query !== "function" || core?.on === undefined) return undefined;
  const promisePool = pool as unknown as { getConnection(): Promise<MysqlConnection>; query(sql: string, values: unknown[]): Promise<unknown> };
  return {
    capacity: core.config?.connectionLimit ?? 10,
    async checkout() {
      const connection = await promisePool.getConnection();
      return {
        raw: connection.connection,
        serverId: connection.connection.threadId,
        // mysql2's own timeout too: past it the driver gives up on the statement as well.
        run: (sql, values, timeoutMs) => connection.execute({ sql, timeout: Math.max(1, Math.round(timeoutMs)) }, values as SqlValue[]),
        release: (broken) => (broken ? connection.destroy() : connection.release()),
      };
    },
    end: (serverId) => promisePool.query("KILL ?", [serverId]),
    onConnection: (seen) => core.on!("connection", seen),
    // mysql2 marks the errors after which a connection is unusable; its own timeout leaves the statement running on it.
    broken: (error) => (error as { fatal?: unknown }).fatal === true || (error as { code?: unknown }).code === "PROTOCOL_SEQUENCE_TIMEOUT",
  };
}

/** A pg pool's client as the gate uses it. */
interface PgClient {
  readonly processID?: number | null;
  query(config: { text: string; values: SqlValue[]; query_timeout: number }): Promise<{ rows: unknown[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
}

function pgDriver(pool: Record<string, unknown>): Driver | undefined {
  if (typeof pool.connect !== "function" || typeof pool.on !== "function") return undefined;
  const pgPool = pool as unknown as {
    options?: { max?: number };
    connect(): Promise<PgClient>;
    query(sql: string, values: unknown[]): Promise<unknown>;
    on(event: "connect", listener: (raw: object) => void): void;
  };
  return {
    capacity: pgPool.options?.max ?? 10,
    async checkout() {
      const client = await pgPool.connect();
      return {
        raw: client,
        serverId: client.processID ?? undefined,
        // pg's own timeout too: past it the driver gives up on the query as well.
        run: (text, values, timeoutMs) => client.query({ text, values: values as SqlValue[], query_timeout: Math.max(1, Math.round(timeoutMs)) }),
        // A truthy argument makes pg-pool close the client instead of keeping it.
        release: (broken) => client.release(broken),
      };
    },
    end: (serverId) => pgPool.query("SELECT pg_terminate_backend($1)", [serverId]),
    onConnection: (seen) => pgPool.on("connect", seen),
    // An error the server sent (it has a severity) leaves the connection usable; any other does not.
    broken: (error) => typeof (error as { severity?: unknown }).severity !== "string",
  };
}

/** `sessions.sid = ?` comparing bytes: MySQL's usual collation ignores case. */
export function sidEquals(db: Drupal7Database, column: string): string {
  return db.dialect === "mysql" ? `${column} = CAST(? AS BINARY)` : `${column} = ?`;
}
