import type { Drupal7Database } from "./database.js";

/** How MySQL compares `users.name`, read from information_schema. */
export interface NameColumn {
  readonly charset: string;
  readonly collation: string;
  /** PAD SPACE (every collation before MySQL 8's `_0900_` ones and MariaDB's `_nopad_`): trailing spaces are ignored. */
  readonly padSpace: boolean;
}

/** A column value as text: mysql2 may hand information_schema's strings back as buffers. */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return Buffer.isBuffer(value) ? value.toString("utf8") : String(value);
}

/**
 * The charset and collation of `users.name` on MySQL/MariaDB, and whether trailing spaces count (`_nopad_`).
 * @throws Error when information_schema does not show the column (no such table, or no right to see it).
 */
export async function readNameColumn(db: Drupal7Database, users: string): Promise<NameColumn> {
  // A prefix with a dot names another database: "drupal.users".
  const dot = users.indexOf(".");
  const [schema, table] = dot === -1 ? [null, users] : [users.slice(0, dot), users.slice(dot + 1)];
  const [row] = await db.select<{ charset: unknown; collation: unknown }>(
    "SELECT CHARACTER_SET_NAME AS charset, COLLATION_NAME AS collation FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND COLUMN_NAME = 'name'",
    [schema, table],
  );
  const charset = text(row?.charset);
  const collation = text(row?.collation);
  // Both go into SQL text: only a plain identifier is taken.
  if (charset === null || collation === null || !/^\w+$/.test(charset) || !/^\w+$/.test(collation)) {
    throw new Error(`drupal7UserStore: cannot read the collation of ${users}.name from information_schema`);
  }
  const [pad] = await db.select<{ pad: unknown }>(
    `SELECT CONVERT('a' USING ${charset}) COLLATE ${collation} = CONVERT('a ' USING ${charset}) COLLATE ${collation} AS pad`,
    [],
  );
  return { charset, collation, padSpace: Number(pad?.pad) === 1 };
}

/** An index whose first key is `lower(name)`, as PostgreSQL writes it back (`lower((name)::text)`), by btree or hash. */
const LOWER_NAME_INDEX = /\bUSING (?:btree|hash) \(lower\((?:name|\(name\)::(?:text|character varying))\)[\s,)]/i;

/**
 * A valid, non-partial PostgreSQL index serving `LOWER(name) = LOWER(?)`, or `null`: then every
 * login scans `users` (Drupal's unique key on `name` cannot serve it).
 * @throws Error when the table does not exist.
 */
export async function lowerNameIndex(db: Drupal7Database, users: string): Promise<string | null> {
  const [table] = await db.select<{ present: unknown }>("SELECT to_regclass(?) IS NOT NULL AS present", [users]);
  if (table?.present !== true) throw new Error(`there is no table ${users}`);
  const indexes = await db.select<{ name: string; def: string }>(
    "SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass(?) AND i.indpred IS NULL AND i.indisvalid ORDER BY c.relname",
    [users],
  );
  return indexes.find((index) => LOWER_NAME_INDEX.test(index.def))?.name ?? null;
}
