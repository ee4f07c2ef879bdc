/**
 * A throw-away Drupal 7 database for the kit's tests, on the real MariaDB/MySQL and
 * PostgreSQL servers named by MYSQL_URL and POSTGRES_URL. Each suite gets its own
 * database (MySQL) or schema (PostgreSQL) with a random name, dropped afterwards. Without
 * the variable, the suite is one visible skipped test and a console warning.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Drupal7Dialect } from "../../../src/drupal/index.js";
import { createMysql, createPostgres, type TestDrupalDb } from "./drupal-databases.js";

export type { TestDrupalDb } from "./drupal-databases.js";

const TARGETS: ReadonlyArray<{ dialect: Drupal7Dialect; env: "MYSQL_URL" | "POSTGRES_URL" }> = [
  { dialect: "mysql", env: "MYSQL_URL" },
  { dialect: "postgres", env: "POSTGRES_URL" },
];

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
