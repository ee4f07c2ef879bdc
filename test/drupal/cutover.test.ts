import { createHash } from "node:crypto";
import type { Server } from "node:http";
import request from "supertest";
import { beforeAll, expect, it } from "vitest";
import { createSessionId, hashSessionId, memorySessionStore } from "services-session-auth";
import { nowSeconds } from "../../src/clock.js";
import {
  drupal7CsrfToken,
  drupal7Hasher,
  drupal7SessionFallback,
  drupal7UserStore,
  importDrupal7Sessions,
  readDrupal7PrivateKey,
  upgradingHasher,
} from "services-session-auth/drupal";
import { fastHasher, setCookies } from "../helpers/app.js";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS, type Framework } from "../helpers/frameworks.js";
import { CookieJar } from "../helpers/cookie-jar.js";
import { describeEachDrupalDb, type TestDrupalDb } from "./helpers/drupal-db.js";
import { drupalClient, insertSessions, SEED_HASH_SALT, SEED_USERS, seedSite } from "./helpers/drupal-seed.js";

const BASE_URL = "https://sports.example.com";
const HOST = "sports.example.com";
const SESSION_NAME = `SESS${createHash("sha256").update(HOST).digest("hex").slice(0, 32)}`;

/** The cut-over configuration on one binding: Drupal's users, sessions, tokens and hashes. */
async function cutOverApp(db: TestDrupalDb, binding: Framework) {
  const database = { pool: db.pool, dialect: db.dialect, prefix: db.prefix };
  const privateKey = await readDrupal7PrivateKey(database);
  const sessionStore = memorySessionStore();
  const { server: app } = await bindingApp(binding, {
    userStore: drupal7UserStore(database),
    sessionStore: drupal7SessionFallback(sessionStore, database),
    csrfToken: drupal7CsrfToken({ privateKey, hashSalt: SEED_HASH_SALT }),
    hasher: upgradingHasher({ current: fastHasher, legacy: [drupal7Hasher()] }),
    baseUrl: BASE_URL,
  });
  return { app, sessionStore, database };
}

// The same cut-over on every binding: the Express router, the Fastify plugin, the Hono middleware, the fetch handler.
for (const binding of FRAMEWORKS)
  describeEachDrupalDb(`cut-over from Drupal 7 (${binding})`, (db) => {
    beforeAll(async () => {
      await seedSite(db());
    });

    it("keeps an app that was logged in on Drupal logged in: connect, token and logout without a new login", async () => {
      const sessid = createSessionId();
      // As Drupal 7.98+ wrote it: the sessions row holds base64url(sha256(sid)).
      await insertSessions(db(), [{ uid: SEED_USERS.admin.uid, sid: hashSessionId(sessid), hostname: "198.51.100.4", timestamp: nowSeconds() - 600 }]);
      const { app, sessionStore, database } = await cutOverApp(db(), binding);
      // With the fallback also in place, imported rows must leave Drupal's table, or a logout here could be undone by re-adoption.
      expect((await importDrupal7Sessions({ ...database, into: sessionStore, deleteImported: true })).imported).toBeGreaterThanOrEqual(1);

      const client = drupalClient(sessid, SESSION_NAME);
      const connect = await request(app)
        .post("/services/json/system/connect.json")
        .set("Cookie", client.cookie)
        .set("X-CSRF-Token", client.token)
        .set("Content-Type", "application/json")
        .send('""');
      expect(connect.status).toBe(200);
      expect(connect.body).toMatchObject({
        sessid,
        session_name: client.cookie.split("=")[0],
        user: { uid: "1", name: "admin", roles: { "2": "authenticated user", "3": "administrator" } },
      });

      const token = await request(app).get("/services/session/token").set("Cookie", client.cookie);
      expect(token.text).toBe(client.token);

      const logout = await request(app).post("/services/json/user/logout.json").set("Cookie", client.cookie).set("X-CSRF-Token", client.token);
      expect(logout.text).toBe("[true]");
      const after = await request(app).post("/services/json/system/connect").set("Cookie", client.cookie).set("X-CSRF-Token", client.token);
      expect((after.body as { user: { uid: unknown } }).user.uid).toBe(0);
    });

    it("adopts a session the import missed the first time its cookie is seen, once", async () => {
      const sessid = createSessionId();
      await insertSessions(db(), [{ uid: SEED_USERS.phpass.uid, sid: hashSessionId(sessid), timestamp: nowSeconds() - 60 }]);
      const { app } = await cutOverApp(db(), binding);
      const client = drupalClient(sessid, SESSION_NAME);
      const connect = await request(app).post("/services/json/system/connect").set("Cookie", client.cookie).set("X-CSRF-Token", client.token);
      expect((connect.body as { user: { name: string } }).user.name).toBe("Joe Phpass");
      await request(app).post("/services/json/user/logout").set("Cookie", client.cookie).set("X-CSRF-Token", client.token);
      const again = await request(app).post("/services/json/system/connect").set("Cookie", client.cookie).set("X-CSRF-Token", client.token);
      expect((again.body as { user: { uid: unknown } }).user.uid).toBe(0);
    });

    it("logs in with a Drupal password hash and upgrades it to the current hasher", async () => {
      const { app } = await cutOverApp(db(), binding);
      const res = await request(app).post("/services/json/user/login").type("form").send({ username: "phpbb", password: SEED_USERS.phpbb.password });
      expect(res.status).toBe(200);
      expect((res.body as { user: { uid: string } }).user.uid).toBe("15");
      const [row] = await db().run<{ pass: string }>(`SELECT pass FROM ${db().table("users")} WHERE uid = ?`, [15]);
      expect(String(row?.pass)).toMatch(/^\$scrypt\$/);
    });

    /** One request through a client's cookie jar: its Cookie header out, its Set-Cookie headers in. */
    function through(app: Server, jar: CookieJar) {
      return async (path: string, token?: string, body?: Record<string, string>) => {
        let req = request(app).post(path).set("Host", HOST);
        const cookie = jar.header();
        if (cookie !== undefined) req = req.set("Cookie", cookie);
        if (token !== undefined) req = req.set("X-CSRF-Token", token);
        const res = await (body === undefined ? req.send() : req.type("form").send(body));
        jar.setAll(setCookies(res));
        return res;
      };
    }

    it("logs a client holding a stale Drupal-era domain cookie and a newer host-only one in once, and keeps it logged in; logout removes both", async () => {
      const { app } = await cutOverApp(db(), binding);
      const jar = new CookieJar(HOST);
      // Drupal's cookie from before the switch, for .sports.example.com, whose session is gone;
      // then a host-only one of the same name, as a server that sets no Domain left it.
      jar.set(`${SESSION_NAME}=${createSessionId()}; expires=Wed, 16 Dec 2099 20:42:04 GMT; Max-Age=2000000; path=/; domain=.${HOST}; HttpOnly`);
      jar.set(`${SESSION_NAME}=${createSessionId()}; path=/; HttpOnly`);
      const post = through(app, jar);

      const login = await post("/services/json/user/login", undefined, { username: SEED_USERS.unicode.name, password: SEED_USERS.unicode.password });
      expect(login.status).toBe(200);
      const { sessid, token } = login.body as { sessid: string; token: string };
      // One cookie left, the new one, where Drupal kept its own: the login loop cannot start.
      expect(jar.list()).toEqual([`${SESSION_NAME}=${sessid} (domain=.${HOST})`]);
      for (let i = 0; i < 3; i++) {
        const connect = await post("/services/json/system/connect", token);
        expect((connect.body as { user: { uid: unknown } }).user.uid).toBe(String(SEED_USERS.unicode.uid));
      }

      expect((await post("/services/json/user/logout", token)).text).toBe("[true]");
      expect(jar.list()).toEqual([]);
    });

    it("lets a live cookie through when a stale Drupal-era one comes first, rewriting neither (either may be planted); logout removes both", async () => {
      const { app } = await cutOverApp(db(), binding);
      const jar = new CookieJar(HOST);
      jar.set(`${SESSION_NAME}=${createSessionId()}; path=/; domain=.${HOST}; HttpOnly`);
      // Logged in on the new server while its cookie was host-only: the stale one above is older, so sent first.
      const login = await request(app)
        .post("/services/json/user/login")
        .set("Host", HOST)
        .type("form")
        .send({ username: SEED_USERS.unicode.name, password: SEED_USERS.unicode.password });
      const { sessid, token } = login.body as { sessid: string; token: string };
      jar.set(`${SESSION_NAME}=${sessid}; path=/; HttpOnly`);
      expect(jar.header()).toMatch(new RegExp(`^${SESSION_NAME}=(?!${sessid}).+; ${SESSION_NAME}=${sessid}$`));
      const post = through(app, jar);

      const before = jar.list();
      const connect = await post("/services/json/system/connect", token);
      expect((connect.body as { sessid: string; user: { uid: unknown } }).user.uid).toBe(String(SEED_USERS.unicode.uid));
      expect(setCookies(connect)).toEqual([]);
      expect(jar.list()).toEqual(before);
      expect((await post("/services/json/system/connect", token)).body).toMatchObject({ sessid });

      // Logout deletes the cookie in both places.
      expect((await post("/services/json/user/logout", token)).text).toBe("[true]");
      expect(jar.list()).toEqual([]);
    });
  });
