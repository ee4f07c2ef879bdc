import { parseArgs, type ParseArgsConfig } from "node:util";

/** Where a command writes and the environment it reads: the process's in the `bin`, a stand-in in tests. */
export interface Io {
  readonly stdout: Pick<NodeJS.WriteStream, "write">;
  readonly stderr: Pick<NodeJS.WriteStream, "write"> & { readonly isTTY?: boolean; readonly columns?: number };
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A wrong command line: reported with the usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The help text, printed by `help` and after a usage error. */
export const USAGE = `Usage: services-session-auth <command> [options]

Commands:
  secret                            Print a new random secret for createSessionAuthRouter({ secret }).

  session-name <public URL>         Print the session cookie that clients of this URL get:
                                    name (SESS/SSESS…), Domain and the other attributes.
    --cookie-domain <domain>        the cookieDomain option (settings.php $cookie_domain)
    --base-url <url>                the baseUrl option (settings.php $base_url)
    --cookie-secure auto|always     the cookieSecure option (default auto)
    --same-site lax|strict|none     the sameSite option (default: not sent)
    --absolute-timeout <seconds>    the absoluteTimeout option (default 2000000)
    --json                          print the description as JSON

  drupal7 check                     Say how logins will find names in the Drupal database
                                    ($DATABASE_URL) (on PostgreSQL without an index on
                                    LOWER(name), a warning with the CREATE INDEX to run), how
                                    session ids are kept, password_count_log2, and what
                                    settings.php decides that the database cannot show, with how
                                    to confirm each by hand. Exit 1 only for a problem.
    --table-prefix <prefix>         settings.php's table prefix (default none)
    --parallel-run                  also check what sharing sessions and accounts with the
                                    running Drupal site needs (drupal7SessionStore, parallelRun):
                                    the schemes sessions were written over, mixed-mode HTTPS, the
                                    private key for CSRF tokens, the write interval, the login
                                    flood limits, and passwords Drupal cannot check

  drupal7 import-sessions           Copy Drupal 7's live sessions ($DATABASE_URL) into the Redis
                                    session store ($REDIS_URL).
                                    Run it before traffic moves: run again after, it would bring
                                    back sessions ended since (unless --delete-imported was used).
    --redis-prefix <prefix>         the store's key prefix, as given to redisSessionStore (default ssa:)
    --table-prefix <prefix>         settings.php's table prefix (default none)
    --hashed-sids auto|true|false   whether sessions.sid is hashed, as on core 7.98+ (default auto)
    --idle-timeout <seconds>        the idleTimeout option (default 200000)
    --absolute-timeout <seconds>    the absoluteTimeout option (default 2000000)
    --batch-size <rows>             rows per page read and per store write (default 1000)
    --delete-imported               delete each imported row from Drupal's sessions table
    --dry-run                       read and count everything, write nothing

  help                              Print this text.

Connections: the database URL (mysql://… or postgres://…) is read from $DATABASE_URL, or from
a file named by --database-url-file <path> or $DATABASE_URL_FILE; the Redis URL (redis://… or
rediss://…, one server or any Redis Cluster node) from $REDIS_URL, --redis-url-file <path> or
$REDIS_URL_FILE. --database <url> and --redis <url> work too, but a password given there shows
in ps and in the shell's history.
`;

/** `parseArgs` in strict mode, its errors turned into usage errors. */
export function parse<T extends NonNullable<ParseArgsConfig["options"]>>(args: readonly string[], options: T, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: positionals > 0 });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument ${parsed.positionals[positionals]}`);
  return parsed;
}

/** A whole number of seconds or rows from an option, or `undefined` when not given. */
export function positiveInteger(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${option} must be a whole number above 0, not ${value}`);
  return Number(value);
}

/** One of a few words from an option, or `undefined` when not given. */
export function oneOf<T extends string>(value: string | undefined, option: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${option} must be ${allowed.join(", ")}, not ${value}`);
  return value as T;
}
