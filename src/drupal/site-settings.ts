import { z } from "zod";
import type { ThrottleOptions } from "../login/options.js";
import { parseOptions } from "../validate.js";
import { databaseOptionFields, drupal7Database, type Drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import { DRUPAL_SESSION_WRITE_INTERVAL } from "./session-variables.js";
import { DRUPAL_HASH_COUNT, DRUPAL_MAX_HASH_COUNT, DRUPAL_MIN_HASH_COUNT } from "./password-crypt.js";
import type { PhpJson, UNPARSEABLE } from "./php-unserialize.js";
import { phpTruthy, readVariables } from "./variables.js";

const optionsSchema = z.strictObject({ ...databaseOptionFields });

/** What a Drupal 7 site's `variable` table says of logins and sessions: its password cost, flood limits and session write interval. */
export interface Drupal7SiteSettings {
  /**
   * `password_count_log2` as `_password_enforce_log2_boundaries()` bounds it (7 to 30; 15 unset):
   * the cost Drupal hashes at, and below or above which it rehashes (give it to `drupal7Hasher({ countLog2 })`).
   */
  readonly passwordCountLog2: number;
  /** The limits of `_user_resource_flood_control_precheck()` (`user_failed_login_*`), as the `throttle` option takes them. */
  readonly throttle: Required<ThrottleOptions>;
  /** `services_flood_control_enabled`: whether Services counts failed logins (user.module's own form always does). */
  readonly servicesFloodControl: boolean;
  /** `session_write_interval` (180 unset): how often Drupal writes a session's `timestamp`; give the router the same `touchInterval`. */
  readonly sessionWriteInterval: number;
}

/** A whole number from a variable as PHP's arithmetic would take it (an integer, or a numeric string), else `fallback`. */
function whole(value: PhpJson | typeof UNPARSEABLE | undefined, fallback: number): number {
  const number = typeof value === "number" ? value : typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(number) ? number : fallback;
}

/** A positive limit or window; Drupal would take 0 as "refuse all", which the throttle cannot say: the default then. */
function positive(value: PhpJson | typeof UNPARSEABLE | undefined, fallback: number): number {
  const number = whole(value, fallback);
  return number > 0 ? number : fallback;
}

/**
 * Reads Drupal's login and session settings from the `variable` table in one query, with
 * Drupal's defaults for what is unset: once at start-up, so the app hashes at the site's cost
 * (never rehashing what Drupal would rehash back, each time ending the user's sessions),
 * throttles with its limits and writes sessions as often as it does.
 *
 * @example
 * ```ts
 * const site = await readDrupal7SiteSettings({ pool });
 * createSessionAuthRouter({ ...options, hasher: drupal7Hasher({ countLog2: site.passwordCountLog2 }), throttle: site.throttle, touchInterval: site.sessionWriteInterval });
 * ```
 * @throws TypeError when an option is invalid.
 */
export async function readDrupal7SiteSettings(options: Drupal7DatabaseOptions): Promise<Drupal7SiteSettings> {
  return siteSettingsOf(drupal7Database(parseOptions(optionsSchema, options, "readDrupal7SiteSettings"), "readDrupal7SiteSettings"));
}

/** {@link readDrupal7SiteSettings} on a database the caller has wrapped already. */
export async function siteSettingsOf(db: Drupal7Database): Promise<Drupal7SiteSettings> {
  const variables = await readVariables(db, [
    "password_count_log2",
    "user_failed_login_ip_limit",
    "user_failed_login_ip_window",
    "user_failed_login_user_limit",
    "user_failed_login_user_window",
    "user_failed_login_identifier_uid_only",
    "services_flood_control_enabled",
    "session_write_interval",
  ]);
  const count = whole(variables.get("password_count_log2"), DRUPAL_HASH_COUNT);
  return {
    passwordCountLog2: Math.min(DRUPAL_MAX_HASH_COUNT, Math.max(DRUPAL_MIN_HASH_COUNT, count)),
    throttle: {
      ipLimit: positive(variables.get("user_failed_login_ip_limit"), 50),
      ipWindow: positive(variables.get("user_failed_login_ip_window"), 3600),
      userLimit: positive(variables.get("user_failed_login_user_limit"), 5),
      userWindow: positive(variables.get("user_failed_login_user_window"), 21_600),
      perAccountOnly: phpTruthy(variables.get("user_failed_login_identifier_uid_only")),
    },
    servicesFloodControl: !variables.has("services_flood_control_enabled") || phpTruthy(variables.get("services_flood_control_enabled")),
    sessionWriteInterval: positive(variables.get("session_write_interval"), DRUPAL_SESSION_WRITE_INTERVAL),
  };
}
