import { z } from "zod";
import { databaseOptionFields, drupal7Database, type Drupal7Database } from "../drupal/database.js";
import { lowerNameIndex, readNameColumn } from "../drupal/name-column.js";
import { connectionOptions, connectionUrl, DATABASE, openDatabase } from "./connections.js";
import { parseOptions } from "../validate.js";
import { parallelRunFindings, siteFindings, UNSEEN_SETTINGS, type Finding } from "./parallel-run-check.js";
import { parse, UsageError, type Io } from "./usage.js";

/** What to run when PostgreSQL has no index for the name lookup, with the table's prefix. */
export function lowerNameIndexSql(users: string): string {
  const name = `${users.replace(/^.*\./, "")}_name_lower`;
  return `CREATE INDEX ${name} ON ${users} (LOWER(name));`;
}

/**
 * `drupal7 check`: how `drupal7UserStore` will find names (a missing PostgreSQL `LOWER(name)` index
 * is a warning, with its fix), what the database says of session ids and the password cost, with
 * `--parallel-run` what sharing sessions with the live site needs, and what settings.php decides
 * that no query can see. Exit 0, or 1 for a problem: warnings and notes never change it.
 */
export async function checkCommand(args: readonly string[], io: Io, secrets: string[]): Promise<number> {
  const { values } = parse(args, { ...connectionOptions(DATABASE), "table-prefix": { type: "string" }, "parallel-run": { type: "boolean" } }, 0);
  const url = connectionUrl(DATABASE, values, io, secrets, "drupal7 check");
  const prefix = values["table-prefix"];
  if (prefix !== undefined && !databaseOptionFields.prefix.safeParse(prefix).success)
    throw new UsageError(`--table-prefix takes letters, digits, _ and one schema dot, not ${prefix}`);
  const database = await openDatabase(url);
  try {
    const db = drupal7Database(parseOptions(z.strictObject(databaseOptionFields), { pool: database.pool, prefix }, "drupal7 check"), "drupal7 check");
    const findings = [await nameLookup(db), ...(await siteFindings(db)), ...(values["parallel-run"] === true ? await parallelRunFindings(db) : [])];
    for (const { level, text } of findings) {
      if (level === "ok" || level === "note") io.stdout.write(`${level}: ${text}\n`);
      else io.stderr.write(`services-session-auth: ${level}: ${text}\n`);
    }
    io.stdout.write(`\nnot in the database (settings.php), to confirm by hand:\n${UNSEEN_SETTINGS.map((line) => `  - ${line}\n`).join("")}`);
    return findings.some((finding) => finding.level === "problem") ? 1 : 0;
  } finally {
    await database.close();
  }
}

/** How logins will find names: on PostgreSQL without an index on `LOWER(name)`, a warning with the statement that makes one. */
async function nameLookup(db: Drupal7Database): Promise<Finding> {
  const users = db.table("users");
  if (db.dialect === "mysql") {
    const column = await readNameColumn(db, users);
    return {
      level: "ok",
      text:
        `${users}.name compares as ${column.collation}${column.padSpace ? " (trailing spaces ignored)" : ""}; ` +
        "logins find names by Drupal's unique key on it, and count failures per name as that collation compares names.",
    };
  }
  const index = await lowerNameIndex(db, users);
  if (index !== null) return { level: "ok", text: `logins find names in ${users} by the index ${index} on LOWER(name).` };
  return {
    level: "warning",
    text:
      `${users} has no index on LOWER(name). drupal7UserStore looks names up with LOWER(name) = LOWER(?), which Drupal's unique key on name cannot serve: ` +
      `every login reads the whole table (about 40 ms a login at 200,000 users). Create the index once, before the cut-over:\n\n  ${lowerNameIndexSql(users)}\n`,
  };
}
