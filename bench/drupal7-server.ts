/**
 * One server of the Drupal 7 benchmark, as its own process:
 * `node --import tsx bench/drupal7-server.ts <configuration> <database URL>`. Listens on
 * 127.0.0.1 and prints `PORT <n>`; `GET /data` needs a session. Every statement sent to the
 * database is counted; the parent asks for the counts (`queries`) and the CPU time (`cpu`)
 * over IPC.
 *
 * - `drupal7`: requireSession over drupal7SessionStore and drupal7UserStore (MariaDB/MySQL or
 *   PostgreSQL, from the URL), as docs/running-beside-drupal-7.md sets them up.
 * - `express-session-pg`: express-session with connect-pg-simple, the SQL store its users
 *   pick, on PostgreSQL (`resave: false, saveUninitialized: false`, its defaults otherwise).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import connectPgSimple from "connect-pg-simple";
import express, { type Express, type RequestHandler } from "express";
import session from "express-session";
import mysql from "mysql2/promise";
import pg from "pg";
import type { Drupal7Pool, MysqlPoolLike, PgPoolLike, SqlValue } from "../src/entries/drupal.js";
import { core, drupal, expressBinding } from "./built.js";
import { expressSessionApp, sendData } from "./peer-apps.js";
import { SECRET } from "./shared.js";

const [configuration, url] = process.argv.slice(2);
if (url === undefined) throw new Error("usage: drupal7-server.ts <drupal7|express-session-pg> <database URL>");

/** Statements sent, and protected GETs answered: their ratio is the cost of one. */
const counts = { reads: 0, writes: 0, gets: 0 };
const count = (sql: string) => void (/^\s*SELECT\b/i.test(sql) ? (counts.reads += 1) : (counts.writes += 1));
/** Counts every GET /data, answered or refused, before anything else sees it. */
const countGet: RequestHandler = (req, _res, next) => {
  if (req.method === "GET" && req.path === "/data") counts.gets += 1;
  next();
};

/** The app's pool, every statement counted on its way. */
function countedPool(): { pool: Drupal7Pool; dialect: "mysql" | "postgres" } {
  if (url!.startsWith("mysql")) {
    const inner = mysql.createPool({ uri: url, connectionLimit: 10 });
    const pool: MysqlPoolLike = {
      execute: (sql: string, values: SqlValue[]) => (count(sql), inner.execute(sql, values) as Promise<[unknown, unknown]>),
      getConnection: () => inner.getConnection(),
    };
    return { pool, dialect: "mysql" };
  }
  const inner = new pg.Pool({ connectionString: url, max: 10 });
  const pool: PgPoolLike = { query: (sql, values) => (count(sql), inner.query(sql, values)), connect: () => inner.connect() };
  return { pool, dialect: "postgres" };
}

async function drupal7App(): Promise<Express> {
  const { pool, dialect } = countedPool();
  const sessionStore = drupal.drupal7SessionStore({ pool, dialect, scheme: "http", hashedSids: true });
  await sessionStore.ready;
  const auth = expressBinding.createSessionAuthRouter({
    userStore: drupal.drupal7UserStore({ pool, dialect, parallelRun: true }),
    sessionStore,
    hasher: drupal.drupal7Hasher(),
    csrfToken: drupal.drupal7CsrfToken({ privateKey: await drupal.readDrupal7PrivateKey({ pool, dialect }), hashSalt: "bench-hash-salt" }),
    counterStore: core.memoryCounterStore(),
    secret: SECRET,
  });
  const app = express();
  app.use(countGet);
  app.use(auth);
  app.get("/data", auth.requireSession(), sendData);
  return app;
}

/** express-session with connect-pg-simple, its pool's statements counted. */
function expressSessionPg(): Express {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => (count(String(args[0])), query(...args));
  const PgStore = connectPgSimple(session);
  return express()
    .use(countGet)
    .use(expressSessionApp(new PgStore({ pool, createTableIfMissing: true })));
}

const app = configuration === "drupal7" ? await drupal7App() : configuration === "express-session-pg" ? expressSessionPg() : undefined;
if (app === undefined) throw new Error(`unknown configuration ${configuration}`);
const server = createServer(app);
server.listen(0, "127.0.0.1", () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
process.on("message", (message) => {
  if (message === "cpu") {
    const usage = process.cpuUsage();
    process.send!({ cpu: usage.user + usage.system });
  } else if (message === "queries") process.send!({ ...counts });
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
