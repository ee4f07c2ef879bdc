/** Constants the runner and the servers agree on. */
export const BENCH_NAME = "bench";
export const BENCH_PASSWORD = "bench-password";
/** An account still on a Drupal 7 `$S$D` hash, in the migrating configuration. */
export const LEGACY_NAME = "legacy";
/** 32+ characters: the secret every configuration signs or seals with. */
export const SECRET = "bench-only-secret-0123456789-abcdefghijklmn";
/** Where the floors and the README-mounted bindings serve their guarded GET: below the endpoint, as the quick starts put it. */
export const GUARDED_PATH = "/services/json/players";
