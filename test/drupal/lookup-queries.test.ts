import express from "express";
import request from "supertest";
import { beforeAll, expect, it } from "vitest";
import { memoryCounterStore, memorySessionStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { drupal7Hasher, drupal7UserStore, type Drupal7Pool, type MysqlPoolLike, type PgPoolLike, type SqlValue } from "services-session-auth/drupal";
import { describeEachDrupalDb, type TestDrupalDb } from "./helpers/drupal-db.js";
import { SEED_USERS, seedSite } from "./helpers/drupal-seed.js";

const LOGIN = "/services/json/user/login";

/** The app's pool, recording the text of every statement the kit sends through it. */
function recordingPool(db: TestDrupalDb): { pool: Drupal7Pool; statements: string[] } {
  const statements: string[] = [];
  if (db.dialect === "mysql") {
    const inner = db.pool as MysqlPoolLike;
    const pool: MysqlPoolLike = {
      execute: (sql: string, values: SqlValue[]) => (statements.push(sql), inner.execute(sql, values)),
      getConnection: () => inner.getConnection(),
    };
    return { pool, statements };
  }
  const inner = db.pool as PgPoolLike;
  const pool: PgPoolLike = { query: (sql: string, values: SqlValue[]) => (statements.push(sql), inner.query(sql, values)), connect: () => inner.connect() };
  return { pool, statements };
}

describeEachDrupalDb("the login path's queries", (db, dialect) => {
  let app: express.Express;
  let statements: string[];

  beforeAll(async () => {
    await seedSite(db());
    const recording = recordingPool(db());
    statements = recording.statements;
    const userStore = drupal7UserStore({ pool: recording.pool, dialect, prefix: db().prefix });
    app = express();
    app.use(
      createSessionAuthRouter({
        userStore,
        sessionStore: memorySessionStore(),
        counterStore: memoryCounterStore(),
        secret: "lookup-queries-test-secret-0123456789abcdef",
        hasher: drupal7Hasher(),
        throttle: { userLimit: 2, ipLimit: 12 },
      }),
    );
  });

  /** The statements one login sends, in order. */
  async function queriesOf(username: string, password: string): Promise<{ status: number; sent: string[] }> {
    statements.length = 0;
    const res = await request(app).post(LOGIN).send({ username, password });
    return { status: res.status, sent: [...statements] };
  }

  it("sends the same statements for a name with an account and one without", async () => {
    // The first lookup of a MySQL store reads the collation of users.name, once.
    await queriesOf("warm-up", "x");
    const found = await queriesOf(SEED_USERS.admin.name, "wrong password");
    const unknown = await queriesOf("nobody-at-all", "wrong password");
    expect(found.status).toBe(401);
    expect(unknown).toEqual(found);
    // The key, then one lookup with the roles joined in.
    expect(found.sent).toHaveLength(2);
    const blank = await queriesOf(SEED_USERS.phpass.name, "");
    expect(await queriesOf("nobody-else", "")).toEqual(blank);
  });

  it("asks only for the name's key once a name's count refuses it, for an account as for a made-up name", async () => {
    for (const name of [SEED_USERS.phpbb.name, "made-up"]) {
      for (let i = 0; i < 2; i += 1) expect((await queriesOf(name, "wrong")).status).toBe(401);
    }
    const found = await queriesOf(SEED_USERS.phpbb.name, SEED_USERS.phpbb.password);
    const unknown = await queriesOf("made-up", "anything");
    expect(found.status).toBe(406);
    expect(unknown).toEqual(found);
    expect(found.sent).toHaveLength(1);
    expect(found.sent[0]).not.toContain("users");
  });

  it("sends nothing at all once the address's count refuses it", async () => {
    let status = 0;
    for (let i = 0; i < 20 && status !== 406; i += 1) ({ status } = await queriesOf(`filler-${i}`, "x"));
    expect(status).toBe(406);
    for (const name of [SEED_USERS.admin.name, "nobody-at-all"]) expect(await queriesOf(name, "x")).toEqual({ status: 406, sent: [] });
  });
});
