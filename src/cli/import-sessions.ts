import type { Drupal7Pool } from "../drupal/database.js";
import { importDrupal7Sessions, type ImportDrupal7SessionsResult } from "../drupal/session-import.js";
import type { RedisClientLike } from "../stores/redis/client.js";
import { redisSessionStore } from "../stores/redis/redis-session-store.js";
import { progressReporter } from "./progress.js";
import { credentialsOf } from "./redact.js";
import { oneOf, parse, positiveInteger, UsageError, type Io } from "./usage.js";

/** What the command needs from an optional peer it loads: the package name, for the message when it is missing. */
async function peer<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND") throw new Error(`drupal7 import-sessions needs the ${name} package next to this one: npm install ${name}`);
    throw error;
  }
}

/** A pool for the database URL, and how to close it. Two connections: a page is read ahead while the count runs. */
async function openDatabase(url: string): Promise<{ pool: Drupal7Pool; close(): Promise<void> }> {
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

/**
 * A connected Redis client that fails at once, instead of retrying, when Redis cannot be
 * reached; a cluster client when the server says it is a node of a Redis Cluster (the URL is
 * then its first node), so that every session is written to the node that owns its slot.
 */
async function openRedis(url: string): Promise<{ client: RedisClientLike; close(): Promise<void> }> {
  if (!/^rediss?:\/\//i.test(url)) throw new UsageError("--redis must be a redis:// or rediss:// URL");
  const { createClient, createCluster } = await peer("redis", () => import("redis"));
  const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: false } });
  // Failures reach the command that was waiting; the event would otherwise end the process with a stack.
  client.on("error", () => undefined);
  await client.connect();
  if (!/^cluster_enabled:1\s*$/m.test(String(await client.info("cluster")))) return { client: client as unknown as RedisClientLike, close: () => client.close() };
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

const number = (n: number) => n.toLocaleString("en-US");

/**
 * `drupal7 import-sessions`: {@link importDrupal7Sessions} from a database URL into the
 * Redis session store, with a progress bar on stderr and a summary on stdout. `secrets`
 * receives the URLs' credentials as soon as they are read, for the caller's error message.
 */
export async function importSessionsCommand(args: readonly string[], io: Io, secrets: string[]): Promise<void> {
  const { values } = parse(
    args,
    {
      database: { type: "string" },
      redis: { type: "string" },
      "redis-prefix": { type: "string" },
      "table-prefix": { type: "string" },
      "hashed-sids": { type: "string" },
      "idle-timeout": { type: "string" },
      "absolute-timeout": { type: "string" },
      "batch-size": { type: "string" },
      "delete-imported": { type: "boolean" },
      "dry-run": { type: "boolean" },
    },
    0,
  );
  const databaseUrl = values.database ?? io.env.DATABASE_URL;
  const redisUrl = values.redis ?? io.env.REDIS_URL;
  for (const url of [databaseUrl, redisUrl]) if (url !== undefined) secrets.push(...credentialsOf(url));
  if (databaseUrl === undefined || databaseUrl === "") throw new UsageError("drupal7 import-sessions: --database (or DATABASE_URL) is needed");
  if (redisUrl === undefined || redisUrl === "") throw new UsageError("drupal7 import-sessions: --redis (or REDIS_URL) is needed");
  if (!URL.canParse(databaseUrl)) throw new UsageError("--database is not a URL (mysql://user:password@host:3306/drupal, postgres://…)");
  if (!URL.canParse(redisUrl)) throw new UsageError("--redis is not a URL (redis://host:6379, rediss://…)");
  const hashed = oneOf(values["hashed-sids"], "hashed-sids", ["auto", "true", "false"]);
  const dryRun = values["dry-run"] === true;
  const options = {
    prefix: values["table-prefix"],
    hashedSids: hashed === undefined || hashed === "auto" ? ("auto" as const) : hashed === "true",
    idleTimeout: positiveInteger(values["idle-timeout"], "idle-timeout"),
    absoluteTimeout: positiveInteger(values["absolute-timeout"], "absolute-timeout"),
    batchSize: positiveInteger(values["batch-size"], "batch-size"),
    deleteImported: values["delete-imported"] === true,
    dryRun,
  };

  const database = await openDatabase(databaseUrl);
  try {
    // A dry run connects too, so that it checks the whole set-up; the import then writes nothing.
    const redis = await openRedis(redisUrl);
    try {
      const into = redisSessionStore({ client: redis.client, prefix: values["redis-prefix"] });
      const progress = progressReporter(io.stderr);
      const started = performance.now();
      let result: ImportDrupal7SessionsResult;
      try {
        result = await importDrupal7Sessions({ ...options, pool: database.pool, into, onProgress: progress.update });
      } catch (error) {
        if (error instanceof TypeError && error.message.startsWith("importDrupal7Sessions: invalid options")) throw new UsageError(error.message);
        throw error;
      } finally {
        progress.done();
      }
      io.stdout.write(summary(result, (performance.now() - started) / 1000, options.idleTimeout ?? 200_000));
    } finally {
      await redis.close();
    }
  } finally {
    await database.close();
  }
}

/** The lines printed once the import is over. */
function summary(result: ImportDrupal7SessionsResult, seconds: number, idleTimeout: number): string {
  const { imported, skipped, leftBehind, dryRun } = result;
  const read = imported + skipped;
  const rate = seconds > 0 ? read / seconds : read;
  const left = leftBehind.anonymous + leftBehind.blocked + leftBehind.expired;
  const reasons: Array<[number, string]> = [
    [skipped, "live, but the sid is not a 43-character session id"],
    [leftBehind.anonymous, "anonymous (uid 0)"],
    [leftBehind.blocked, "blocked or deleted account"],
    [leftBehind.expired, `expired (no activity for ${number(idleTimeout)} s)`],
  ];
  const lines = [
    `${dryRun ? "Dry run: would import" : "Imported"} ${number(imported)} session${imported === 1 ? "" : "s"} (sids ${result.hashedSids ? "hashed" : "raw"}).`,
    `Skipped ${number(skipped + left)} row${skipped + left === 1 ? "" : "s"}${skipped + left === 0 ? "." : ":"}`,
    ...reasons.filter(([count]) => count > 0).map(([count, reason]) => `  ${number(count).padStart(9)}  ${reason}`),
    `${number(read)} live rows read in ${seconds.toFixed(1)} s: ${number(Math.round(rate))} rows/s.`,
  ];
  if (dryRun) lines.push("Nothing was written.");
  return `${lines.join("\n")}\n`;
}
