import { z } from "zod";
import { databaseOptionFields, drupal7Database, type Drupal7Database } from "../drupal/database.js";
import { lowerNameIndex, readNameColumn } from "../drupal/name-column.js";
import { connectionOptions, connectionUrl, DATABASE, openDatabase } from "./connections.js";
import { parseOptions } from "../validate.js";
import { parallelRunFindings } from "./parallel-run-check.js";
import { parse, UsageError, type Io } from "./usage.js";

/** What to run when PostgreSQL has no index for the name lookup, with the table's prefix. */
export function lowerNameIndexSql(users: string): string {
  const name = `${users.replace(/^.*\./, "")}_name_lower`;
  return `CREATE INDEX ${name} ON ${users} (LOWER(name));`;
}

/** `drupal7 check`: how `drupal7UserStore` will find names (a missing PostgreSQL `LOWER(name)` index, with its fix); exit 0 fine, 1 a problem. */
export async function checkCommand(args: readonly string[], io: Io, secrets: string[]): Promise<number> {
  const { values } = parse(args, { ...connectionOptions(DATABASE), "table-prefix": { type: "string" }, "parallel-run": { type: "boolean" } }, 0);
  const url = connectionUrl(DATABASE, values, io, secrets, "drupal7 check");
  const prefix = values["table-prefix"];
  if (prefix !== undefined && !databaseOptionFields.prefix.safeParse(prefix).success)
    throw new UsageError(`--table-prefix takes letters, digits, _ and one schema dot, not ${prefix}`);
  const database = await openDatabase(url);
  try {
    const db = drupal7Database(parseOptions(z.strictObject(databaseOptionFields), { pool: database.pool, prefix }, "drupal7 check"), "drupal7 check");
    let code = await nameLookup(db, io);
    if (values["parallel-run"] === true) {
      for (const { level, text } of await parallelRunFindings(db)) {
        if (level === "problem") code = 1;
        (level === "problem" ? io.stderr : io.stdout).write(`${level === "problem" ? "services-session-auth: problem" : level}: ${text}\n`);
      }
    }
    return code;
  } finally {
    await database.close();
  }
}

/** How logins will find names: the check without options. Resolves 0, or 1 for a problem. */
async function nameLookup(db: Drupal7Database, io: Io): Promise<number> {
  const users = db.table("users");
  if (db.dialect === "mysql") {
    const column = await readNameColumn(db, users);
    io.stdout.write(
      `ok: ${users}.name compares as ${column.collation}${column.padSpace ? " (trailing spaces ignored)" : ""}; ` +
        `logins find names by Drupal's unique key on it, and count failures per name as that collation compares names.\n`,
    );
    return 0;
  }
  const index = await lowerNameIndex(db, users);
  if (index !== null) {
    io.stdout.write(`ok: logins find names in ${users} by the index ${index} on LOWER(name).\n`);
    return 0;
  }
  io.stderr.write(
    `services-session-auth: warning: ${users} has no index on LOWER(name). drupal7UserStore looks names up with ` +
      `LOWER(name) = LOWER(?), which Drupal's unique key on name cannot serve: every login reads the whole table ` +
      `(about 40 ms a login at 200,000 users). Create the index once, before the cut-over:\n\n  ${lowerNameIndexSql(users)}\n`,
  );
  return 1;
}
