/**
 * docs/custom-user-store.md's code (examples/custom-user-store/): the hasher on its own, and,
 * against PostgreSQL (POSTGRES_URL), the user store over the team's table behind the router:
 * logins, roles, a disabled account, the login time, and the move to scrypt at login.
 */
import { scryptSync } from "node:crypto";
import { readFileSync } from "node:fs";
import express from "express";
import pg from "pg";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scryptHasher, type SessionAuthOptions } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { teamHasher } from "../../examples/custom-user-store/hasher.js";
import { teamOptions, upgradingOptions } from "../../examples/custom-user-store/options.js";
import { login, SECRET } from "../helpers/app.js";

/** A hash as the team's old code made it: Node's documented scrypt recipe. */
function nodeDocsHash(password: string, salt = "0123456789abcdef0123456789abcdef"): string {
  return `${salt}:${scryptSync(password, Buffer.from(salt, "hex"), 64).toString("hex")}`;
}

describe("teamHasher (docs/custom-user-store.md)", () => {
  const hasher = teamHasher();

  it("verifies the table's existing hashes and its own, and refuses a wrong password", async () => {
    expect(await hasher.verify(nodeDocsHash("ana-password"), "ana-password")).toBe(true);
    expect(await hasher.verify(nodeDocsHash("ana-password"), "ana-passwort")).toBe(false);
    const fresh = await hasher.hash("new-password");
    expect(fresh).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/);
    expect(await hasher.verify(fresh, "new-password")).toBe(true);
    expect(hasher.needsRehash(fresh)).toBe(false);
  });

  it("answers a malformed hash with false, never a rejection, and asks to replace it", async () => {
    for (const hash of ["", "zz:zz", "$scrypt$ln=17,r=8,p=1$x$y", `${nodeDocsHash("x")}0`]) {
      expect(await hasher.verify(hash, "x"), hash).toBe(false);
      expect(hasher.needsRehash(hash), hash).toBe(true);
    }
  });
});

const postgresUrl = process.env.POSTGRES_URL;
if (postgresUrl === undefined)
  console.warn("\n  [skip] docs/custom-user-store.md against PostgreSQL: set POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)\n");

describe.skipIf(postgresUrl === undefined)("appUserStore over the team's table (docs/custom-user-store.md)", () => {
  const schema = `custom_user_store_${process.pid}`;
  let admin: pg.Pool;
  let pool: pg.Pool;

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: postgresUrl });
    await admin.query(`CREATE SCHEMA ${schema}`);
    pool = new pg.Pool({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
    await pool.query(readFileSync("examples/custom-user-store/schema.sql", "utf8"));
    await pool.query(
      "INSERT INTO app_users (username, email, password_hash, disabled, is_admin, created_at) VALUES ($1, $2, $3, false, false, to_timestamp(1700000000)), ($4, $5, $6, false, true, now()), ($7, $8, $9, true, false, now())",
      [
        "Ana",
        "ana@example.com",
        nodeDocsHash("ana-password"),
        "boss",
        "boss@example.com",
        nodeDocsHash("boss-password"),
        "gone",
        "gone@example.com",
        nodeDocsHash("gone-password"),
      ],
    );
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.end();
  });

  function app(options: SessionAuthOptions) {
    const sessionAuth = createSessionAuthRouter({ ...options, baseUrl: "http://team.test" });
    const server = express();
    server.use(sessionAuth);
    server.get("/services/json/me", sessionAuth.requireSession(), (req, res) => res.json({ uid: req.auth!.user.uid, name: req.auth!.user.name }));
    server.get("/services/json/admin", sessionAuth.requireSession({ roles: ["administrator"] }), (_req, res) => res.json({ admin: true }));
    return server;
  }

  it("logs the team's users in by any spelling of their name, with their roles, and records the login", async () => {
    const server = app(teamOptions(pool, SECRET));
    const ana = await login(server, "ANA", "ana-password");
    expect((ana.user as { name: string }).name).toBe("Ana");
    expect((await request(server).get("/services/json/me").set("Cookie", ana.cookie)).body).toEqual({ uid: "1", name: "Ana" });
    expect((await request(server).get("/services/json/admin").set("Cookie", ana.cookie)).status).toBe(403);
    const boss = await login(server, "boss", "boss-password");
    expect((await request(server).get("/services/json/admin").set("Cookie", boss.cookie)).body).toEqual({ admin: true });
    const { rows } = await pool.query<{ last_login_at: Date | null }>("SELECT last_login_at FROM app_users WHERE username = 'Ana'");
    expect(rows[0]!.last_login_at).not.toBeNull();
  });

  it("refuses a wrong password and a disabled account as Drupal does", async () => {
    const server = app(teamOptions(pool, SECRET));
    const wrong = await request(server).post("/services/json/user/login.json").send({ username: "Ana", password: "nope" });
    expect(wrong.status).toBe(401);
    const gone = await request(server).post("/services/json/user/login.json").send({ username: "gone", password: "gone-password" });
    expect([gone.status, gone.body]).toEqual([403, ['The username <em class="placeholder">gone</em> has not been activated or is blocked.']]);
    expect((await request(server).get("/services/json/me").set("Cookie", "x=y")).status).toBe(401);
  });

  it("moves a user to scrypt at login with the upgrading hasher, and the new hash logs in", async () => {
    const current = scryptHasher({ logN: 10 });
    const server = app(upgradingOptions(pool, SECRET, current));
    await login(server, "boss", "boss-password");
    const read = async () =>
      (await pool.query<{ password_hash: string }>("SELECT password_hash FROM app_users WHERE username = 'boss'")).rows[0]!.password_hash;
    await expect.poll(read).toMatch(/^\$scrypt\$ln=10,/);
    expect(await current.verify(await read(), "boss-password")).toBe(true);
    await login(server, "boss", "boss-password");
  });
});
