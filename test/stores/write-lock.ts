/** A lock on a throw-away Drupal database's `sessions` table that blocks writes and lets reads through (never on a shared table). */
import mysql from "mysql2/promise";
import pg from "pg";
import type { TestDrupalDb } from "../drupal/helpers/drupal-databases.js";

/** Takes the lock on a connection of its own (MySQL `LOCK TABLES … READ`, PostgreSQL `SHARE` mode); resolves its release. */
export async function lockWrites(db: TestDrupalDb): Promise<() => Promise<void>> {
  if (db.dialect === "mysql") {
    const connection = await mysql.createConnection(db.url);
    await connection.query(`LOCK TABLES ${db.table("sessions")} READ`);
    return async () => {
      await connection.query("UNLOCK TABLES");
      await connection.end();
    };
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(`LOCK TABLE ${db.table("sessions")} IN SHARE MODE`);
  return async () => {
    await client.query("COMMIT");
    await client.end();
  };
}
