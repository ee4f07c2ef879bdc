/**
 * Issue 29's device-cookie finding on the store it names: `drupal7UserStore` on PostgreSQL
 * folds case (`LOWER(name)`) but not accents, so `demo` and `démo` are two accounts whose names
 * fold alike for the login throttle. A device cookie earned by `démo` buys nothing at `demo`.
 */
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryCounterStore, memorySessionStore, type PasswordHasher } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { drupal7Hasher, drupal7UserStore } from "services-session-auth/drupal";
import { createPostgres, type TestDrupalDb } from "../drupal/helpers/drupal-databases.js";
import { SEED_ROLES, SEED_USERS, seedUsers } from "../drupal/helpers/drupal-seed.js";
import { setCookies } from "../helpers/app.js";

const LOGIN = "/services/json/user/login";
const postgresUrl = process.env.POSTGRES_URL;
const PASSWORD = SEED_USERS.phpass.password;

describe.skipIf(postgresUrl === undefined || postgresUrl === "")("device cookies over drupal7UserStore on PostgreSQL (POSTGRES_URL)", () => {
  let db: TestDrupalDb;
  beforeAll(async () => {
    db = await createPostgres(postgresUrl!);
    for (const [rid, name] of SEED_ROLES) await db.run(`INSERT INTO ${db.table("role")} (rid, name, weight) VALUES (?, ?, ?)`, [rid, name, rid]);
    await seedUsers(db, [
      { ...SEED_USERS.phpass, uid: 31, name: "demo", mail: "demo@example.com" },
      { ...SEED_USERS.phpass, uid: 32, name: "démo", mail: "accent@example.com" },
    ]);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it("are bound to the account that earned them: démo's cookie buys no guesses at demo", async () => {
    const verified: string[] = [];
    const legacy = drupal7Hasher();
    const hasher: PasswordHasher = { ...legacy, verify: (hash, password) => (verified.push(password), legacy.verify(hash, password)) };
    const userStore = drupal7UserStore({ pool: db.pool, prefix: db.prefix });
    const app = express();
    app.set("trust proxy", "loopback");
    app.use(
      createSessionAuthRouter({
        userStore,
        sessionStore: memorySessionStore(),
        counterStore: memoryCounterStore(),
        secret: "device-postgres-test-secret-0123456789ab",
        hasher,
        deviceCookies: true,
        throttle: { perAccountOnly: true },
      }),
    );
    const login = (from: string, username: string, password: string, cookie?: string) => {
      const req = request(app).post(LOGIN).set("X-Forwarded-For", from);
      return (cookie === undefined ? req : req.set("Cookie", cookie)).send({ username, password });
    };
    // The store tells the two apart, while the throttle counts them as one name.
    expect((await userStore.findByName("démo"))?.uid).toBe("32");
    expect(await userStore.nameKey!("démo")).not.toBe(await userStore.nameKey!("demo"));

    const earned = setCookies(await login("198.51.100.7", "démo", PASSWORD)).find((value) => value.startsWith("ssa_device="));
    const cookie = earned!.slice(0, earned!.indexOf(";"));
    for (let i = 0; i < 5; i += 1) expect((await login(`192.0.2.${i + 1}`, "demo", `guess-${i}`)).status).toBe(401);
    verified.length = 0;
    for (let i = 0; i < 4; i += 1) expect((await login("203.0.113.66", "demo", `cookie-guess-${i}`, cookie)).status).toBe(406);
    expect(verified).toEqual([]);
    // démo's own: its holder still gets in with it.
    expect((await login("198.51.100.7", "démo", PASSWORD, cookie)).status).toBe(200);
  });
});
