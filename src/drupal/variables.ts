import type { Drupal7Database } from "./database.js";
import { phpUnserialize, UNPARSEABLE, type PhpJson } from "./php-unserialize.js";

/** The named variables unserialized ({@link UNPARSEABLE} when unreadable), absent when no row; one query. */
export async function readVariables(db: Drupal7Database, names: readonly string[]): Promise<Map<string, PhpJson | typeof UNPARSEABLE>> {
  const rows = await db.select<{ name: unknown; value: unknown }>(
    `SELECT name, value FROM ${db.table("variable")} WHERE name IN (${names.map(() => "?").join(", ")})`,
    [...names],
  );
  const found = new Map<string, PhpJson | typeof UNPARSEABLE>();
  for (const { name, value } of rows) {
    found.set(String(name), Buffer.isBuffer(value) || typeof value === "string" ? phpUnserialize(value) : UNPARSEABLE);
  }
  return found;
}

/** Whether PHP's `if ($value)` takes a variable's value as true (`variable_get($name, FALSE)` for a missing one). */
export function phpTruthy(value: PhpJson | typeof UNPARSEABLE | undefined): boolean {
  if (value === undefined || value === null || value === UNPARSEABLE) return false;
  if (typeof value === "string") return value !== "" && value !== "0";
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return value !== 0 && value !== false;
}
