import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { parseOptions } from "../validate.js";
import { databaseOptionFields, drupal7Database, type Drupal7Database, type Drupal7DatabaseOptions } from "./database.js";

const optionsSchema = z.strictObject({ ...databaseOptionFields });

/** `flood.event`'s width: a longer event name is a bug, refused before Drupal's column would cut it. */
const MAX_EVENT = 64;
/** `flood.identifier`'s width. */
const MAX_IDENTIFIER = 128;

/**
 * Drupal 7's flood control over its own `flood` table (`includes/common.inc`): the events Drupal
 * and Services count, shared with the site while it runs. Every call is one statement.
 *
 * @example
 * ```ts
 * const flood = drupal7Flood({ pool });
 * const address = "203.0.113.7";
 * if (await flood.isAllowed("pass_reset_ip", 50, 3600, address)) await flood.register("pass_reset_ip", address, 3600);
 * ```
 */
export interface Drupal7Flood {
  /** `flood_register_event()`: one event now for `identifier`, expiring `window` seconds on. */
  register(event: string, identifier: string, window: number): Promise<void>;
  /** `flood_is_allowed()`'s count: the events of `identifier` in the last `window` seconds. */
  count(event: string, identifier: string, window: number): Promise<number>;
  /** `flood_is_allowed()`: fewer than `threshold` events of `identifier` in the last `window` seconds. */
  isAllowed(event: string, threshold: number, window: number, identifier: string): Promise<boolean>;
  /** `flood_clear_event()`: every event of `identifier`. */
  clear(event: string, identifier: string): Promise<void>;
  /** `system_cron()`'s clean-up, bounded: deletes at most `limit` expired events (any event's); resolves how many. */
  collectGarbage(limit?: number): Promise<number>;
}

/** Refuses an event or identifier Drupal's columns would cut, so two of them never count as one. */
function checked(event: string, identifier: string): void {
  if (event === "" || event.length > MAX_EVENT) throw new TypeError(`drupal7Flood: an event is 1 to ${MAX_EVENT} characters, not ${event.length}`);
  if (identifier.length > MAX_IDENTIFIER) throw new TypeError(`drupal7Flood: an identifier is at most ${MAX_IDENTIFIER} characters, not ${identifier.length}`);
}

/** The statements over `flood` in one dialect (shared with the flood counter store). */
export function floodStatements(db: Drupal7Database) {
  const flood = db.table("flood");
  // The identifier is compared as bytes: MySQL's usual collation would take "A" and "a", or "x" and "x ", for one visitor.
  const same = db.dialect === "mysql" ? "identifier = CAST(? AS BINARY)" : "identifier = ?";
  return {
    /** Parameters: event, identifier, timestamp, expiration. */
    insert: `INSERT INTO ${flood} (event, identifier, timestamp, expiration) VALUES (?, ?, ?, ?)`,
    /** Parameters: event, identifier, since. */
    count: `SELECT COUNT(*) AS n FROM ${flood} WHERE event = ? AND ${same} AND timestamp > ?`,
    /** Parameters: event, identifier. */
    clear: `DELETE FROM ${flood} WHERE event = ? AND ${same}`,
    /** Parameters: now, limit. Bounded, and on PostgreSQL skipping rows another sweep holds. */
    collect:
      db.dialect === "mysql"
        ? `DELETE FROM ${flood} WHERE expiration < ? LIMIT ?`
        : `DELETE FROM ${flood} WHERE fid = ANY(ARRAY(SELECT fid FROM ${flood} WHERE expiration < ? LIMIT ? FOR UPDATE SKIP LOCKED))`,
    same,
    flood,
  };
}

/**
 * Drupal 7's flood control on the site's own `flood` table, for counting what Drupal counts (a
 * login's failures, a password reset's requests) in the same budget as the site. Expired events
 * are what Drupal's cron deletes; {@link Drupal7Flood.collectGarbage} does it once Drupal is off.
 *
 * @example
 * ```ts
 * const flood = drupal7Flood({ pool, prefix: "drupal_" });
 * await flood.register("failed_login_attempt_ip", "203.0.113.7", 3600);
 * ```
 * @throws TypeError when an option is invalid or the pool's dialect cannot be told.
 */
export function drupal7Flood(options: Drupal7DatabaseOptions): Drupal7Flood {
  const db = drupal7Database(parseOptions(optionsSchema, options, "drupal7Flood"), "drupal7Flood");
  const sql = floodStatements(db);
  const count = async (event: string, identifier: string, window: number) => {
    checked(event, identifier);
    const [row] = await db.select<{ n: unknown }>(sql.count, [event, identifier, nowSeconds() - window]);
    return Number(row?.n ?? 0);
  };
  return {
    async register(event, identifier, window) {
      checked(event, identifier);
      const now = nowSeconds();
      await db.write(sql.insert, [event, identifier, now, now + window]);
    },
    count,
    async isAllowed(event, threshold, window, identifier) {
      return (await count(event, identifier, window)) < threshold;
    },
    async clear(event, identifier) {
      checked(event, identifier);
      await db.write(sql.clear, [event, identifier]);
    },
    collectGarbage(limit = 1000) {
      return db.write(sql.collect, [nowSeconds(), limit]);
    },
  };
}
