import { importDrupal7Sessions, type ImportDrupal7SessionsResult } from "../drupal/carry-over-in-bulk.js";
import { redisSessionStore } from "../stores/redis/redis-session-store.js";
import { progressReporter } from "./progress.js";
import { connectionOptions, connectionUrl, DATABASE, openDatabase, openRedis, REDIS } from "./connections.js";
import { oneOf, parse, positiveInteger, UsageError, type Io } from "./usage.js";

const number = (n: number) => n.toLocaleString("en-US");

/** `drupal7 import-sessions`: {@link importDrupal7Sessions} into Redis, progress on stderr; credentials go to `secrets` as read. */
export async function importSessionsCommand(args: readonly string[], io: Io, secrets: string[]): Promise<void> {
  const { values } = parse(
    args,
    {
      ...connectionOptions(DATABASE, REDIS),
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
  const databaseUrl = connectionUrl(DATABASE, values, io, secrets, "drupal7 import-sessions");
  const redisUrl = connectionUrl(REDIS, values, io, secrets, "drupal7 import-sessions");
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
