import type { Drupal7Database } from "./database.js";
import { phpTruthy, readVariables } from "./variables.js";

/** Drupal's `session_write_interval` default: `sessions.timestamp` is written at most this often. */
export const DRUPAL_SESSION_WRITE_INTERVAL = 180;

/** How the site keeps sessions, from `variable` and the rows (settings.php's overrides must come as options). */
export interface SessionFacts {
  /** `drupal_session_id()`: whether `sessions.sid` holds `drupal_hash_base64(id)` (7.98+, unless `do_not_hash_session_ids`). */
  readonly hashedSids: boolean;
  /** The `https` variable: Drupal's mixed-mode HTTPS, with separate `sid` and `ssid` cookies. */
  readonly mixedModeHttps: boolean;
  /** The `session_write_interval` variable, or Drupal's default. */
  readonly sessionWriteInterval: number;
  /** Whether `drupal_private_key` is there (Drupal's CSRF tokens need it). */
  readonly privateKey: boolean;
}

/** Reads {@link SessionFacts} in one query. */
export async function readSessionFacts(db: Drupal7Database): Promise<SessionFacts> {
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

/** Whether a row was written under mixed-mode HTTPS: an `ssid` neither empty (HTTP) nor the `sid` (HTTPS). */
export function isMixedModeRow(sid: string, ssid: string): boolean {
  return ssid !== "" && ssid !== sid;
}

/** The SQL condition of {@link isMixedModeRow}, comparing bytes (MySQL's usual collation ignores case). */
export function mixedModeRowSql(db: Drupal7Database): string {
  return db.dialect === "mysql" ? "ssid <> '' AND CAST(ssid AS BINARY) <> CAST(sid AS BINARY)" : "ssid <> '' AND ssid <> sid";
}

/** Whether any row of `sessions` was written under mixed-mode HTTPS (a scan that stops at the first). */
export async function hasMixedModeRows(db: Drupal7Database): Promise<boolean> {
  const rows = await db.select(`SELECT sid FROM ${db.table("sessions")} WHERE ${mixedModeRowSql(db)} LIMIT 1`, []);
  return rows.length > 0;
}

/** The message every refusal of mixed-mode HTTPS carries. */
export const MIXED_MODE_REFUSED =
  "mixed-mode HTTPS ($conf['https'] = TRUE: a session keyed by two cookies, SESS… over HTTP and SSESS… over HTTPS) is not supported; " +
  "serve the Drupal site over HTTPS alone (remove $conf['https'], or set the https variable to FALSE) before sharing its sessions";
