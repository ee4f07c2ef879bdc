import express from "express";
import mysql from "mysql2/promise";
import { memorySessionStore, scryptHasher } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import {
  drupal7CsrfToken,
  drupal7Hasher,
  drupal7SessionFallback,
  drupal7UserStore,
  importDrupal7Sessions,
  readDrupal7PrivateKey,
  upgradingHasher,
} from "services-session-auth/drupal";

// MariaDB or MySQL. On PostgreSQL: `import pg from "pg"` and `new pg.Pool({ connectionString })`.
const pool = mysql.createPool(process.env.DRUPAL_DB_URL!);
const database = { pool /*, prefix: "drupal_" */ };
// settings.php's session lifetimes (step 1): the auth and the carried-over sessions share them.
const lifetimes = { idleTimeout: 200_000, absoluteTimeout: 2_000_000 };

// Step 3: the sessions the apps hold now. Import the live ones at start-up, then adopt
// any the import missed the first time its cookie comes back. deleteImported keeps a
// logout here final: without it, the fallback would find the row again and adopt it.
const sessions = memorySessionStore();
const { imported, skipped } = await importDrupal7Sessions({ ...database, into: sessions, hashedSids: "auto", deleteImported: true, ...lifetimes });
console.log(`Drupal sessions carried over: ${imported} (skipped: ${skipped})`);

const sessionAuth = createSessionAuthRouter({
  userStore: drupal7UserStore(database),
  sessionStore: drupal7SessionFallback(sessions, { ...database, hashedSids: "auto", ...lifetimes }),
  csrfToken: drupal7CsrfToken({
    privateKey: await readDrupal7PrivateKey(database), // or a copy kept in your secrets
    hashSalt: process.env.DRUPAL_HASH_SALT!,
  }),
  hasher: upgradingHasher({ current: scryptHasher(), legacy: [drupal7Hasher()] }),
  sessionName: "SESSa379a6f6eeafb9a55e378c118034e275", // exactly as the browser shows it
  // or: cookieDomain: ".example.com"  /  baseUrl: "https://example.com", to derive it as Drupal does
  endpoint: "services/json", // the endpoint path from step 1 (this is the default)
  ...lifetimes,
});

export const app = express();
// The proxy in front that ends TLS (here: one on the same host). Express then takes
// req.secure from X-Forwarded-Proto, which sets the cookie's Secure attribute (and picks
// SSESS over SESS for a derived name), and req.ip from X-Forwarded-For, which the login
// throttle counts by. Leave it out if clients connect to Node directly. If Node listens
// on a Unix socket, give the number of proxies instead (1): a socket has no address to
// trust, so "loopback" would leave req.ip undefined (an address.unknown event says so).
app.set("trust proxy", "loopback");
// The endpoint under its path, services/session/token at the site root, and the ?q= URLs
// jDrupal and DrupalGap call (/?q=services/json/user/login.json), all from the site root.
app.use(sessionAuth);
