/**
 * `services-session-auth/drupal`: the Drupal 7 migration kit (password hashes, a user store
 * over a Drupal 7 database, Drupal's CSRF tokens, and carrying live sessions over).
 *
 * @module
 */
export * from "../drupal/index.js";
