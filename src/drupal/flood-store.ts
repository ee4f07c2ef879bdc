import { z } from "zod";
import { nowSeconds } from "../clock.js";
import type { FloodStore } from "../accounts/flood.js";
import { parseOptions } from "../validate.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";

const optionsSchema = z.strictObject({ ...databaseOptionFields });

/**
 * A {@link FloodStore} over Drupal 7's own `flood` table, as `flood_register_event()`,
 * `flood_is_allowed()` and `flood_clear_event()` use it: one budget with the Drupal site beside
 * the app (its password form counts in the same rows), and rows Drupal's cron clears when expired.
 *
 * @example
 * ```ts
 * const mailer = nodemailerMailer(process.env.SMTP_URL!);
 * createSessionAuthRouter({ ...options, accounts: { calls: "all", mailer, flood: drupal7FloodStore({ pool }) } });
 * ```
 * @throws TypeError when an option is invalid.
 */
export function drupal7FloodStore(options: Drupal7DatabaseOptions): FloodStore {
  const db = drupal7Database(parseOptions(optionsSchema, options, "drupal7FloodStore"), "drupal7FloodStore");
  const flood = `${options.prefix ?? ""}flood`;
  return {
    async isAllowed(event, identifier, limit, window) {
      const [row] = await db.select<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${flood} WHERE event = ? AND identifier = ? AND timestamp > ?`, [
        event,
        identifier,
        nowSeconds() - window,
      ]);
      return Number(row?.n ?? 0) < limit;
    },
    async register(event, identifier, window) {
      const now = nowSeconds();
      await db.write(`INSERT INTO ${flood} (event, identifier, timestamp, expiration) VALUES (?, ?, ?, ?)`, [event, identifier, now, now + window]);
    },
    async clear(event, identifier) {
      await db.write(`DELETE FROM ${flood} WHERE event = ? AND identifier = ?`, [event, identifier]);
    },
  };
}
