import mysql from "mysql2/promise";
import pg from "pg";
import { memoryCounterStore } from "services-session-auth";
import {
  drupal7AccountSettings,
  drupal7CsrfToken,
  drupal7Flood,
  drupal7FloodCounterStore,
  drupal7Hasher,
  drupal7SessionStore,
  drupal7UserStore,
  readDrupal7PrivateKey,
  readDrupal7SiteSettings,
  type Drupal7Pool,
} from "services-session-auth/drupal";
import type { ExampleStores } from "./stores.js";

/** How long the example waits for the Drupal database at start-up before it gives up with the reason. */
const START_TIMEOUT_MS = 15_000;

/** A setting of settings.php's that the database cannot show, from an optional variable. */
function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** `DRUPAL_HASHED_SIDS`: `auto` (the `variable` table), `true`, or `false` for settings.php's `do_not_hash_session_ids`. */
function hashedSidsFromEnv(value: string | undefined): boolean | "auto" {
  if (value === undefined || value === "auto") return "auto";
  if (value === "true" || value === "false") return value === "true";
  throw new TypeError(`DRUPAL_HASHED_SIDS must be auto, true or false (false where settings.php sets do_not_hash_session_ids), not "${value}"`);
}

/** A whole number of seconds from the environment, or `fallback`. */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = optional(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new TypeError(`${name} must be a whole number of seconds, not "${value}"`);
  return Number(value);
}

/**
 * `SESSION_STORE=drupal7`: the example beside a running Drupal 7 site, sharing its database
 * (docs/running-beside-drupal-7.md): its users (the parallel-run setting on, Drupal's own
 * password hashes at the site's `password_count_log2`), its sessions table (each request read
 * and written by Drupal's rules for its scheme: HTTP, HTTPS, both, mixed mode), its flood table
 * (one login budget with Drupal, at its `user_failed_login_*` limits) and its CSRF tokens.
 * Point it at a copy of your site and log in on either side. Behind a proxy that ends TLS, set
 * `TRUST_PROXY` so each request's scheme is seen.
 *
 * - `DATABASE_URL`: `mysql://…` (MariaDB, MySQL) or `postgres://…`, the Drupal database.
 * - `DRUPAL_HASH_SALT`: settings.php's `$drupal_hash_salt` (required).
 * - `DRUPAL_PRIVATE_KEY`: the `drupal_private_key` variable; read from the `variable` table when unset.
 * - `DRUPAL_TABLE_PREFIX`: settings.php's table prefix (default none).
 * - `DRUPAL_HASHED_SIDS`: `auto` (default, from the `variable` table), or `false` when settings.php
 *   sets `$conf['do_not_hash_session_ids'] = TRUE` (which the database cannot show).
 * - `DRUPAL_COOKIE_DOMAIN`, `DRUPAL_BASE_URL`: settings.php's `$cookie_domain` and `$base_url`, when
 *   it sets them (the session cookie's name follows them, as Drupal's does).
 * - `DRUPAL_GC_MAXLIFETIME`: settings.php's `session.gc_maxlifetime` (default 200000).
 * - `DRUPAL_GC_INTERVAL`: seconds between the app's sweeps of expired sessions and flood events (default 900; 0 off).
 * - `DRUPAL_SCHEME`: the scheme of store calls that carry no request (default `https`); requests use their own.
 */
export async function drupal7FromEnv(env: NodeJS.ProcessEnv): Promise<Omit<ExampleStores, "kind">> {
  const url = env.DATABASE_URL ?? "";
  if (!/^(?:mysql|mariadb|postgres|postgresql):\/\//.test(url))
    throw new TypeError("SESSION_STORE=drupal7 needs DATABASE_URL=mysql://… or postgres://…, the Drupal database");
  const hashSalt = env.DRUPAL_HASH_SALT;
  if (hashSalt === undefined || hashSalt === "") throw new TypeError("SESSION_STORE=drupal7 needs DRUPAL_HASH_SALT: settings.php's $drupal_hash_salt");
  const scheme = optional(env, "DRUPAL_SCHEME") ?? "https";
  if (scheme !== "https" && scheme !== "http") throw new TypeError(`DRUPAL_SCHEME must be https or http, not "${scheme}"`);
  const hashedSids = hashedSidsFromEnv(optional(env, "DRUPAL_HASHED_SIDS"));
  const prefix = env.DRUPAL_TABLE_PREFIX ?? "";
  const gcMaxLifetime = seconds(env, "DRUPAL_GC_MAXLIFETIME", 200_000);
  const gcInterval = seconds(env, "DRUPAL_GC_INTERVAL", 900);
  const cookieDomain = optional(env, "DRUPAL_COOKIE_DOMAIN");
  const baseUrl = optional(env, "DRUPAL_BASE_URL");
  const postgres = url.startsWith("postgres");
  // A connection that cannot be made in a second fails the query that waits for it; keep-alive finds an idle dead peer.
  const pool: Drupal7Pool & { end(): Promise<void> } = postgres
    ? new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 1000, keepAlive: true, keepAliveInitialDelayMillis: 1000 })
    : mysql.createPool({
        uri: url.replace(/^mariadb:/, "mysql:"),
        connectionLimit: 10,
        connectTimeout: 1000,
        enableKeepAlive: true,
        keepAliveInitialDelay: 1000,
      });
  // An idle connection the server dropped fails the query that needs it next, not the process.
  if (postgres) (pool as pg.Pool).on("error", () => undefined);
  const database = { pool, prefix };
  const sessionStore = drupal7SessionStore({ ...database, scheme, hashedSids, gcMaxLifetime, gcInterval });
  // The site's own settings: an unreachable database or a wrong prefix stops the start here, with the reason.
  const [site, privateKey] = await Promise.race([
    Promise.all([readDrupal7SiteSettings(database), env.DRUPAL_PRIVATE_KEY ?? readDrupal7PrivateKey(database), sessionStore.ready]),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the Drupal database did not answer in 15 s")), START_TIMEOUT_MS).unref()),
  ]);
  // The throttle's failures are Drupal's flood events: one budget with the site.
  const counterStore = drupal7FloodCounterStore({ ...database, attempts: memoryCounterStore(), gcInterval });
  return {
    sessionStore,
    counterStore,
    authOptions: {
      sessionStore,
      counterStore,
      userStore: drupal7UserStore({ ...database, parallelRun: true }),
      // Drupal 7's own hashes at the site's cost: a password rehashed here is one Drupal neither rehashes back nor cannot check.
      hasher: drupal7Hasher({ countLog2: site.passwordCountLog2, maxCountLog2: Math.max(20, site.passwordCountLog2) }),
      csrfToken: drupal7CsrfToken({ privateKey, hashSalt }),
      throttle: site.throttle,
      touchInterval: site.sessionWriteInterval,
      // Drupal's garbage collection ends a session this long after its last use: never serve one past it.
      idleTimeout: Math.min(200_000, gcMaxLifetime),
      ...(cookieDomain === undefined ? {} : { cookieDomain }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
    },
    close: async () => {
      sessionStore.close();
      counterStore.close();
      await pool.end();
    },
    // The account calls follow the site's variables, sign one-time links as Drupal does, and count
    // password requests in Drupal's flood table, one budget with its password form.
    accounts: { settings: drupal7AccountSettings(database), hashSalt, flood: drupal7Flood(database) },
  };
}
