import { phpSerialize } from "./php-serialize.js";
import type { UserListCondition, UserListQuery, UserListRow, UserRecord } from "../types.js";

/** Drupal 7's `users` columns, in the table's order (a fresh 7.83+ install: `changed` after `created`). */
export const USERS_COLUMNS: readonly string[] = Object.freeze([
  "uid",
  "name",
  "pass",
  "mail",
  "theme",
  "signature",
  "signature_format",
  "created",
  "changed",
  "access",
  "login",
  "status",
  "timezone",
  "language",
  "picture",
  "init",
  "data",
]);

const KNOWN: ReadonlySet<string> = new Set(USERS_COLUMNS);

/** Whether a name is one of Drupal's `users` columns. */
export function isUsersColumn(name: string): boolean {
  return KNOWN.has(name);
}

/** A value as PDO's `ATTR_STRINGIFY_FETCHES` gives it: a string, or null. */
function pdoString(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "object") return null;
  return String(value);
}

/**
 * An account as a row of Drupal's `users` table (what the user index reads raw): every value a
 * string or null, `data` serialized as PHP does (an account whose record has no `data` has `NULL`,
 * as one Drupal's registration made and never saved again).
 */
export function usersRowOf(user: UserRecord): UserListRow {
  const fields = user.fields ?? {};
  const own = (key: string, fallback: unknown): unknown => (Object.hasOwn(fields, key) ? fields[key] : fallback);
  const row: Record<string, string | null> = {
    uid: user.uid,
    name: user.name,
    pass: user.passwordHash,
    mail: pdoString(own("mail", user.mail)),
    theme: pdoString(own("theme", "")),
    signature: pdoString(own("signature", "")),
    signature_format: pdoString(own("signature_format", null)),
    created: String(user.created),
    changed: pdoString(own("changed", user.created)),
    access: String(user.access),
    login: String(user.login),
    status: user.active ? "1" : "0",
    timezone: pdoString(own("timezone", null)),
    language: pdoString(own("language", "")),
    picture: pdoString(own("picture", "0")) ?? "0",
    init: pdoString(own("init", user.mail)),
    data: fields.data === undefined || fields.data === null ? null : phpSerialize(fields.data),
  };
  return row;
}

/** Whether a row meets one condition of the index, compared as strings (numbers as numbers). */
function meets(row: UserListRow, condition: UserListCondition): boolean {
  const value = row[condition.column] ?? null;
  const compare = (other: string): number => {
    if (value === null) return Number.NaN;
    const a = Number(value);
    const b = Number(other);
    if (value.trim() !== "" && other.trim() !== "" && Number.isFinite(a) && Number.isFinite(b)) return a - b;
    const left = value.toLowerCase();
    const right = other.toLowerCase();
    return left < right ? -1 : left > right ? 1 : 0;
  };
  const first = condition.values[0] ?? "";
  switch (condition.operator) {
    case "IN":
      return condition.values.some((other) => compare(other) === 0);
    case "NOT IN":
      return value !== null && condition.values.every((other) => compare(other) !== 0);
    case "=":
      return compare(first) === 0;
    case "<>":
      return value !== null && compare(first) !== 0;
    case "<":
      return compare(first) < 0;
    case "<=":
      return compare(first) <= 0;
    case ">":
      return compare(first) > 0;
    case ">=":
      return compare(first) >= 0;
    case "LIKE":
    case "NOT LIKE": {
      const matches = value !== null && likeMatches(value, first);
      return condition.operator === "LIKE" ? matches : value !== null && !matches;
    }
  }
}

/** SQL `LIKE` (`%`, `_`, `\` escapes), case-insensitive as Drupal's usual collations compare; linear, no regex. */
function likeMatches(text: string, pattern: string): boolean {
  const t = [...text.toLowerCase()];
  const p: Array<{ kind: "any" | "one" | "char"; char?: string }> = [];
  const chars = [...pattern.toLowerCase()];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === "\\" && i + 1 < chars.length) p.push({ kind: "char", char: chars[++i]! });
    else if (char === "%") p.push({ kind: "any" });
    else if (char === "_") p.push({ kind: "one" });
    else p.push({ kind: "char", char });
  }
  // Greedy with one backtrack point per `%`: O(text × pattern) at worst.
  let ti = 0;
  let pi = 0;
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    const step = p[pi];
    if (step !== undefined && (step.kind === "one" || (step.kind === "char" && step.char === t[ti]))) {
      ti += 1;
      pi += 1;
    } else if (step?.kind === "any") {
      star = pi++;
      mark = ti;
    } else if (star !== -1) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (p[pi]?.kind === "any") pi += 1;
  return pi === p.length;
}

/** The user index over rows held in memory, as the SQL query would answer it (conditions, order, range, columns). */
export function queryRows(rows: readonly UserListRow[], query: UserListQuery): UserListRow[] {
  const matching = rows.filter((row) => query.conditions.every((condition) => meets(row, condition)));
  const sorted = [...matching].sort((a, b) => {
    for (const { column, direction } of query.orderBy) {
      const order = compareColumn(a[column] ?? null, b[column] ?? null);
      if (order !== 0) return direction === "DESC" ? -order : order;
    }
    // Ties in the table's order, as the primary key reads them.
    return Number(a.uid) - Number(b.uid);
  });
  const page = sorted.slice(query.offset, query.offset + query.limit);
  if (query.fields.length === 0) return page;
  return page.map((row) => Object.fromEntries(query.fields.map((field) => [field, row[field] ?? null])));
}

function compareColumn(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const x = Number(a);
  const y = Number(b);
  if (a.trim() !== "" && b.trim() !== "" && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0;
}
