/**
 * docs/migrating-from-drupal-7.md, followed as written: its code blocks are the files in
 * ./guide (checked here character for character, and type-checked and linted with the rest
 * of the project), and the app they build runs against a seeded Drupal 7 database.
 */
import { readFileSync } from "node:fs";
import type { Express } from "express";
import mysql from "mysql2/promise";
import pg from "pg";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSessionId, hashSessionId } from "services-session-auth";
import { nowSeconds } from "../../src/clock.js";
import { setCookies } from "../helpers/app.js";
import { describeEachDrupalDb } from "./helpers/drupal-db.js";
import { drupalClient, insertSessions, SEED_HASH_SALT, SEED_USERS, seedSite } from "./helpers/drupal-seed.js";

const guide = readFileSync(new URL("../../docs/migrating-from-drupal-7.md", import.meta.url), "utf8");
const codeBlocks = [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);

/** The session name the guide's app is configured with. */
const SESSION_NAME = "SESSa379a6f6eeafb9a55e378c118034e275";

describe("the Drupal 7 migration guide", () => {
  it.each(["app.ts", "server.ts"])("shows %s exactly as the file this suite runs", (file) => {
    expect(codeBlocks).toContain(readFileSync(new URL(`./guide/${file}`, import.meta.url), "utf8"));
  });
});

describeEachDrupalDb("the migration guide's app", (db, dialect) => {
  let app: Express;
  const pools: Array<{ end(): Promise<void> }> = [];
  // Live on Drupal at the switch (7.98+ stores base64url(sha256(sid))): the start-up import takes it.
  const imported = createSessionId();

  async function drupalRows(sessid: string): Promise<number> {
    return (await db().run(`SELECT sid FROM ${db().table("sessions")} WHERE sid = ?`, [hashSessionId(sessid)])).length;
  }

  beforeAll(async () => {
    await seedSite(db());
    await insertSessions(db(), [{ uid: SEED_USERS.admin.uid, sid: hashSessionId(imported), timestamp: nowSeconds() - 600 }]);
    process.env.DRUPAL_DB_URL = db().url;
    process.env.DRUPAL_HASH_SALT = SEED_HASH_SALT;
    // The guide's app as written, once per database: the one line that differs on
    // PostgreSQL (the pool) gets pg's Pool, as the guide's comment says; the pools are
    // kept so the suite can close them.
    vi.resetModules();
    vi.doMock("mysql2/promise", () => ({
      default: {
        createPool(url: string) {
          const pool = dialect === "mysql" ? mysql.createPool(url) : new pg.Pool({ connectionString: url });
          pools.push(pool);
          return pool;
        },
      },
    }));
    ({ app } = await import("./guide/app.js"));
  });

  afterAll(async () => {
    vi.doUnmock("mysql2/promise");
    delete process.env.DRUPAL_DB_URL;
    delete process.env.DRUPAL_HASH_SALT;
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it("keeps an app logged in on Drupal logged in through jDrupal's ?q= URLs, and its logout final", async () => {
    // deleteImported: the row left Drupal's table when the import adopted it.
    expect(await drupalRows(imported)).toBe(0);
    const client = drupalClient(imported, SESSION_NAME);

    const token = await request(app).get("/?q=services/session/token").set("Cookie", client.cookie);
    expect(token.status).toBe(200);
    expect(token.text).toBe(client.token);
    await expect(request(app).get("/services/session/token").set("Cookie", client.cookie)).resolves.toMatchObject({ text: client.token });

    const connect = await request(app)
      .post("/?q=services/json/system/connect.json")
      .set("Cookie", client.cookie)
      .set("X-CSRF-Token", client.token)
      .type("json")
      .send('""');
    expect(connect.status).toBe(200);
    expect(connect.body).toMatchObject({ sessid: imported, session_name: SESSION_NAME, user: { uid: "1", name: "admin" } });

    const logout = await request(app)
      .post("/?q=services/json/user/logout.json")
      .set("Cookie", client.cookie)
      .set("X-CSRF-Token", client.token)
      .type("json")
      .send('""');
    expect(logout.text).toBe("[true]");
    // Nothing in Drupal's table brings the session back through the fallback.
    const after = await request(app).post("/services/json/system/connect").set("Cookie", client.cookie).set("X-CSRF-Token", client.token);
    expect((after.body as { user: { uid: unknown } }).user.uid).toBe(0);
  });

  it("adopts a session the import missed the first time its cookie comes back, and deletes Drupal's row", async () => {
    const missed = createSessionId();
    await insertSessions(db(), [{ uid: SEED_USERS.phpass.uid, sid: hashSessionId(missed), timestamp: nowSeconds() - 60 }]);
    const client = drupalClient(missed, SESSION_NAME);
    const connect = await request(app).post("/services/json/system/connect.json").set("Cookie", client.cookie).set("X-CSRF-Token", client.token);
    expect((connect.body as { user: { name: string } }).user.name).toBe("Joe Phpass");
    expect(await drupalRows(missed)).toBe(0);
  });

  it("logs in with a Drupal hash, upgrades it to scrypt, and marks the cookie Secure when the trusted proxy says HTTPS", async () => {
    const viaProxy = await request(app)
      .post("/?q=services/json/user/login.json")
      .set("X-Forwarded-Proto", "https")
      .type("form")
      .send({ username: "phpbb", password: SEED_USERS.phpbb.password });
    expect(viaProxy.status).toBe(200);
    expect((viaProxy.body as { session_name: string }).session_name).toBe(SESSION_NAME);
    expect(setCookies(viaProxy)).toEqual([expect.stringMatching(new RegExp(`^${SESSION_NAME}=[\\w-]{43};.*; secure; HttpOnly$`))]);
    const [row] = await db().run<{ pass: unknown }>(`SELECT pass FROM ${db().table("users")} WHERE uid = ?`, [SEED_USERS.phpbb.uid]);
    expect(String(row?.pass)).toMatch(/^\$scrypt\$/);

    const direct = await request(app).post("/services/json/user/login").type("form").send({ username: "d6user", password: SEED_USERS.d6.password });
    expect(direct.status).toBe(200);
    expect(setCookies(direct)).toEqual([expect.not.stringContaining("secure")]);
  });
});
