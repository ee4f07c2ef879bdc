import mysql from "mysql2/promise";
import pg from "pg";
import { memoryCounterStore } from "services-session-auth";
import {
  drupal7AccountSettings,
  drupal7CsrfToken,
  drupal7FloodStore,
  drupal7Hasher,
  drupal7SessionStore,
  drupal7UserStore,
  readDrupal7PrivateKey,
  type Drupal7Pool,
} from "services-session-auth/drupal";
import type { ExampleStores } from "./stores.js";

/**
 * `SESSION_STORE=drupal7`: the example beside a running Drupal 7 site, sharing its database
 * (docs/running-beside-drupal-7.md): its users (the parallel-run setting on, and Drupal's own
 * password hashes), its sessions table, and its CSRF tokens. Point it at a copy of your site
 * and log in on either side.
 *
 * - `DATABASE_URL`: `mysql://…` (MariaDB, MySQL) or `postgres://…`, the Drupal database.
 * - `DRUPAL_HASH_SALT`: settings.php's `$drupal_hash_salt` (required).
 * - `DRUPAL_PRIVATE_KEY`: the `drupal_private_key` variable; read from the `variable` table when unset.
 * - `DRUPAL_TABLE_PREFIX`: settings.php's table prefix (default none).
 * - `DRUPAL_SCHEME`: `https` or `http`, how Drupal serves its pages (default `http`); see
 *   `npx services-session-auth drupal7 check --parallel-run`.
 * - `DRUPAL_GC_MAXLIFETIME`: settings.php's `session.gc_maxlifetime` (default 200000).
 */
export async function drupal7FromEnv(env: NodeJS.ProcessEnv): Promise<Omit<ExampleStores, "kind">> {
  const url = env.DATABASE_URL ?? "";
  if (!/^(?:mysql|mariadb|postgres|postgresql):\/\//.test(url))
    throw new TypeError("SESSION_STORE=drupal7 needs DATABASE_URL=mysql://… or postgres://…, the Drupal database");
  const hashSalt = env.DRUPAL_HASH_SALT;
  if (hashSalt === undefined || hashSalt === "") throw new TypeError("SESSION_STORE=drupal7 needs DRUPAL_HASH_SALT: settings.php's $drupal_hash_salt");
  const scheme = env.DRUPAL_SCHEME ?? "http";
  if (scheme !== "https" && scheme !== "http") throw new TypeError(`DRUPAL_SCHEME must be https or http, not "${scheme}"`);
  const prefix = env.DRUPAL_TABLE_PREFIX ?? "";
  const gcMaxLifetime = Number(env.DRUPAL_GC_MAXLIFETIME ?? 200_000);
  const postgres = url.startsWith("postgres");
  const pool: Drupal7Pool & { end(): Promise<void> } = postgres
    ? new pg.Pool({ connectionString: url, max: 10 })
    : mysql.createPool({ uri: url.replace(/^mariadb:/, "mysql:"), connectionLimit: 10 });
  // An idle connection the server dropped fails the query that needs it next, not the process.
  if (postgres) (pool as pg.Pool).on("error", () => undefined);
  const database = { pool, prefix };
  const sessionStore = drupal7SessionStore({ ...database, scheme, gcMaxLifetime });
  // A mixed-mode HTTPS site or an unreachable database stops the start here, with the reason.
  await sessionStore.ready;
  const privateKey = env.DRUPAL_PRIVATE_KEY ?? (await readDrupal7PrivateKey(database));
  const counterStore = memoryCounterStore();
  return {
    sessionStore,
    counterStore,
    authOptions: {
      sessionStore,
      counterStore,
      userStore: drupal7UserStore({ ...database, parallelRun: true }),
      // Drupal 7's own hashes, so a password rehashed here still logs in on Drupal.
      hasher: drupal7Hasher(),
      csrfToken: drupal7CsrfToken({ privateKey, hashSalt }),
      // Drupal's garbage collection ends a session this long after its last use: never serve one past it.
      idleTimeout: Math.min(200_000, gcMaxLifetime),
    },
    // The account calls follow the site's variables, sign one-time links as Drupal does, and count
    // password requests in Drupal's flood table, one budget with its password form.
    accounts: { settings: drupal7AccountSettings(database), hashSalt, flood: drupal7FloodStore(database) },
    close: () => pool.end(),
  };
}
