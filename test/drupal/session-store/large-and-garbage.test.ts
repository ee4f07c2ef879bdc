/**
 * drupal7SessionStore on real MariaDB and PostgreSQL, counted statement by statement: a 9 MiB
 * `$_SESSION` never crosses the wire twice and a protected GET reads its first bytes only; the
 * garbage collection deletes in bounded statements, from several instances at once and beside
 * Drupal's own `DELETE`; and a row no rule reads is left alone with one event, never a 503.
 */
import express from "express";
import request from "supertest";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { createSessionId, hashSessionId, type AuthEvent } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import {
  drupal7CsrfToken,
  drupal7Hasher,
  drupal7SessionStore,
  drupal7UserStore,
  type Drupal7Pool,
  type MysqlPoolLike,
  type PgPoolLike,
  type SqlValue,
} from "services-session-auth/drupal";
import { countedPool } from "../helpers/counted-pool.js";
import { describeEachDrupalDb } from "../helpers/drupal-db.js";
import { SEED_HASH_SALT, SEED_PRIVATE_KEY, seedSite } from "../helpers/drupal-seed.js";

const NINE_MIB = 9 * 1024 * 1024;
const now = () => Math.floor(Date.now() / 1000);

describeEachDrupalDb("drupal7SessionStore with large rows and garbage", (db, dialect) => {
  const sessions = () => db().table("sessions");
  beforeAll(async () => {
    await seedSite(db());
    await db().run(`INSERT INTO ${db().table("variable")} (name, value) VALUES ('hashed_session_ids_supported', ?)`, [Buffer.from("b:1;")]);
  });
  beforeEach(async () => {
    await db().run(`DELETE FROM ${sessions()}`);
  });

  function app(pool: Drupal7Pool, events: AuthEvent[] = []) {
    const sessionStore = drupal7SessionStore({ pool, prefix: db().prefix, dialect, gcInterval: 0 });
    const auth = createSessionAuthRouter({
      userStore: drupal7UserStore({ pool, prefix: db().prefix, dialect, parallelRun: true }),
      sessionStore,
      hasher: drupal7Hasher(),
      csrfToken: drupal7CsrfToken({ privateKey: SEED_PRIVATE_KEY, hashSalt: SEED_HASH_SALT }),
      secret: "large-rows-test-secret-0123456789abcdefgh",
      sessionName: "SESSlarge",
      onEvent: (event) => events.push(event),
    });
    const server = express();
    server.use(auth);
    server.get("/guarded", auth.requireSession(), (_req, res) => void res.json({ ok: true }));
    return { server, sessionStore };
  }

  it("a 9 MiB $_SESSION Drupal wrote: read whole once to give it the entry, never sent back; then each GET reads 2 KiB", async () => {
    const sessid = createSessionId();
    const sid = hashSessionId(sessid);
    const big =
      dialect === "mysql"
        ? `CONCAT('big|s:${NINE_MIB}:"', REPEAT('x', ${NINE_MIB}), '";')`
        : `convert_to('big|s:${NINE_MIB}:"' || repeat('x', ${NINE_MIB}) || '";', 'UTF8')`;
    await db().run(`INSERT INTO ${sessions()} (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (1, ?, '', '198.51.100.1', ?, 0, ${big})`, [
      sid,
      now() - 400,
    ]);
    // Logged in an hour ago: the session is that old, well within the absolute timeout.
    await db().run(`UPDATE ${db().table("users")} SET login = ? WHERE uid = 1`, [now() - 3600]);
    const pool = countedPool(db());
    const { server } = app(pool.pool);
    for (let i = 0; i < 3; i++) expect((await request(server).get("/guarded").set("Cookie", `SESSlarge=${sessid}`)).status).toBe(200);
    // No statement carried more than a few KiB of parameters: the entry is spliced in where the row lies.
    expect(Math.max(...pool.bytes)).toBeLessThan(4096);
    // The whole $_SESSION was read by one statement, once: the first read's, to find where the entry goes.
    expect(pool.log.filter((sql) => /SELECT session FROM/.test(sql))).toHaveLength(1);
    const [row] = await db().run<{ session: Buffer; length: unknown }>(`SELECT session FROM ${sessions()} WHERE sid = ?`, [sid]);
    expect(row!.session.length).toBeGreaterThan(NINE_MIB);
    expect(row!.session.subarray(0, 24).toString()).toBe("services_session_auth|a:");
    expect(row!.session.subarray(-4).toString()).toBe('xx";');
  }, 60_000);

  it("collects rows unused for gcMaxLifetime in bounded statements, from three instances at once and beside Drupal's own DELETE", async () => {
    const lifetime = 1000;
    const values: unknown[] = [];
    for (let i = 0; i < 2500; i++) values.push(i % 5 === 0 ? 0 : 1, `gc${i}`, "", now() - (i < 2400 ? lifetime + 50 : 10));
    for (let start = 0; start < values.length; start += 4 * 500) {
      const chunk = values.slice(start, start + 4 * 500);
      await db().run(
        `INSERT INTO ${sessions()} (uid, sid, ssid, hostname, timestamp, cache) VALUES ${Array.from({ length: chunk.length / 4 }, () => "(?, ?, ?, '', ?, 0)").join(", ")}`,
        chunk,
      );
    }
    const pools = [countedPool(db()), countedPool(db()), countedPool(db())];
    const stores = pools.map(({ pool }) => drupal7SessionStore({ pool, prefix: db().prefix, dialect, gcMaxLifetime: lifetime, gcInterval: 0, gcBatch: 300 }));
    const [a, b, c] = await Promise.all([
      ...stores.map((store) => store.collectGarbage()),
      // _drupal_session_garbage_collection() on a Drupal request meanwhile.
      db().run(`DELETE FROM ${sessions()} WHERE timestamp < ?`, [now() - lifetime]),
    ]);
    const [left] = await db().run<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${sessions()}`);
    // Whatever each took, every expired row is gone and every live one kept, whichever side deleted it.
    expect(Number(left?.n)).toBe(100);
    expect((a as number) + (b as number) + (c as number)).toBeLessThanOrEqual(2400);
    for (const { log } of pools) {
      const deletes = log.filter((sql) => /^DELETE/.test(sql));
      expect(deletes.length).toBeLessThanOrEqual(10);
      expect(deletes.every((sql) => /LIMIT/.test(sql))).toBe(true);
    }
  });

  it("a row no rule reads is someone else's: no session, the cookie kept, one session.unserved event, never a 503", async () => {
    const sessid = createSessionId();
    const c = (name: string) => `ssa_${name}`;
    // What the read returns for a row whose uid is no Drupal uid (a damaged or foreign table).
    const odd = {
      [c("sid")]: hashSessionId(sessid),
      [c("ssid")]: "",
      [c("uid")]: "-7",
      [c("hostname")]: "",
      [c("timestamp")]: now(),
      [c("session_head")]: null,
      [c("session_length")]: 0,
      uid: null,
    };
    const real = db().pool as MysqlPoolLike & PgPoolLike;
    const reads = (sql: string) => /FROM \S*sessions s (?:LEFT JOIN|WHERE)/.test(sql) && /ssa_session_head/.test(sql);
    const pool: Drupal7Pool =
      dialect === "mysql"
        ? ({
            execute: async (sql: string, values: SqlValue[]) => (reads(sql) ? [[odd], []] : real.execute(sql, values)),
            getConnection: () => real.getConnection(),
          } satisfies MysqlPoolLike)
        : ({
            query: async (sql: string, values: SqlValue[]) => (reads(sql) ? { rows: [odd], rowCount: 1 } : real.query(sql, values)),
            connect: () => real.connect(),
          } satisfies PgPoolLike);
    const events: AuthEvent[] = [];
    const { server } = app(pool, events);
    const answer = await request(server).get("/guarded").set("Cookie", `SESSlarge=${sessid}`);
    expect([answer.status, answer.headers["set-cookie"]]).toEqual([401, undefined]);
    expect(events.filter((event) => event.type === "session.unserved")).toEqual([
      expect.objectContaining({ type: "session.unserved", session: hashSessionId(sessid), reason: "uid -7" }),
    ]);
  });
});
