import { z } from "zod";
import { nowSeconds } from "../core/clock.js";
import { parseOptions } from "../core/validate.js";
import type { SessionStore } from "../types.js";
import { drupal7Database } from "./database.js";
import { handleFor, liveSessionsSql, resolveHashedSids, sessionOptionFields, sidEquals, toSessionRecord, type Drupal7SessionOptions, type SessionRow } from "./session-rows.js";

const optionsSchema = z.strictObject({
  ...sessionOptionFields,
  into: z.custom<SessionStore>((value) => typeof value === "object" && value !== null && typeof (value as SessionStore).get === "function"),
  batchSize: z.number().int().min(1).max(100_000).optional(),
  deleteImported: z.boolean().optional(),
});

/**
 * Options of {@link importDrupal7Sessions}.
 *
 * @example
 * ```ts
 * await importDrupal7Sessions({ pool, into: redisSessionStore({ client }), batchSize: 500 });
 * ```
 */
export interface ImportDrupal7SessionsOptions extends Drupal7SessionOptions {
  /** The store to fill. It must implement `adopt` (the memory and Redis stores do). */
  into: SessionStore;
  /**
   * Rows read per query: the import pages through `sessions` by `sid`, so a large table is
   * never held in memory at once.
   * @default 1000
   */
  batchSize?: number;
  /**
   * Delete each imported row from Drupal's `sessions` table once adopted. Needed when the
   * import runs together with {@link drupal7SessionFallback}, which would otherwise adopt
   * a row again after the user logged out of the new server. Leave it off while the
   * Drupal site still serves the same users.
   * @default false
   */
  deleteImported?: boolean;
}

/**
 * What {@link importDrupal7Sessions} did.
 *
 * @example
 * ```ts
 * const { imported, skipped } = await importDrupal7Sessions({ pool, into: sessionStore });
 * console.log(`${imported} sessions carried over, ${skipped} skipped`);
 * ```
 */
export interface ImportDrupal7SessionsResult {
  /** Sessions adopted into the store. */
  readonly imported: number;
  /** Live rows left out because their sid is not a 43-character base64url id. */
  readonly skipped: number;
  /** Whether the sids were read as hashed (resolved from `"auto"` if so asked). */
  readonly hashedSids: boolean;
}

/**
 * Copies Drupal 7's live sessions into a session store, so the apps' cookies keep working
 * after the cut-over without anyone logging in again. A live row has a uid above 0, an
 * active account (`users.status = 1`), and a `timestamp` within `idleTimeout`. Each is
 * adopted under the handle the store would compute for the cookie: the stored sid on core
 * 7.98+ (already `base64url(sha256(id))`), else the hash of the raw sid. Times come from
 * `sessions.timestamp` and the IP from `hostname`; `$_SESSION` data is not carried over.
 *
 * Run it once at the switch, after Drupal stops taking logins, with the timeouts given to
 * `createSessionAuth`. Running it again is harmless: adopting a handle replaces its record.
 *
 * @example
 * ```ts
 * const { imported } = await importDrupal7Sessions({ pool, into: sessionStore, hashedSids: "auto" });
 * ```
 * @throws TypeError when an option is invalid or the store cannot `adopt`.
 */
export async function importDrupal7Sessions(options: ImportDrupal7SessionsOptions): Promise<ImportDrupal7SessionsResult> {
  const parsed = parseOptions(optionsSchema, options, "importDrupal7Sessions");
  const { into, batchSize = 1000, deleteImported = false, hashedSids: setting = "auto", idleTimeout = 200_000, absoluteTimeout = 2_000_000 } = parsed;
  if (typeof into.adopt !== "function") throw new TypeError("importDrupal7Sessions: invalid options: into: the store cannot adopt sessions");
  const db = drupal7Database(parsed, "importDrupal7Sessions");
  const hashedSids = await resolveHashedSids(db, setting);
  // Keyset paging on sid; LIMIT is written in, as MySQL's prepared statements refuse it as a parameter.
  const sql = `${liveSessionsSql(db, "AND s.sid > ?")} ORDER BY s.sid LIMIT ${batchSize}`;
  const since = nowSeconds() - idleTimeout;

  let imported = 0;
  let skipped = 0;
  let after = "";
  for (;;) {
    const rows = await db.select<SessionRow>(sql, [since, after]);
    for (const row of rows) {
      const sid = String(row.sid);
      const handle = handleFor(sid, hashedSids);
      if (handle === null) {
        skipped += 1;
        continue;
      }
      await into.adopt(handle, toSessionRecord(row, idleTimeout, absoluteTimeout));
      if (deleteImported) await db.write(`DELETE FROM ${db.table("sessions")} WHERE ${sidEquals(db, "sid")}`, [sid]);
      imported += 1;
    }
    if (rows.length < batchSize) break;
    after = String(rows[rows.length - 1]!.sid);
  }
  return { imported, skipped, hashedSids };
}
