import type { Drupal7Dialect, SqlValue } from "./database.js";

/** One connection in a transaction: statements written with `?` placeholders, as the kit's queries are. */
export interface Drupal7Transaction {
  readonly dialect: Drupal7Dialect;
  select<Row>(sql: string, values: SqlValue[]): Promise<Row[]>;
  /** Runs an INSERT, UPDATE or DELETE; resolves the affected rows and, on MySQL, the insert id. */
  write(sql: string, values: SqlValue[]): Promise<{ readonly rows: number; readonly insertId: number }>;
}

interface MysqlConnection {
  execute(sql: string, values: SqlValue[]): Promise<[unknown, unknown]>;
  query(sql: string): Promise<unknown>;
  release(): void;
}

interface PgClient {
  query(text: string, values?: SqlValue[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
}

/** MySQL's and MariaDB's error numbers for a deadlock and a lock wait that ran out: the transaction is to be run again. */
const RETRIED_MYSQL = new Set([1213, 1205]);

/** Whether an error is a deadlock a second run of the transaction would not meet (PostgreSQL: 40P01, 40001). */
function isDeadlock(error: unknown): boolean {
  const { errno, code } = (error ?? {}) as { errno?: unknown; code?: unknown };
  return (typeof errno === "number" && RETRIED_MYSQL.has(errno)) || code === "40P01" || code === "40001";
}

/** How many times a transaction a deadlock ended is run, at most. */
const ATTEMPTS = 5;

/**
 * Runs `work` in one transaction on a connection of its own from the app's pool (mysql2 or pg),
 * committed when it resolves and rolled back when it throws; a deadlock runs it again after a
 * short random wait (five runs at most). On MySQL, `lock` names a lock the transaction holds
 * throughout (`GET_LOCK`), so this package's writers queue instead of deadlocking one another.
 */
export async function inTransaction<T>(pool: unknown, dialect: Drupal7Dialect, work: (tx: Drupal7Transaction) => Promise<T>, lock?: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return dialect === "mysql" ? await mysqlTransaction(pool, work, lock) : await pgTransaction(pool, work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isDeadlock(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

/** How long a writer waits for the lock before its call fails, in seconds. */
const LOCK_WAIT = 10;

async function mysqlTransaction<T>(pool: unknown, work: (tx: Drupal7Transaction) => Promise<T>, lock: string | undefined): Promise<T> {
  let promisePool = pool as { getConnection(): Promise<MysqlConnection>; promise?: () => unknown };
  // A mysql2 callback pool: its promise form.
  if (typeof promisePool.promise === "function") promisePool = promisePool.promise() as typeof promisePool;
  const connection = await promisePool.getConnection();
  let locked = false;
  try {
    if (lock !== undefined) {
      const [[row]] = (await connection.execute("SELECT GET_LOCK(?, ?) AS got", [lock, LOCK_WAIT])) as [Array<{ got: unknown }>, unknown];
      if (Number(row?.got) !== 1) throw new Error(`drupal7UserStore: waited ${LOCK_WAIT} s for the lock "${lock}"`);
      locked = true;
    }
    // Locking reads lock the gaps a missing mail would go in: REPEATABLE READ, whatever the server's default.
    await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    await connection.query("START TRANSACTION");
    try {
      const result = await work({
        dialect: "mysql",
        async select<Row>(sql: string, values: SqlValue[]) {
          return (await connection.execute(sql, values))[0] as Row[];
        },
        async write(sql, values) {
          const [result] = await connection.execute(sql, values);
          const { affectedRows = 0, insertId = 0 } = result as { affectedRows?: number; insertId?: number };
          return { rows: affectedRows, insertId };
        },
      });
      await connection.query("COMMIT");
      return result;
    } catch (error) {
      await connection.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    // A session-level lock outlives the transaction: given back before the connection is.
    if (locked) await connection.execute("SELECT RELEASE_LOCK(?)", [lock!]).catch(() => undefined);
    connection.release();
  }
}

async function pgTransaction<T>(pool: unknown, work: (tx: Drupal7Transaction) => Promise<T>): Promise<T> {
  const client = await (pool as { connect(): Promise<PgClient> }).connect();
  const numbered = (sql: string): string => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    try {
      const result = await work({
        dialect: "postgres",
        async select<Row>(sql: string, values: SqlValue[]) {
          return (await client.query(numbered(sql), values)).rows as Row[];
        },
        async write(sql, values) {
          return { rows: (await client.query(numbered(sql), values)).rowCount ?? 0, insertId: 0 };
        },
      });
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
      throw error;
    }
  } finally {
    // A connection whose rollback failed is not given back to the pool.
    client.release(broken ?? false);
  }
}
