import { createHash } from "node:crypto";
import { z } from "zod";
import { nowSeconds } from "../clock.js";
import { implementing, parseOptions } from "../validate.js";
import type { CounterStore } from "../types.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import { floodStatements } from "./flood.js";
import { sweeper, sweepInBatches } from "./sweeper.js";
import { memoryCounterStore } from "../stores/memory-counter-store.js";

const optionsSchema = z.strictObject({
  ...databaseOptionFields,
  attempts: implementing<CounterStore>("CounterStore", ["increment", "decrement", "get", "delete"]).optional(),
  gcInterval: z.number().nonnegative().optional(),
  gcBatch: z.number().int().positive().max(100_000).optional(),
});

/** The event of a failure the throttle records and Drupal has no event for (per name, per device cookie). */
const FAILURE = "services_session_auth_failed_login";

/** Options of {@link drupal7FloodCounterStore}. */
export interface Drupal7FloodCounterStoreOptions extends Drupal7DatabaseOptions {
  /**
   * Where attempts still being checked are counted, atomically, before their passwords are: one
   * shared by every instance (`redisCounterStore`) when several serve logins.
   * @default memoryCounterStore()
   */
  attempts?: CounterStore;
  /**
   * Seconds between two sweeps deleting expired events, as Drupal's cron does (each instance at a random offset, the first within a minute of the start); `0` turns it off.
   * @default 900
   */
  gcInterval?: number;
  /**
   * The most events one statement of a sweep deletes (a sweep runs at most ten).
   * @default 1000
   */
  gcBatch?: number;
}

/** A {@link CounterStore} over Drupal's `flood` table. */
export interface Drupal7FloodCounterStore extends CounterStore {
  /** Always: the login throttle also counts each attempt on the account it reaches, as Drupal's flood control does. */
  readonly countsAccounts: true;
  /** Deletes expired events, at most ten batches; resolves how many. What each sweep runs. */
  collectGarbage(): Promise<number>;
  /** Stops the periodic garbage collection. */
  close(): void;
}

/** Where a counter's recorded failures are kept: an event and an identifier. */
interface Failures {
  readonly event: string;
  readonly identifier: string;
  /** Drupal never clears an address's failures: a success does not make its earlier ones vanish. */
  readonly clearable: boolean;
}

/** An identifier within `flood.identifier`'s 128 characters. */
function identifier(value: string): string {
  return value.length <= 128 ? value : `sha256:${createHash("sha256").update(value).digest("base64url")}`;
}

/** Where the failures of a throttle counter go: `ip:` and `account:` ones are Drupal's own events, the rest the package's. */
function failuresOf(counter: string): Failures {
  const colon = counter.indexOf(":");
  const namespace = colon < 0 ? "" : counter.slice(0, colon);
  const rest = counter.slice(colon + 1);
  // _user_resource_flood_control_postcheck(): failed_login_attempt_ip by ip_address(), failed_login_attempt_user by uid or uid-ip.
  if (namespace === "ip") return { event: "failed_login_attempt_ip", identifier: identifier(rest), clearable: false };
  if (namespace === "account") return { event: "failed_login_attempt_user", identifier: identifier(rest), clearable: true };
  return { event: FAILURE, identifier: identifier(counter), clearable: true };
}

/**
 * A {@link CounterStore} whose recorded failures are Drupal 7's own `flood` events, so the login
 * throttle and Drupal count one budget: a failure here is Drupal's `failed_login_attempt_ip` /
 * `failed_login_attempt_user` event (identifier the address, and the uid or uid-address), a
 * failure on Drupal counts here as one, and a login here clears the account's as Drupal's does.
 * Attempts still being checked are counted first, atomically, in `attempts`; failures of names
 * and device cookies, which Drupal does not keep, are events of the package's. Expired events
 * are collected as Drupal's cron does. Give the throttle the site's limits (`readDrupal7SiteSettings`).
 *
 * @example
 * ```ts
 * const counterStore = drupal7FloodCounterStore({ pool });
 * createSessionAuthRouter({ ...options, counterStore, throttle: (await readDrupal7SiteSettings({ pool })).throttle });
 * ```
 * @throws TypeError when an option is invalid or the pool's dialect cannot be told.
 */
export function drupal7FloodCounterStore(options: Drupal7FloodCounterStoreOptions): Drupal7FloodCounterStore {
  const parsed = parseOptions(optionsSchema, options, "drupal7FloodCounterStore");
  const { gcInterval = 900, gcBatch = 1000 } = parsed;
  const attempts = parsed.attempts ?? memoryCounterStore();
  const db = drupal7Database(parsed, "drupal7FloodCounterStore");
  const sql = floodStatements(db);
  const live = `SELECT COUNT(*) AS n FROM ${sql.flood} WHERE event = ? AND ${sql.same} AND expiration > ?`;
  // The newest event of one identifier: MySQL orders a single-table DELETE itself; PostgreSQL picks it, skipping one another statement holds.
  const deleteNewest =
    db.dialect === "mysql"
      ? `DELETE FROM ${sql.flood} WHERE event = ? AND ${sql.same} ORDER BY fid DESC LIMIT 1`
      : `DELETE FROM ${sql.flood} WHERE fid = (SELECT fid FROM ${sql.flood} WHERE event = ? AND ${sql.same} ORDER BY fid DESC LIMIT 1 FOR UPDATE SKIP LOCKED)`;

  /** The failures on record for a counter: each event counts until its own expiration, the window it was registered with (Drupal's own, for Drupal's). */
  async function recorded(failures: Failures): Promise<number> {
    const [row] = await db.select<{ n: unknown }>(live, [failures.event, failures.identifier, nowSeconds()]);
    return Number(row?.n ?? 0);
  }
  const split = (key: string) => (key.startsWith("failed-") ? { failed: true, counter: key.slice(7) } : { failed: false, counter: key });

  const collectGarbage = () => sweepInBatches(() => db.write(sql.collect, [nowSeconds(), gcBatch]), gcBatch);
  const sweeping = gcInterval > 0 ? sweeper(collectGarbage, gcInterval) : undefined;

  return {
    countsAccounts: true,
    collectGarbage,
    close: () => sweeping?.stop(),
    // An attempt's count is what is in flight and what failed: Drupal's failures count as the package's do.
    async increment(key, ttlSeconds) {
      const { failed, counter } = split(key);
      const failures = failuresOf(counter);
      if (!failed) {
        const [inFlight, failedBefore] = await Promise.all([attempts.increment(counter, ttlSeconds), recorded(failures)]);
        return inFlight + failedBefore;
      }
      // flood_register_event(): the attempt checked is now a failure on record, no longer one in flight.
      const now = nowSeconds();
      await db.write(sql.insert, [failures.event, failures.identifier, now, now + ttlSeconds]);
      await attempts.decrement(counter);
      return recorded(failures);
    },
    async decrement(key) {
      const { failed, counter } = split(key);
      if (!failed) return attempts.decrement(counter);
      const failures = failuresOf(counter);
      await db.write(deleteNewest, [failures.event, failures.identifier]);
    },
    async get(key) {
      const { failed, counter } = split(key);
      if (failed) return recorded(failuresOf(counter));
      const [inFlight, failedBefore] = await Promise.all([attempts.get(counter), recorded(failuresOf(counter))]);
      return inFlight + failedBefore;
    },
    async delete(key) {
      const { failed, counter } = split(key);
      if (!failed) return attempts.delete(counter);
      const failures = failuresOf(counter);
      // flood_clear_event() after a login, for the account; an address's failures stay, as in Drupal.
      if (failures.clearable) await db.write(sql.clear, [failures.event, failures.identifier]);
    },
  };
}
