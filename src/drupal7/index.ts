/**
 * `services-session-auth/drupal`: the Drupal 7 migration kit. Verify and upgrade Drupal's
 * password hashes, read accounts from a Drupal 7 database, derive the same CSRF tokens, and
 * carry live Drupal sessions over so app users stay logged in at the cut-over.
 *
 * @module
 */
export { drupal7CsrfToken, type Drupal7CsrfTokenOptions } from "./csrf-token.js";
export { drupal7Hasher, type Drupal7HasherOptions, type LegacyPasswordHasher } from "./password.js";
export { upgradingHasher, type UpgradingHasherOptions } from "./upgrading-hasher.js";
