import type { Drupal7Database } from "./database.js";
import { phpTruthy, readVariables } from "./variables.js";

/** Drupal's `session_write_interval` default: `sessions.timestamp` is written at most this often. */
export const DRUPAL_SESSION_WRITE_INTERVAL = 180;

/** How the site keeps sessions, from `variable` (settings.php's overrides must come as options). */
export interface SessionVariables {
  /** `drupal_session_id()`: whether `sessions.sid` holds `drupal_hash_base64(id)` (7.98+, unless `do_not_hash_session_ids`). */
  readonly hashedSids: boolean;
  /** The `https` variable: Drupal's mixed-mode HTTPS, one session keyed by a plain-HTTP and a secure cookie (settings.php may set it instead). */
  readonly mixedModeHttps: boolean;
  /** The `session_write_interval` variable, or Drupal's default. */
  readonly sessionWriteInterval: number;
  /** Whether `drupal_private_key` is there (Drupal's CSRF tokens need it). */
  readonly privateKey: boolean;
}

/** Reads {@link SessionVariables} in one query. */
export async function readSessionVariables(db: Drupal7Database): Promise<SessionVariables> {
  const variables = await readVariables(db, [
    "hashed_session_ids_supported",
    "do_not_hash_session_ids",
    "https",
    "session_write_interval",
    "drupal_private_key",
  ]);
  const interval = Number(variables.get("session_write_interval"));
  const key = variables.get("drupal_private_key");
  return {
    hashedSids: phpTruthy(variables.get("hashed_session_ids_supported")) && !phpTruthy(variables.get("do_not_hash_session_ids")),
    mixedModeHttps: phpTruthy(variables.get("https")),
    sessionWriteInterval: variables.has("session_write_interval") && Number.isSafeInteger(interval) ? interval : DRUPAL_SESSION_WRITE_INTERVAL,
    privateKey: typeof key === "string" && key !== "",
  };
}
