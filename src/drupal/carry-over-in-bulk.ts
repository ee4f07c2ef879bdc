import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { parseOptions } from "../validate.js";
import type { SessionStore, StoredSession } from "../types.js";
import { drupal7Database, type Drupal7Database } from "./database.js";
import {
  handleFor,
  liveSessionsSql,
  resolveHashedSids,
  sessionOptionFields,
  toSessionRecord,
  type Drupal7SessionOptions,
  type SessionRow,
} from "./carry-over-rows.js";

const optionsSchema = z
  .strictObject({
    ...sessionOptionFields,
    into: z.custom<SessionStore>((value) => typeof value === "object" && value !== null && typeof (value as SessionStore).get === "function"),
    batchSize: z.number().int().min(1).max(100_000).optional(),
    deleteImported: z.boolean().optional(),
    dryRun: z.boolean().optional(),
    onProgress: z.custom<(progress: ImportDrupal7SessionsProgress) => void>((value) => typeof value === "function", "must be a function").optional(),
  })
  .refine((value) => (value.idleTimeout ?? 200_000) <= (value.absoluteTimeout ?? 2_000_000), {
    // As createSessionAuthRouter refuses it: every record would be born expired.
    message: "must not be longer than absoluteTimeout",
    path: ["idleTimeout"],
  });

/** `adopt` calls in flight at once for a store without `adoptMany`. */
const ADOPT_CONCURRENCY = 64;

/** Rows per DELETE: well under the 65,535 parameters MySQL and PostgreSQL take in one statement. */
const DELETE_CHUNK = 1000;

/** Options of {@link importDrupal7Sessions}. */
export interface ImportDrupal7SessionsOptions extends Drupal7SessionOptions {
  /** The store to fill. It must implement `adopt` (the memory and Redis stores do); `adoptMany` is used when present. */
  into: SessionStore;
  /**
   * Rows read per query and written per store call; memory stays bounded by it (docs/performance.md#the-drupal-session-import).
   * @default 1000
   */
  batchSize?: number;
  /**
   * Delete each imported row from Drupal's `sessions` once adopted: needed beside
   * {@link drupal7SessionFallback}, which would adopt it again after a logout. Off while Drupal serves the same users.
   * @default false
   */
  deleteImported?: boolean;
  /**
   * Read and count everything but write nothing, to the store or to Drupal's table.
   * @default false
   */
  dryRun?: boolean;
  /** Called after each page, with the counts so far. It must not throw. @default none */
  onProgress?: (progress: ImportDrupal7SessionsProgress) => void;
}

/**
 * How far {@link importDrupal7Sessions} is, as handed to `onProgress` after each page.
 *
 * @example
 * ```ts
 * const onProgress = ({ read, total }: ImportDrupal7SessionsProgress) => process.stderr.write(`${read}/${total}\r`);
 * ```
 */
export interface ImportDrupal7SessionsProgress {
  /** Live rows read so far. */
  readonly read: number;
  /** Live rows counted when the import started; `read` may pass it if sessions were added meanwhile. */
  readonly total: number;
  /** Sessions adopted so far (in a dry run: that would have been). */
  readonly imported: number;
  /** Live rows skipped so far (see {@link ImportDrupal7SessionsResult.skipped}). */
  readonly skipped: number;
}

/** The rows of `sessions` an import leaves behind as not live, by reason, counted at its start. */
export interface Drupal7SessionsLeftBehind {
  /** Rows of anonymous visitors (uid 0). */
  readonly anonymous: number;
  /** Rows whose account is blocked (`users.status` 0) or deleted. */
  readonly blocked: number;
  /** Rows of active accounts last written `idleTimeout` or longer ago. */
  readonly expired: number;
}

/** What {@link importDrupal7Sessions} did. */
export interface ImportDrupal7SessionsResult {
  /** Sessions adopted into the store (in a dry run: that would have been). */
  readonly imported: number;
  /** Live rows left out because their sid is not a 43-character base64url id. */
  readonly skipped: number;
  /** Whether the sids were read as hashed (resolved from `"auto"` if so asked). */
  readonly hashedSids: boolean;
  /** Whether this was a dry run, which wrote nothing. */
  readonly dryRun: boolean;
  /** Rows that are not live sessions, by reason; none of them is read or imported. */
  readonly leftBehind: Drupal7SessionsLeftBehind;
}

/**
 * Copies Drupal 7's live sessions into a store (under the handle the store computes for the
 * cookie) so app cookies keep working after the cut-over; also `npx services-session-auth drupal7
 * import-sessions`. When to run it, re-runs and failures: docs/migrating-from-drupal-7.md#3-carry-the-sessions-over.
 *
 * @example
 * ```ts
 * const { imported } = await importDrupal7Sessions({ pool, into: sessionStore, hashedSids: "auto" });
 * ```
 * @throws TypeError when an option is invalid or the store cannot `adopt`.
 */
export async function importDrupal7Sessions(options: ImportDrupal7SessionsOptions): Promise<ImportDrupal7SessionsResult> {
  const parsed = parseOptions(optionsSchema, options, "importDrupal7Sessions");
  const {
    into,
    batchSize = 1000,
    deleteImported = false,
    dryRun = false,
    onProgress,
    hashedSids: setting = "auto",
    idleTimeout = 200_000,
    absoluteTimeout = 2_000_000,
  } = parsed;
  if (typeof into.adopt !== "function") throw new TypeError("importDrupal7Sessions: invalid options: into: the store cannot adopt sessions");
  const db = drupal7Database(parsed, "importDrupal7Sessions");
  const hashedSids = await resolveHashedSids(db, setting);
  // Keyset paging on sid; LIMIT written in, as MySQL's prepared statements refuse it as a parameter.
  const sql = `${liveSessionsSql(db, "AND s.sid > ?")} ORDER BY s.sid LIMIT ${batchSize}`;
  const since = nowSeconds() - idleTimeout;
  // The count scans the whole table and only progress needs it: it runs beside the first pages.
  const counted = countRows(db, since);
  counted.catch(() => undefined);
  const store = storeWriter(into);

  let read = 0;
  let imported = 0;
  let skipped = 0;
  const done = async (rows: number, adopted: number, left: number) => {
    read += rows;
    imported += adopted;
    skipped += left;
    if (onProgress !== undefined) onProgress({ read, total: (await counted).live, imported, skipped });
  };
  // The first failure stops the import: no page starts after it, and pages in flight settle before
  // it is thrown, so nothing is written or deleted after the caller hears of it.
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown) => void (failure ??= { error });
  let writing: Promise<void> = Promise.resolve();
  let page: Promise<SessionRow[]> | null = db.select<SessionRow>(sql, [since, ""]);
  while (page !== null && failure === undefined) {
    let rows: SessionRow[];
    try {
      rows = await page;
    } catch (error) {
      fail(error);
      break;
    }
    // Read ahead while this page is written: the import costs the slower of the two, not their sum.
    page = rows.length < batchSize ? null : db.select<SessionRow>(sql, [since, String(rows[rows.length - 1]!.sid)]);
    page?.catch(() => undefined);
    const sessions: StoredSession[] = [];
    const sids: string[] = [];
    for (const row of rows) {
      const sid = String(row.sid);
      const handle = handleFor(sid, hashedSids);
      if (handle === null) continue;
      sessions.push({ handle, record: toSessionRecord(row, idleTimeout, absoluteTimeout) });
      sids.push(sid);
    }
    const previous = writing;
    writing = (async () => {
      try {
        if (!dryRun) {
          await store(sessions);
          if (deleteImported) await deleteRows(db, sids);
        }
      } catch (error) {
        fail(error);
      }
      // Pages are counted in order, so progress never runs ahead of what is stored.
      await previous;
      if (failure !== undefined) return;
      try {
        await done(rows.length, sessions.length, rows.length - sessions.length);
      } catch (error) {
        fail(error);
      }
    })();
    // At most two pages in the store's hands, so memory stays bounded by batchSize.
    await previous;
  }
  await writing;
  if (failure !== undefined) throw failure.error;
  return { imported, skipped, hashedSids, dryRun, leftBehind: (await counted).leftBehind };
}

/** Writes one page of sessions: with `adoptMany` if the store has it, else with a bounded number of `adopt`s at once. */
function storeWriter(into: SessionStore): (sessions: StoredSession[]) => Promise<void> {
  if (typeof into.adoptMany === "function") return (sessions) => (sessions.length === 0 ? Promise.resolve() : into.adoptMany!(sessions));
  return async (sessions) => {
    let next = 0;
    const worker = async () => {
      while (next < sessions.length) {
        const { handle, record } = sessions[next++]!;
        await into.adopt!(handle, record);
      }
    };
    await Promise.all(Array.from({ length: Math.min(ADOPT_CONCURRENCY, sessions.length) }, worker));
  };
}

async function deleteRows(db: Drupal7Database, sids: readonly string[]): Promise<void> {
  // On MySQL each sid is compared as bytes, as sidEquals does: its usual collation ignores case.
  const placeholder = db.dialect === "mysql" ? "CAST(? AS BINARY)" : "?";
  for (let i = 0; i < sids.length; i += DELETE_CHUNK) {
    const chunk = sids.slice(i, i + DELETE_CHUNK);
    await db.write(`DELETE FROM ${db.table("sessions")} WHERE sid IN (${chunk.map(() => placeholder).join(", ")})`, chunk);
  }
}

/** Counts the live rows (for progress) and the others by why they are left behind, in one scan. */
async function countRows(db: Drupal7Database, since: number): Promise<{ live: number; leftBehind: Drupal7SessionsLeftBehind }> {
  const [row] = await db.select<Record<"total" | "anonymous" | "blocked" | "expired", unknown>>(
    "SELECT COUNT(*) AS total, " +
      "SUM(CASE WHEN s.uid = 0 THEN 1 ELSE 0 END) AS anonymous, " +
      "SUM(CASE WHEN s.uid > 0 AND (u.uid IS NULL OR u.status <> 1) THEN 1 ELSE 0 END) AS blocked, " +
      "SUM(CASE WHEN s.uid > 0 AND u.status = 1 AND s.timestamp <= ? THEN 1 ELSE 0 END) AS expired " +
      `FROM ${db.table("sessions")} s LEFT JOIN ${db.table("users")} u ON u.uid = s.uid`,
    [since],
  );
  // COUNT and SUM come back as strings from both drivers (BIGINT, DECIMAL), and SUM of no rows as NULL.
  const count = (value: unknown) => Number(value ?? 0);
  const leftBehind = { anonymous: count(row?.anonymous), blocked: count(row?.blocked), expired: count(row?.expired) };
  return { live: count(row?.total) - leftBehind.anonymous - leftBehind.blocked - leftBehind.expired, leftBehind };
}
