/**
 * A pool over a test database that records each statement the kit sends (its SQL and the bytes
 * of its parameters), and can run a step of its own before one of them (another writer, in between).
 */
import type { Drupal7Pool, MysqlPoolLike, PgPoolLike, SqlValue } from "services-session-auth/drupal";
import type { TestDrupalDb } from "./drupal-db.js";

export function countedPool(db: TestDrupalDb) {
  const log: string[] = [];
  const bytes: number[] = [];
  let before: ((sql: string) => Promise<void> | void) | undefined;
  const note = async (sql: string, values: SqlValue[]) => {
    log.push(sql);
    bytes.push(values.reduce<number>((sum, value) => sum + (Buffer.isBuffer(value) ? value.length : String(value ?? "").length), 0));
    await before?.(sql);
  };
  const pool: Drupal7Pool =
    db.dialect === "mysql"
      ? ({
          async execute(sql: string, values: SqlValue[]) {
            await note(sql, values);
            return (db.pool as MysqlPoolLike).execute(sql, values);
          },
          getConnection: () => (db.pool as MysqlPoolLike).getConnection(),
        } satisfies MysqlPoolLike)
      : ({
          async query(sql: string, values: SqlValue[]) {
            await note(sql, values);
            return (db.pool as PgPoolLike).query(sql, values);
          },
          connect: () => (db.pool as PgPoolLike).connect(),
        } satisfies PgPoolLike);
  return {
    pool,
    /** The SQL of each statement sent, in order. */
    log,
    /** The bytes of each statement's parameters, in the same order. */
    bytes,
    reads: () => log.filter((sql) => /^SELECT\b/.test(sql)).length,
    writes: () => log.filter((sql) => !/^SELECT\b/.test(sql)).length,
    reset: () => void (log.splice(0), bytes.splice(0)),
    beforeEach: (step: typeof before) => void (before = step),
  };
}
