/**
 * `services-session-auth/drupal`: the Drupal 7 migration kit. Verify and upgrade Drupal's
 * password hashes, read accounts from a Drupal 7 database, derive the same CSRF tokens, share
 * Drupal's own sessions while both systems run side by side, and carry live Drupal sessions
 * over so app users stay logged in at the cut-over.
 *
 * @module
 */
export { drupal7AccountSettings, type Drupal7AccountSettingsOptions } from "./account-settings.js";
export { drupal7CsrfToken, type Drupal7CsrfTokenOptions } from "./drupal7-csrf-token.js";
export type { Drupal7Dialect, Drupal7DatabaseOptions, Drupal7Pool, MysqlCallbackPoolLike, MysqlPoolLike, PgPoolLike, SqlValue } from "./database.js";
export { drupal7Hasher, type Drupal7HasherOptions, type LegacyPasswordHasher } from "./drupal7-hasher.js";
export { drupal7Flood, type Drupal7Flood } from "./flood.js";
export { drupal7FloodCounterStore, type Drupal7FloodCounterStore, type Drupal7FloodCounterStoreOptions } from "./flood-counter-store.js";
export { readDrupal7SiteSettings, type Drupal7SiteSettings } from "./site-settings.js";
export type { PhpJson } from "./php-unserialize.js";
export { readDrupal7PrivateKey } from "./private-key.js";
export { drupal7SessionFallback, type Drupal7SessionFallbackOptions } from "./carry-over-on-demand.js";
export {
  importDrupal7Sessions,
  type Drupal7SessionsLeftBehind,
  type ImportDrupal7SessionsOptions,
  type ImportDrupal7SessionsProgress,
  type ImportDrupal7SessionsResult,
} from "./carry-over-in-bulk.js";
export type { Drupal7SessionOptions } from "./carry-over-rows.js";
export { drupal7SessionStore, type Drupal7SessionStore, type Drupal7SessionStoreOptions } from "./shared-table-store.js";
export { upgradingHasher, type UpgradingHasherOptions } from "./upgrading-hasher.js";
export { drupal7UserStore, type Drupal7UserStoreOptions } from "./user-store.js";
