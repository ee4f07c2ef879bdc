import type { Drupal7Database } from "../drupal/database.js";
import { hasMixedModeRows, MIXED_MODE_REFUSED, mixedModeRowSql, readSessionFacts, DRUPAL_SESSION_WRITE_INTERVAL } from "../drupal/session-facts.js";

/**
 * What `drupal7 check --parallel-run` finds out before Drupal and the app share sessions (docs/running-beside-drupal-7.md):
 * session ids and scheme, whether Drupal's CSRF tokens can be made, and hashes Drupal cannot check.
 *
 * @module
 */

/** One line of the report: `ok`, a `note` (a setting to mirror), or a `problem` (exit 1). */
export interface Finding {
  readonly level: "ok" | "note" | "problem";
  readonly text: string;
}

const count = (value: unknown) => Number(value ?? 0);

/** Reads the facts and turns them into findings, in the order an operator acts on them. */
export async function parallelRunFindings(db: Drupal7Database): Promise<Finding[]> {
  const findings: Finding[] = [];
  const facts = await readSessionFacts(db);
  const sessions = db.table("sessions");
  findings.push(
    facts.hashedSids
      ? {
          level: "ok",
          text: `${sessions}.sid holds hashed ids (core 7.98+): drupal7SessionStore's hashedSids "auto" reads the same; if settings.php sets $conf['do_not_hash_session_ids'], give hashedSids: false.`,
        }
      : { level: "ok", text: `${sessions}.sid holds raw ids (before core 7.98, or do_not_hash_session_ids in variable): hashedSids "auto" reads the same.` },
  );
  if (facts.mixedModeHttps) findings.push({ level: "problem", text: `the variable https is TRUE: ${MIXED_MODE_REFUSED}.` });
  else if (await hasMixedModeRows(db))
    findings.push({ level: "problem", text: `${sessions} has rows written under mixed-mode HTTPS ($conf['https'] in settings.php): ${MIXED_MODE_REFUSED}.` });

  const [schemes] = await db.select<{ https: unknown; http: unknown }>(
    `SELECT SUM(CASE WHEN ssid <> '' THEN 1 ELSE 0 END) AS https, SUM(CASE WHEN ssid = '' THEN 1 ELSE 0 END) AS http FROM ${sessions} WHERE uid > 0 AND NOT (${mixedModeRowSql(db)})`,
    [],
  );
  const https = count(schemes?.https);
  const http = count(schemes?.http);
  if (https + http === 0)
    findings.push({ level: "note", text: `no logged-in session in ${sessions} yet: give drupal7SessionStore the scheme the site is served with.` });
  else if (https > 0 && http > 0)
    findings.push({
      level: "note",
      text: `Drupal wrote ${https} logged-in sessions over HTTPS and ${http} over HTTP: serve the site over one scheme, and give drupal7SessionStore that scheme.`,
    });
  else
    findings.push({
      level: "ok",
      text: `Drupal writes its sessions over ${https > 0 ? "HTTPS" : "HTTP"}: give drupal7SessionStore scheme: "${https > 0 ? "https" : "http"}".`,
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
