import type { Drupal7Database } from "../drupal/database.js";
import { readSessionVariables, DRUPAL_SESSION_WRITE_INTERVAL } from "../drupal/session-variables.js";
import { siteSettingsOf } from "../drupal/site-settings.js";
import { DRUPAL_HASH_COUNT } from "../drupal/password-crypt.js";

/**
 * What `drupal7 check` finds out about a Drupal 7 site (docs/running-beside-drupal-7.md): what the
 * database says (how session ids are kept, the password cost, the login limits), what sharing
 * sessions and accounts with the live site needs (`--parallel-run`), and what lives in
 * settings.php alone, which the check cannot read, with how to confirm each by hand.
 *
 * @module
 */

/** One line of the report: `ok`, a `note` (a setting to mirror, something to confirm), a `warning` (to mend; the exit status is unchanged), or a `problem` (exit 1). */
export interface Finding {
  readonly level: "ok" | "note" | "warning" | "problem";
  readonly text: string;
}

const count = (value: unknown) => Number(value ?? 0);

/** What the `variable` table says of sessions and passwords: every check reports it. */
export async function siteFindings(db: Drupal7Database): Promise<Finding[]> {
  const facts = await readSessionVariables(db);
  const site = await siteSettingsOf(db);
  const sessions = db.table("sessions");
  return [
    facts.hashedSids
      ? {
          level: "ok",
          text: `${sessions}.sid holds hashed ids (core 7.98+; hashed_session_ids_supported): drupal7SessionStore's hashedSids "auto" reads the same, unless settings.php sets do_not_hash_session_ids (see below).`,
        }
      : {
          level: "ok",
          text: `${sessions}.sid holds raw ids (before core 7.98, or do_not_hash_session_ids in the variable table): hashedSids "auto" reads the same.`,
        },
    {
      level: "ok",
      text:
        site.passwordCountLog2 === DRUPAL_HASH_COUNT
          ? `password_count_log2 is ${site.passwordCountLog2} (Drupal's default): drupal7Hasher() hashes at the same cost.`
          : `password_count_log2 is ${site.passwordCountLog2}: give drupal7Hasher({ countLog2: ${site.passwordCountLog2} }) (readDrupal7SiteSettings reads it), or Drupal rehashes every password the app wrote and ends the user's sessions each time.`,
    },
  ];
}

/** What sharing sessions and accounts with the running site needs (`--parallel-run`). */
export async function parallelRunFindings(db: Drupal7Database): Promise<Finding[]> {
  const findings: Finding[] = [];
  const facts = await readSessionVariables(db);
  const site = await siteSettingsOf(db);
  const sessions = db.table("sessions");
  const [rows] = await db.select<{ https: unknown; http: unknown; twice: unknown }>(
    `SELECT SUM(CASE WHEN ssid <> '' AND ${same(db, "ssid", "sid")} THEN 1 ELSE 0 END) AS https, SUM(CASE WHEN ssid = '' THEN 1 ELSE 0 END) AS http, ` +
      `SUM(CASE WHEN ssid <> '' AND NOT ${same(db, "ssid", "sid")} THEN 1 ELSE 0 END) AS twice FROM ${sessions} WHERE uid > 0`,
    [],
  );
  const [https, http, both] = [count(rows?.https), count(rows?.http), count(rows?.twice)];
  findings.push({
    level: "ok",
    text:
      `Drupal's logged-in sessions: ${https} written over HTTPS, ${http} over HTTP, ${both} keyed by two cookies. drupal7SessionStore reads and writes each ` +
      `request's rows by its scheme, as Drupal's $is_https does: behind a proxy that ends TLS, trust it (trust proxy) so the app sees HTTPS.`,
  });
  if (facts.mixedModeHttps || both > 0)
    findings.push({
      level: "note",
      text:
        `${facts.mixedModeHttps ? "the variable https is TRUE: mixed-mode HTTPS" : "rows keyed by two cookies: mixed-mode HTTPS ($conf['https'] in settings.php), or sessions begun over HTTPS that logged in over HTTP"}. ` +
        "The app serves them under either cookie as Drupal does; a login on the app over HTTPS starts a session keyed by the secure cookie alone (docs/differences-from-drupal.md).",
    });
  findings.push(
    facts.privateKey
      ? { level: "ok", text: "the variable drupal_private_key is there: drupal7CsrfToken makes Drupal's tokens with it and settings.php's $drupal_hash_salt." }
      : {
          level: "problem",
          text: "the variable drupal_private_key is missing: Drupal makes it on its first token (a page with a form); CSRF tokens cannot be shared until then.",
        },
  );
  if (facts.sessionWriteInterval !== DRUPAL_SESSION_WRITE_INTERVAL)
    findings.push({
      level: "note",
      text: `the variable session_write_interval is ${facts.sessionWriteInterval}: give createSessionAuthRouter touchInterval: ${facts.sessionWriteInterval}.`,
    });
  const limits = site.throttle;
  findings.push({
    level: "ok",
    text:
      `Drupal's login flood limits: ${limits.ipLimit} failures per address in ${limits.ipWindow} s, ${limits.userLimit} per account${limits.perAccountOnly ? "" : " and address"} in ${limits.userWindow} s: ` +
      `give the router throttle: ${JSON.stringify(limits)} and drupal7FloodCounterStore, so both count failures in ${db.table("flood")}.` +
      (site.servicesFloodControl ? "" : " (services_flood_control_enabled is FALSE: Services' login does not count them; Drupal's login form and the app do.)"),
  });

  // user_check_password() reads $S$, $H$, $P$ and U$…; anything else locks its account out of Drupal.
  const pass = db.dialect === "mysql" ? "CAST(pass AS BINARY)" : "pass";
  const [locked] = await db.select<{ n: unknown }>(
    `SELECT COUNT(*) AS n FROM ${db.table("users")} WHERE uid > 0 AND pass <> '' AND NOT (${pass} LIKE '$S$%' OR ${pass} LIKE '$H$%' OR ${pass} LIKE '$P$%' OR ${pass} LIKE 'U$%')`,
    [],
  );
  const lockedOut = count(locked?.n);
  findings.push(
    lockedOut === 0
      ? {
          level: "ok",
          text: "every password hash is one Drupal 7 checks: keep drupal7UserStore's parallelRun on, and drupal7Hasher() as the hasher, while Drupal serves logins.",
        }
      : {
          level: "problem",
          text: `${lockedOut} accounts have a password hash Drupal 7 cannot check (a rehash to another format): they cannot log in on Drupal until they reset their password there. Turn drupal7UserStore's parallelRun on.`,
        },
  );
  return findings;
}

/** What settings.php decides and the database never shows: each to confirm by hand, with where to look. */
export const UNSEEN_SETTINGS: readonly string[] = [
  "$conf['https'] (mixed-mode HTTPS): grep -n \"conf\\['https'\\]\" sites/*/settings.php. Served as Drupal serves it; see docs/differences-from-drupal.md.",
  "$conf['do_not_hash_session_ids']: grep -n do_not_hash_session_ids sites/*/settings.php; if TRUE, give drupal7SessionStore hashedSids: false (the example: DRUPAL_HASHED_SIDS=false).",
  "$cookie_domain and $base_url: grep -nE '^\\s*\\$(cookie_domain|base_url)' sites/*/settings.php; give cookieDomain / baseUrl, then compare npx services-session-auth session-name <url> with the Set-Cookie Drupal sends.",
  "$conf['reverse_proxy'], reverse_proxy_addresses and reverse_proxy_header, and $_SERVER['HTTPS'] set from X-Forwarded-Proto: grep -n reverse_proxy sites/*/settings.php; trust the same proxies in the app (trust proxy / trustProxy), or the two sides disagree on the client's address and the scheme.",
  "ini_set('session.gc_maxlifetime', …): grep -n gc_maxlifetime sites/*/settings.php (Drupal's default.settings.php: 200000); give drupal7SessionStore gcMaxLifetime and an idleTimeout no longer.",
  "$drupal_hash_salt: grep -n drupal_hash_salt sites/*/settings.php; give drupal7CsrfToken hashSalt (if empty, Drupal used hash('sha256', serialize($databases))).",
  "the table prefix in $databases: grep -n prefix sites/*/settings.php; give --table-prefix here and prefix to every store.",
  "$conf['…'] overrides of variables this check read (password_count_log2, user_failed_login_*, session_write_interval, https): grep -n '\\$conf\\[' sites/*/settings.php; settings.php wins over the variable table.",
];

/** Two columns equal as bytes (MySQL's usual collation ignores case). */
function same(db: Drupal7Database, a: string, b: string): string {
  return db.dialect === "mysql" ? `CAST(${a} AS BINARY) = CAST(${b} AS BINARY)` : `${a} = ${b}`;
}
