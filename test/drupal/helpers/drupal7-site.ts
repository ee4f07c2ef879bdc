/**
 * A REAL Drupal 7.101 + Services site for side-by-side tests: `../shared/drupal7/site.sh`
 * (outside this repository: its GPL sources are never copied here) installs it on a fresh
 * MariaDB or PostgreSQL database and serves it with PHP's built-in server. Without PHP, the
 * kit, or the database server's URL (MYSQL_URL, POSTGRES_URL: the signal that the server runs),
 * a suite is one visible skipped test and a console warning (a failure under
 * `REQUIRE_DRUPAL7_SITES=1`, as in CI). `SKIP_DRUPAL7_SITES=1` skips them too (CI runs them
 * once, not on every Node version).
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Drupal7Pool } from "services-session-auth/drupal";

const run = promisify(execFile);

/** The kit, beside the repository as `../shared/drupal7` (a copy of it in CI). */
export const SITE_KIT = fileURLToPath(new URL("../../../../shared/drupal7/site.sh", import.meta.url));

/** Ports of the sites these tests start: DRUPAL7_TEST_PORT (default 19610) plus each suite's offset. */
const PORT_BASE = Number(process.env.DRUPAL7_TEST_PORT ?? 19610);

/** A port of the range these tests own (DRUPAL7_TEST_PORT + `offset`), for a server of theirs that is not a Drupal site. */
export function testPort(offset: number): number {
  return PORT_BASE + offset;
}

/** A site as `site.sh up` printed it, and a pool on its database. */
export interface DrupalSite {
  readonly dialect: "mysql" | "postgres";
  /** `http://127.0.0.1:PORT`. */
  readonly baseUrl: string;
  readonly port: number;
  readonly dbUrl: string;
  readonly privateKey: string;
  readonly hashSalt: string;
  /** Whether settings.php has `$conf['do_not_hash_session_ids'] = TRUE` (sessions.sid holds the raw id). */
  readonly rawSids: boolean;
  readonly workDir: string;
  readonly pool: Drupal7Pool;
  /** Runs SQL with `?` placeholders on the site's database. */
  sql<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]>;
  /** Runs Drupal's cron and its session garbage collection with `lifetime` (PHP's session.gc_maxlifetime), as a CLI bootstrap of the site. */
  garbageCollect(lifetime: number): Promise<void>;
  /** Appends PHP lines to the site's settings.php (its next request reads them); resolves the undo. */
  settings(php: string): Promise<() => Promise<void>>;
  /** Sets a variable (its value PHP-serialized) as variable_set() does, the cached copy dropped; `null` deletes it. */
  variable(name: string, serialized: string | null): Promise<void>;
}

/** Why side-by-side suites cannot run here, or `null` when they can. */
function missing(env: "MYSQL_URL" | "POSTGRES_URL"): string | null {
  if (process.env.SKIP_DRUPAL7_SITES === "1") return "SKIP_DRUPAL7_SITES=1";
  if (!existsSync(SITE_KIT)) return `no Drupal 7 kit at ${SITE_KIT}`;
  try {
    execFileSync("php", ["-v"], { stdio: "ignore" });
  } catch {
    return "PHP is not installed (../shared/drupal7/site.sh install)";
  }
  if (process.env[env] === undefined || process.env[env] === "") return `${env} not set`;
  return null;
}

/** The PHP that runs cron and the session GC of a site, from its own root (Drupal's, read at run time, never copied). */
const GC_SCRIPT = `
define('DRUPAL_ROOT', getcwd());
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['REQUEST_METHOD'] = 'GET';
require_once DRUPAL_ROOT . '/includes/bootstrap.inc';
drupal_bootstrap(DRUPAL_BOOTSTRAP_FULL);
drupal_cron_run();
_drupal_session_garbage_collection((int) $argv[1]);
`;

async function startSite(
  port: number,
  dialect: "mysql" | "postgres",
  rawSids: boolean,
  accounts = false,
): Promise<{ site: DrupalSite; stop(): Promise<void> }> {
  const flags = ["up", String(port), "--db", dialect === "mysql" ? "mysql" : "pgsql", ...(accounts ? ["--accounts"] : [])];
  const { stdout } = await run(SITE_KIT, flags, { maxBuffer: 1 << 20 });
  const env = Object.fromEntries([...stdout.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  const drupalRoot = `${env.WORK_DIR}/drupal`;
  // What default.settings.php offers sites that must not hash session ids.
  if (rawSids) appendFileSync(`${drupalRoot}/sites/default/settings.php`, "\n$conf['do_not_hash_session_ids'] = TRUE;\n");
  const pool = dialect === "mysql" ? mysql.createPool({ uri: env.DB_URL!, connectionLimit: 4 }) : new pg.Pool({ connectionString: env.DB_URL!, max: 4 });
  if (dialect === "postgres") (pool as pg.Pool).on("error", () => undefined);
  const sql = async <Row>(text: string, values: unknown[] = []): Promise<Row[]> => {
    if (dialect === "mysql") return (await (pool as mysql.Pool).query(text, values))[0] as Row[];
    let n = 0;
    return (
      await (pool as pg.Pool).query(
        text.replace(/\?/g, () => `$${++n}`),
        values,
      )
    ).rows as Row[];
  };
  const site: DrupalSite = {
    dialect,
    baseUrl: env.BASE_URL!,
    port,
    dbUrl: env.DB_URL!,
    privateKey: env.PRIVATE_KEY!,
    hashSalt: env.HASH_SALT!,
    rawSids,
    workDir: env.WORK_DIR!,
    pool,
    sql,
    async garbageCollect(lifetime) {
      await run("php", ["-r", GC_SCRIPT, String(lifetime)], { cwd: drupalRoot });
    },
    async settings(php) {
      const file = `${drupalRoot}/sites/default/settings.php`;
      const before = readFileSync(file, "utf8");
      writeFileSync(file, `${before}\n${php}\n`);
      return async () => writeFileSync(file, before);
    },
    async variable(name, serialized) {
      await sql("DELETE FROM variable WHERE name = ?", [name]);
      if (serialized !== null) await sql("INSERT INTO variable (name, value) VALUES (?, ?)", [name, Buffer.from(serialized)]);
      // variable_initialize() reads the cached copy first.
      await sql("DELETE FROM cache_bootstrap WHERE cid = 'variables'");
    },
  };
  return {
    site,
    async stop() {
      await pool.end();
      await run(SITE_KIT, ["down", env.PID!]);
      await run(SITE_KIT, ["drop", env.DB_NAME!, "--db", dialect === "mysql" ? "mysql" : "pgsql"]);
    },
  };
}

/** The variants a side-by-side suite runs in: each database, with hashed ids (7.98+) and with `do_not_hash_session_ids`. */
export interface SiteVariant {
  readonly dialect: "mysql" | "postgres";
  readonly rawSids: boolean;
}

const VARIANTS: readonly (SiteVariant & { env: "MYSQL_URL" | "POSTGRES_URL" })[] = [
  { dialect: "mysql", rawSids: false, env: "MYSQL_URL" },
  { dialect: "postgres", rawSids: false, env: "POSTGRES_URL" },
  { dialect: "mysql", rawSids: true, env: "MYSQL_URL" },
  { dialect: "postgres", rawSids: true, env: "POSTGRES_URL" },
];

/**
 * Runs `body` against a real Drupal site per variant (sites on ports `offset`, `offset + 1`, …
 * above DRUPAL7_TEST_PORT; a suite takes an offset of its own, four ports wide). `only`
 * narrows the variants; `kit.accounts` stands the sites up with `--accounts` (the whole user
 * resource on the endpoint, mail kept in the variable `drupal_test_email_collector`).
 */
export function describeBesideDrupal(
  title: string,
  offset: number,
  body: (site: () => DrupalSite, variant: SiteVariant) => void,
  only: (variant: SiteVariant) => boolean = () => true,
  kit: { readonly accounts?: boolean } = {},
): void {
  VARIANTS.forEach((variant, index) => {
    if (!only(variant)) return;
    const label = `${title} (Drupal 7 on ${variant.dialect === "mysql" ? "MariaDB" : "PostgreSQL"}, ${variant.rawSids ? "do_not_hash_session_ids" : "hashed session ids"})`;
    describe(label, () => {
      const why = missing(variant.env);
      // CI installs PHP and sets the URLs: there, a suite that cannot run is a failure, not a skip.
      if (why !== null && process.env.REQUIRE_DRUPAL7_SITES === "1" && process.env.SKIP_DRUPAL7_SITES !== "1") {
        it(`"${title}" needs a real Drupal 7 site`, () => {
          throw new Error(`${why}, and REQUIRE_DRUPAL7_SITES=1`);
        });
        return;
      }
      if (why !== null) {
        console.warn(`${why}: skipping "${label}"`);
        it.skip(`${why}: "${title}" needs a real Drupal 7 site (../shared/drupal7/site.sh)`, () => {});
        return;
      }
      let started: Awaited<ReturnType<typeof startSite>> | undefined;
      beforeAll(async () => {
        started = await startSite(PORT_BASE + offset + index, variant.dialect, variant.rawSids, kit.accounts === true);
      }, 120_000);
      afterAll(async () => {
        await started?.stop();
      }, 60_000);
      body(() => {
        if (started === undefined) throw new Error("the Drupal site did not start");
        return started.site;
      }, variant);
    });
  });
}
