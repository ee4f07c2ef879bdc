import express from "express";
import mysql from "mysql2/promise";
import { createSessionAuthRouter } from "services-session-auth";
import { drupal7CsrfToken, drupal7Hasher, drupal7SessionStore, drupal7UserStore, readDrupal7PrivateKey } from "services-session-auth/drupal";

// The Drupal database. On PostgreSQL: `new pg.Pool({ connectionString })`.
const pool = mysql.createPool(process.env.DRUPAL_DB_URL!);
const database = { pool /*, prefix: "drupal_" (settings.php's table prefix) */ };

const sessionStore = drupal7SessionStore({
  ...database,
  scheme: "https", // how Drupal serves logged-in pages: its cookie is SSESS… ("http": SESS…)
  hashedSids: "auto", // false if settings.php sets $conf['do_not_hash_session_ids']
  gcMaxLifetime: 200_000, // settings.php's ini_set('session.gc_maxlifetime', …)
});
await sessionStore.ready; // refuses a mixed-mode HTTPS site, and fails fast on a bad URL

const sessionAuth = createSessionAuthRouter({
  userStore: drupal7UserStore({ ...database, parallelRun: true }),
  sessionStore,
  hasher: drupal7Hasher(), // Drupal's own $S$ hashes: both systems check them
  csrfToken: drupal7CsrfToken({
    privateKey: await readDrupal7PrivateKey(database), // the drupal_private_key variable
    hashSalt: process.env.DRUPAL_HASH_SALT!, // settings.php's $drupal_hash_salt
  }),
  secret: process.env.SESSION_SECRET!,
  idleTimeout: 200_000, // at most gcMaxLifetime
  touchInterval: 180, // Drupal's session_write_interval
});

export const app = express();
app.set("trust proxy", "loopback"); // the proxy below
app.use(sessionAuth);
