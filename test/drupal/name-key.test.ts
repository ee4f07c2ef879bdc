import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryCounterStore, memorySessionStore, type UserStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { drupal7Hasher, drupal7UserStore } from "services-session-auth/drupal";
import { createMysql, createPostgres, type TestDrupalDb } from "./helpers/drupal-databases.js";
import { mysqlSchema } from "./helpers/drupal-schema.js";
import { SEED_ROLES, SEED_USERS, seedUsers, type SeedUser } from "./helpers/drupal-seed.js";

const LOGIN = "/services/json/user/login";
const mysqlUrl = process.env.MYSQL_URL;
const postgresUrl = process.env.POSTGRES_URL;

const ACCOUNTS: SeedUser[] = [
  { ...SEED_USERS.phpass, uid: 21, name: "alice", mail: "alice@example.com", roles: [4] },
  { ...SEED_USERS.phpass, uid: 22, name: "straße", mail: "strasse@example.com", roles: [] },
];

/** Spellings to try against the accounts: case, accents, dotless i, ß, trailing spaces, characters outside the BMP. */
const SPELLINGS = [
  "alice",
  "ALICE",
  "Alice  ",
  "alıce",
  "ALIÇE",
  "älice",
  "alice\t",
  "straße",
  "STRASSE",
  "strasse",
  "strase",
  "nobodie",
  "nobodıe",
  "a😀b",
  "a😁b",
  "",
];

/**
 * What each collation matches, written from MySQL's documentation of the collations rather
 * than asked of the server: general_ci compares `ı` as `I` and `ß` as `s`; the UCA 4.0
 * collation keeps `ı` apart and expands `ß` to `ss`. All are PAD SPACE.
 */
const COLLATIONS = [
  { charset: "utf8mb4", collation: "utf8mb4_general_ci", alice: ["alice", "ALICE", "Alice  ", "alıce", "ALIÇE", "älice"], strasse: ["straße", "strase"] },
  { charset: "utf8mb3", collation: "utf8mb3_general_ci", alice: ["alice", "ALICE", "Alice  ", "alıce", "ALIÇE", "älice"], strasse: ["straße", "strase"] },
  { charset: "utf8mb4", collation: "utf8mb4_unicode_ci", alice: ["alice", "ALICE", "Alice  ", "ALIÇE", "älice"], strasse: ["straße", "STRASSE", "strasse"] },
] as const;

/** The parts of a reply a client can tell apart. */
function visible(res: request.Response): unknown {
  return { status: res.status, text: res.text, type: res.headers["content-type"], cookie: res.headers["set-cookie"] };
}

/**
 * The reproduction: five blank passwords (never hashed) for a name, then a variant
 * spelling of it. For a real account and a made-up name the variant must answer alike.
 */
async function variantAfterFailures(userStore: UserStore, real: [string, string], madeUp: [string, string]): Promise<[request.Response, request.Response]> {
  const app = express();
  app.use(
    createSessionAuthRouter({
      userStore,
      sessionStore: memorySessionStore(),
      counterStore: memoryCounterStore(),
      secret: "name-key-test-secret-0123456789abcdef",
      hasher: drupal7Hasher(),
    }),
  );
  const answers: request.Response[] = [];
  for (const [name, variant] of [real, madeUp]) {
    for (let i = 0; i < 5; i += 1) expect((await request(app).post(LOGIN).send({ username: name, password: "" })).status).toBe(401);
    answers.push(await request(app).post(LOGIN).send({ username: variant, password: "" }));
  }
  return answers as [request.Response, request.Response];
}

/** For every spelling and account: the store finds the account by the spelling exactly when their keys are equal. */
async function expectKeysMatchLookups(store: UserStore): Promise<void> {
  const accountKeys = await Promise.all(ACCOUNTS.map((account) => store.nameKey!(account.name)));
  for (const spelling of SPELLINGS) {
    const found = await store.findByName(spelling);
    const key = await store.nameKey!(spelling);
    for (const [i, account] of ACCOUNTS.entries()) {
      expect([spelling, account.name, key === accountKeys[i]]).toEqual([spelling, account.name, found?.uid === String(account.uid)]);
    }
  }
}

describe.skipIf(mysqlUrl === undefined || mysqlUrl === "")("drupal7UserStore name keys on MariaDB/MySQL (MYSQL_URL)", () => {
  let db: TestDrupalDb;
  beforeAll(async () => {
    db = await createMysql(mysqlUrl!);
    for (const [i, { charset, collation }] of COLLATIONS.entries()) {
      const prefix = `nk${i}_`;
      for (const statement of mysqlSchema(prefix)) await db.run(statement);
      await db.run(`ALTER TABLE ${prefix}users MODIFY name VARCHAR(60) CHARACTER SET ${charset} COLLATE ${collation} NOT NULL DEFAULT ''`);
      const view = { ...db, prefix, table: (name: string) => `${prefix}${name}` };
      for (const [rid, name] of SEED_ROLES) await db.run(`INSERT INTO ${prefix}role (rid, name, weight) VALUES (?, ?, ?)`, [rid, name, rid]);
      await seedUsers(view, ACCOUNTS);
    }
  });
  afterAll(async () => {
    await db?.destroy();
  });

  describe.each(COLLATIONS.map((c, i) => ({ ...c, prefix: `nk${i}_` })))("users.name in $collation", ({ collation, prefix, alice, strasse }) => {
    const store = () => drupal7UserStore({ pool: db.pool, prefix });

    it("matches the spellings the collation matches, and no others", async () => {
      for (const spelling of SPELLINGS) {
        const expected = (alice as readonly string[]).includes(spelling) ? "21" : (strasse as readonly string[]).includes(spelling) ? "22" : undefined;
        expect([spelling, (await store().findByName(spelling))?.uid]).toEqual([spelling, expected]);
      }
    });

    it("gives two names one key exactly when the column compares them equal", async () => {
      await expectKeysMatchLookups(store());
      // And for names with no account, as for those with one.
      const same = (await store().nameKey!("nobodie")) === (await store().nameKey!("nobodıe"));
      expect(same).toBe(collation.endsWith("general_ci"));
    });

    it("answers a variant spelling of a real account as it answers one of a made-up name (the issue's reproduction)", async () => {
      const [real, madeUp] = await variantAfterFailures(store(), ["alice", "alıce"], ["nobodie", "nobodıe"]);
      expect(visible(madeUp)).toEqual(visible(real));
      // general_ci folds ı into i: both variants share their name's count and are refused.
      expect(real.status).toBe(collation.endsWith("general_ci") ? 406 : 401);
    });
  });

  it("finds no account, without a DB error, for a name a 3-byte utf8 column cannot hold", async () => {
    const store = drupal7UserStore({ pool: db.pool, prefix: "nk1_" });
    await expect(store.findByName("a😀b")).resolves.toBeNull();
    await expect(store.nameKey!("a😀b")).resolves.toEqual(expect.any(String));
  });
});

describe.skipIf(postgresUrl === undefined || postgresUrl === "")("drupal7UserStore name keys on PostgreSQL (POSTGRES_URL)", () => {
  let db: TestDrupalDb;
  beforeAll(async () => {
    db = await createPostgres(postgresUrl!);
    for (const [rid, name] of SEED_ROLES) await db.run(`INSERT INTO ${db.table("role")} (rid, name, weight) VALUES (?, ?, ?)`, [rid, name, rid]);
    await seedUsers(db, ACCOUNTS);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  const store = () => drupal7UserStore({ pool: db.pool, prefix: db.prefix });

  it("keys a name by LOWER(), as the lookup compares it", async () => {
    await expectKeysMatchLookups(store());
    expect(await store().nameKey!("ALICE")).toBe(await store().nameKey!("alice"));
    expect(await store().nameKey!("alıce")).not.toBe(await store().nameKey!("alice"));
  });

  it("answers a variant spelling of a real account as it answers one of a made-up name (the issue's reproduction)", async () => {
    const [real, madeUp] = await variantAfterFailures(store(), ["alice", "alıce"], ["nobodie", "nobodıe"]);
    expect(visible(madeUp)).toEqual(visible(real));
    const [upper, upperMadeUp] = await variantAfterFailures(store(), ["alice", "ALICE"], ["nobodie", "NOBODIE"]);
    expect(upper.status).toBe(406);
    expect(visible(upperMadeUp)).toEqual(visible(upper));
  });
});
