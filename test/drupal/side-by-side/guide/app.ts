import express from "express";
import mysql from "mysql2/promise";
import { createSessionAuthRouter } from "services-session-auth/express";
import {
  drupal7CsrfToken,
  drupal7FloodCounterStore,
  drupal7Hasher,
  drupal7SessionStore,
  drupal7UserStore,
  readDrupal7PrivateKey,
  readDrupal7SiteSettings,
} from "services-session-auth/drupal";

// The Drupal database. On PostgreSQL: `new pg.Pool({ connectionString })`.
const pool = mysql.createPool(process.env.DRUPAL_DB_URL!);
const database = { pool /*, prefix: "drupal_" (settings.php's table prefix) */ };
// password_count_log2, the user_failed_login_* limits and session_write_interval, from the variable table.
const site = await readDrupal7SiteSettings(database);

const sessionAuth = createSessionAuthRouter({
  userStore: drupal7UserStore({ ...database, parallelRun: true }),
  sessionStore: drupal7SessionStore({
    ...database,
    hashedSids: "auto", // false if settings.php sets $conf['do_not_hash_session_ids']
    gcMaxLifetime: 200_000, // settings.php's ini_set('session.gc_maxlifetime', …); unused rows are collected
  }),
  counterStore: drupal7FloodCounterStore(database), // failed logins in Drupal's flood table: one budget with Drupal
  throttle: site.throttle,
  hasher: drupal7Hasher({ countLog2: site.passwordCountLog2 }), // Drupal's own $S$ hashes, at its cost
  csrfToken: drupal7CsrfToken({
    privateKey: await readDrupal7PrivateKey(database), // the drupal_private_key variable
    hashSalt: process.env.DRUPAL_HASH_SALT!, // settings.php's $drupal_hash_salt
  }),
  secret: process.env.SESSION_SECRET!,
  idleTimeout: 200_000, // at most gcMaxLifetime
  touchInterval: site.sessionWriteInterval,
});
const players = [{ id: 1, name: "Ada Lovelace" }];

const app = express();
app.set("trust proxy", "loopback"); // the proxy below: each request's scheme and client address
app.use(sessionAuth); // user/login, user/logout, user/token, system/connect, services/session/token, ?q= paths
app.get("/services/json/players", sessionAuth.requireSession(), (_req, res) => void res.json(players)); // a resource ported here
app.use("/services/json", sessionAuth.notFound({ resources: ["players"] })); // Services' 404s, for a path sent here by mistake
app.use(sessionAuth.notFound());
app.use(sessionAuth.errorHandler()); // last: errors in the wire format, never a stack trace

export const server = app.listen(Number(process.env.PORT ?? 3000), "127.0.0.1");
