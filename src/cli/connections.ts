import { readFileSync } from "node:fs";
import type { Drupal7Pool } from "../drupal/database.js";
import type { RedisClientLike } from "../stores/redis/client.js";
import { credentialsOf } from "./redact.js";
import { UsageError, type Io } from "./usage.js";

/**
 * Where the commands find their database and Redis, and how they connect. A URL with a
 * password is read from the environment or a file by default, never needed on the command
 * line, where `ps` and the shell's history would show it.
 *
 * @module
 */

/** One connection a command needs: its option, the option naming a file that holds the URL, and the variables. */
export interface ConnectionSource {
  /** The option that takes the URL itself, e.g. `database` for `--database`. */
  readonly option: string;
  /** The variable that holds the URL, e.g. `DATABASE_URL`; `${env}_FILE` names a file that holds it. */
  readonly env: string;
}

/** The Drupal database. */
export const DATABASE: ConnectionSource = { option: "database", env: "DATABASE_URL" };
/** The Redis that sessions go into. */
export const REDIS: ConnectionSource = { option: "redis", env: "REDIS_URL" };

/** The options of {@link ConnectionSource}s, for `parseArgs`. */
export function connectionOptions(...sources: readonly ConnectionSource[]): Record<string, { type: "string" }> {
  const options: Record<string, { type: "string" }> = {};
  for (const { option } of sources) {
    options[option] = { type: "string" };
    options[`${option}-url-file`] = { type: "string" };
  }
  return options;
}

/**
 * The URL for one connection, from the first of `--<option>`, `--<option>-url-file`, `$<ENV>`,
 * `$<ENV>_FILE`; its credentials go to `secrets` at once, for redaction.
 * @throws UsageError when none is given, or both the option and its file.
 */
export function connectionUrl(source: ConnectionSource, values: Readonly<Record<string, unknown>>, io: Io, secrets: string[], command: string): string {
  const { option, env } = source;
  const direct = values[option] as string | undefined;
  const file = values[`${option}-url-file`] as string | undefined;
  if (direct !== undefined && file !== undefined) throw new UsageError(`${command}: give --${option} or --${option}-url-file, not both`);
  let url: string | undefined;
  if (direct !== undefined) {
    url = direct;
    if (credentialsOf(url).length > 1) {
      io.stderr.write(
        `services-session-auth: warning: the password in --${option} shows in ps and in the shell's history; put the URL in $${env} or a file (--${option}-url-file) instead\n`,
      );
    }
  } else if (file !== undefined) {
    url = readUrlFile(file, `--${option}-url-file`);
  } else if (io.env[env] !== undefined && io.env[env] !== "") {
    url = io.env[env];
  } else if (io.env[`${env}_FILE`] !== undefined && io.env[`${env}_FILE`] !== "") {
    url = readUrlFile(io.env[`${env}_FILE`]!, `$${env}_FILE`);
  }
  if (url !== undefined) secrets.push(...credentialsOf(url));
  if (url === undefined || url === "")
    throw new UsageError(`${command}: the ${option} URL is needed: $${env}, a file named by --${option}-url-file or $${env}_FILE, or --${option}`);
  return url;
}

/** A URL kept in a file (a Docker or Kubernetes secret, a file only the operator can read). */
function readUrlFile(path: string, from: string): string {
  let content: string;
  try {
    content = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${from} ${path}: ${(error as { code?: string }).code ?? (error as Error).message}`);
  }
  const url = content.trim();
  if (url === "") throw new Error(`${from} ${path} is empty`);
  return url;
}

/** What the command needs from an optional peer it loads: the package name, for the message when it is missing. */
async function peer<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND")
      throw new Error(`this command needs the ${name} package next to this one: npm install ${name}`);
    throw error;
  }
}

/** A pool for the database URL, and how to close it. Two connections: a page is read ahead while the count runs. */
export async function openDatabase(url: string): Promise<{ pool: Drupal7Pool; close(): Promise<void> }> {
  const protocol = url.slice(0, url.indexOf(":") + 1).toLowerCase();
  if (protocol === "mysql:" || protocol === "mariadb:") {
    const mysql = await peer("mysql2", () => import("mysql2/promise"));
    const pool = mysql.createPool({ uri: `mysql:${url.slice(protocol.length)}`, connectionLimit: 3 });
    return { pool, close: () => pool.end() };
  }
  if (protocol === "postgres:" || protocol === "postgresql:") {
    const { default: pg } = await peer("pg", () => import("pg"));
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    // An idle connection dropped by the server must fail the query that next needs it, not the process.
    pool.on("error", () => undefined);
    return { pool, close: () => pool.end() };
  }
  throw new UsageError("--database must be a mysql://, mariadb://, postgres:// or postgresql:// URL");
}

/** A connected Redis client that fails at once when Redis is down; a cluster client on a Redis Cluster node, so writes reach each slot's owner. */
export async function openRedis(url: string): Promise<{ client: RedisClientLike; close(): Promise<void> }> {
  if (!/^rediss?:\/\//i.test(url)) throw new UsageError("--redis must be a redis:// or rediss:// URL");
  const { createClient, createCluster } = await peer("redis", () => import("redis"));
  const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: false } });
  // Failures reach the command that was waiting; the event would otherwise end the process with a stack.
  client.on("error", () => undefined);
  await client.connect();
  if (!/^cluster_enabled:1\s*$/m.test(String(await client.info("cluster"))))
    return { client: client as unknown as RedisClientLike, close: () => client.close() };
  client.destroy();
  // The other nodes are reached at the addresses the cluster gives, with the URL's credentials and TLS.
  const { username, password, protocol } = new URL(url);
  const defaults = {
    ...(username === "" ? {} : { username: decodeURIComponent(username) }),
    ...(password === "" ? {} : { password: decodeURIComponent(password) }),
    disableOfflineQueue: true,
    socket: protocol === "rediss:" ? { tls: true as const, reconnectStrategy: false as const } : { reconnectStrategy: false as const },
  };
  const cluster = createCluster({ rootNodes: [{ url }], defaults });
  cluster.on("error", () => undefined);
  await cluster.connect();
  return { client: cluster as unknown as RedisClientLike, close: () => cluster.close() };
}
