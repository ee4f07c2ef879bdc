/**
 * drupal7SessionStore beyond the contract, on real MariaDB and PostgreSQL: the work a
 * protected GET costs (counted queries), Drupal writing the same row at the same time, many
 * requests and two app instances on one session, the rows that are no session here (an
 * anonymous visitor's, a blocked account's), and Drupal's settings read from `variable`.
 */
import { execFileSync } from "node:child_process";
import express from "express";
import request from "supertest";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createSessionId, hashSessionId, type SessionStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { drupal7CsrfToken, drupal7Hasher, drupal7SessionStore, drupal7UserStore, type Drupal7Pool } from "services-session-auth/drupal";
import { countedPool } from "../helpers/counted-pool.js";
import { describeEachDrupalDb } from "../helpers/drupal-db.js";
import { SEED_HASH_SALT, SEED_PRIVATE_KEY, SEED_USERS, seedSite } from "../helpers/drupal-seed.js";

const NOW = Date.UTC(2026, 5, 1) / 1000;

/** Whether PHP is here, to check that PHP itself reads what the store writes into `$_SESSION`. */
const php = (() => {
  try {
    execFileSync("php", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    console.warn("PHP is not installed: skipping the $_SESSION round trips through PHP's own session_decode()");
    return false;
  }
})();

/** Runs PHP code with a session started (files in the temp dir) and returns what it prints. */
function phpSession(code: string, input = ""): string {
  return execFileSync("php", ["-r", `session_save_path(sys_get_temp_dir()); session_start(); ${code}`], { input, encoding: "utf8" });
}

describeEachDrupalDb("drupal7SessionStore with a Drupal site's data", (db, dialect) => {
  const admin = SEED_USERS.admin;
  const sessions = () => db().table("sessions");
  const rowOf = async (sid: string) =>
    (await db().run<Record<string, unknown>>(`SELECT uid, sid, ssid, timestamp, session FROM ${sessions()} WHERE sid = ?`, [sid]))[0];
  const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString("utf8") : String(value ?? ""));
  const store = (extra: Partial<Parameters<typeof drupal7SessionStore>[0]> = {}) =>
    drupal7SessionStore({ pool: db().pool, prefix: db().prefix, scheme: "https", hashedSids: true, ...extra });

  beforeAll(async () => {
    await seedSite(db());
  });
  beforeEach(async () => {
    await db().run(`DELETE FROM ${sessions()}`);
    await db().run(`DELETE FROM ${db().table("variable")} WHERE name <> ?`, ["drupal_private_key"]);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The router over the store, a counted pool, and the seeded admin account; `GET /guarded` needs a session. */
  function app(pool: Drupal7Pool, sessionStore: SessionStore) {
    const auth = createSessionAuthRouter({
      userStore: drupal7UserStore({ pool, prefix: db().prefix, dialect, parallelRun: true }),
      sessionStore,
      hasher: drupal7Hasher(),
      csrfToken: drupal7CsrfToken({ privateKey: SEED_PRIVATE_KEY, hashSalt: SEED_HASH_SALT }),
      secret: "behaviour-test-secret-0123456789abcdefgh",
      baseUrl: "https://example.test",
    });
    const server = express();
    server.use(auth);
    server.get("/guarded", auth.requireSession(), (req, res) => void res.json({ uid: req.auth!.user.uid, roles: req.auth!.user.roles }));
    // All a route is given of the session, as an app that logs or shows it would send it.
    server.get("/auth", auth.requireSession(), (req, res) => void res.json(req.auth));
    return server;
  }

  /** The session cookie's name on `server`, as a login there says it. */
  async function cookieName(server: express.Express): Promise<string> {
    const login = await request(server).post("/services/json/user/login").send({ username: admin.name, password: admin.password });
    return String(login.body.session_name);
  }

  describe("the work of a protected GET", () => {
    it("is one read and no write while the session is fresh; one write more when the touch is due", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(NOW * 1000);
      const pool = countedPool(db());
      const server = app(pool.pool, drupal7SessionStore({ pool: pool.pool, prefix: db().prefix, dialect, scheme: "https", hashedSids: true }));
      const login = await request(server).post("/services/json/user/login").send({ username: admin.name, password: admin.password });
      expect(login.status).toBe(200);
      const cookie = `${login.body.session_name}=${login.body.sessid}`;
      pool.reset();
      const guarded = await request(server).get("/guarded").set("Cookie", cookie);
      expect(guarded.body).toEqual({ uid: "1", roles: { "2": "authenticated user", "3": "administrator", "4": "editor" } });
      expect([pool.reads(), pool.writes()]).toEqual([1, 0]);
      // The account read with the session reaches the route as the guard gives any: without its password hash.
      const seen = await request(server).get("/auth").set("Cookie", cookie);
      expect(seen.body).toMatchObject({ user: { uid: "1", name: admin.name }, session: { handle: hashSessionId(login.body.sessid) } });
      expect(seen.text).not.toContain(admin.pass);
      expect(Object.keys(seen.body.session as object).sort()).toEqual(["handle", "record"]);
      // Drupal's session_write_interval: 180 s on.
      vi.setSystemTime((NOW + 180) * 1000);
      pool.reset();
      expect((await request(server).get("/guarded").set("Cookie", cookie)).status).toBe(200);
      expect([pool.reads(), pool.writes()]).toEqual([1, 1]);
      const row = await rowOf(hashSessionId(login.body.sessid));
      expect(Number(row?.timestamp)).toBe(NOW + 180);
      const [account] = await db().run<{ access: unknown }>(`SELECT access FROM ${db().table("users")} WHERE uid = 1`);
      expect(Number(account?.access)).toBe(NOW + 180);
    });
  });

  describe("Drupal writing the same row", () => {
    it("a rewrite of the package's entry never overwrites $_SESSION that Drupal wrote in between", async () => {
      const pool = countedPool(db());
      const mine = drupal7SessionStore({ pool: pool.pool, prefix: db().prefix, dialect, scheme: "https", hashedSids: true });
      const now = Math.floor(Date.now() / 1000);
      const sessid = await mine.create({ uid: "1", createdAt: now, lastSeenAt: now, expiresAt: now + 3600, ip: "203.0.113.9", userAgent: "app/1" });
      const sid = hashSessionId(sessid);
      // A Drupal request writes its own $_SESSION (a message) just before each compare-and-set the store sends.
      let drupalWrites = 0;
      pool.beforeEach(async (sql) => {
        if (!/^UPDATE \S+ SET session = /.test(sql) || drupalWrites >= 1) return;
        drupalWrites += 1;
        const current = text((await rowOf(sid))?.session);
        await db().run(`UPDATE ${sessions()} SET session = ? WHERE sid = ?`, [
          Buffer.from(`${current}messages|a:1:{s:6:"status";a:1:{i:0;s:5:"Saved";}}`),
          sid,
        ]);
      });
      // A new span (the absolute deadline drawing near): the entry is rewritten.
      await mine.touch(sid, now + 200, now + 1000);
      const data = text((await rowOf(sid))?.session);
      expect(drupalWrites).toBe(1);
      expect(data).toContain('messages|a:1:{s:6:"status";a:1:{i:0;s:5:"Saved";}}');
      expect(data).toMatch(/^services_session_auth\|a:6:\{.*s:1:"e";i:800;/);
      await expect(mine.get(sessid)).resolves.toMatchObject({ record: { lastSeenAt: now + 200, expiresAt: now + 1000, userAgent: "app/1" } });
    });

    it("40 concurrent requests on two app instances, while Drupal writes the row, all see the session and leave one row", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(NOW * 1000);
      const one = app(db().pool, store());
      const two = app(db().pool, store());
      const login = await request(one).post("/services/json/user/login").send({ username: admin.name, password: admin.password });
      const cookie = `${login.body.session_name}=${login.body.sessid}`;
      const sid = hashSessionId(login.body.sessid);
      vi.setSystemTime((NOW + 600) * 1000);
      const answers = await Promise.all([
        ...Array.from({ length: 40 }, (_, i) =>
          request(i % 2 === 0 ? one : two)
            .get("/guarded")
            .set("Cookie", cookie),
        ),
        // _drupal_session_write() of a Drupal request of the same session, $_SESSION changed.
        db().run(`UPDATE ${sessions()} SET timestamp = ?, session = ? WHERE sid = ?`, [
          NOW + 600,
          Buffer.concat([Buffer.from(text((await rowOf(sid))?.session)), Buffer.from("drupal|b:1;")]),
          sid,
        ]),
      ]);
      expect(answers.slice(0, 40).map((answer) => (answer as request.Response).status)).toEqual(Array(40).fill(200));
      const rows = await db().run<Record<string, unknown>>(`SELECT timestamp, session FROM ${sessions()} WHERE uid = 1`);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0]?.timestamp)).toBe(NOW + 600);
      expect(text(rows[0]?.session)).toContain("drupal|b:1;");
    });

    it("a row Drupal regenerated (its sid changed, its $_SESSION kept) is a new session: the old entry is not taken for it", async () => {
      const mine = store();
      const now = Math.floor(Date.now() / 1000);
      const old = await mine.create({ uid: "1", createdAt: now - 5000, lastSeenAt: now, expiresAt: now + 3600, ip: "203.0.113.9", userAgent: "app/1" });
      const fresh = createSessionId();
      await db().run(`UPDATE ${sessions()} SET sid = ?, ssid = ? WHERE sid = ?`, [hashSessionId(fresh), hashSessionId(fresh), hashSessionId(old)]);
      const found = await mine.get(fresh);
      // Drupal keeps no creation time: the account's last login is the best it says.
      const [account] = await db().run<{ login: unknown }>(`SELECT login FROM ${db().table("users")} WHERE uid = 1`);
      expect(found?.record).toMatchObject({ createdAt: Math.min(now, Number(account?.login)), userAgent: "" });
      expect(text((await rowOf(hashSessionId(fresh)))?.session)).toContain(`s:1:"h";s:12:"${hashSessionId(fresh).slice(0, 12)}"`);
      await expect(mine.get(old)).resolves.toBeNull();
    });
  });

  describe("$_SESSION as PHP writes it", () => {
    it.skipIf(!php)("finds its entry among PHP's own values, is not fooled by one inside a string, and writes what PHP reads", async () => {
      const sessid = createSessionId();
      const handle = hashSessionId(sessid);
      const now = Math.floor(Date.now() / 1000);
      // What a naive search would take for the package's entry, with this session's tag and a forged creation time.
      const forged = `services_session_auth|a:6:{s:1:"v";i:1;s:1:"h";s:12:"${handle.slice(0, 12)}";s:1:"c";i:1;s:1:"e";i:99999999;s:1:"a";s:0:"";s:1:"i";s:0:"";}`;
      const data = phpSession(
        `$o = new stdClass; $o->a = "x|y"; $_SESSION["obj"] = $o; $_SESSION["ref"] = &$_SESSION["obj"]; $_SESSION["list"] = array(1, 2.5, TRUE, NULL, "é"); $_SESSION["note"] = stream_get_contents(STDIN); $_SESSION["ao"] = new ArrayObject(array(1)); echo session_encode();`,
        forged,
      );
      await db().run(`INSERT INTO ${sessions()} (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (1, ?, ?, '198.51.100.1', ?, 0, ?)`, [
        handle,
        handle,
        now,
        Buffer.from(data),
      ]);
      const found = await store().get(sessid);
      expect(found?.record.createdAt).not.toBe(1);
      expect(found?.record.expiresAt).toBe(now + 200_600);
      const written = text((await rowOf(handle))?.session);
      // PHP's own decoder reads every entry back, the package's first, and "ref" still the same object as "obj" (its R: shifted past the entry).
      const decoded = JSON.parse(
        phpSession(
          `[$before, $after] = explode("\\0", stream_get_contents(STDIN)); session_decode($before); $old = serialize($_SESSION); $_SESSION = array(); session_decode($after);
           $keys = array_keys($_SESSION); $mine = $_SESSION["services_session_auth"]; unset($_SESSION["services_session_auth"]);
           echo json_encode(array("keys" => $keys, "mine" => $mine, "same" => serialize($_SESSION) === $old));`,
          `${data}\0${written}`,
        ),
      );
      expect(decoded).toEqual({
        keys: ["services_session_auth", "obj", "ref", "list", "note", "ao"],
        mine: { v: 2, h: handle.slice(0, 12), c: found?.record.createdAt, e: 200_600, a: "", i: "198.51.100.1" },
        same: true,
      });
    });
  });

  describe("raw ids (do_not_hash_session_ids)", () => {
    it("finds the row of a handle this process never read by hashing the table's ids, as Drupal would hash them", async () => {
      const now = Math.floor(Date.now() / 1000);
      const sessid = await store({ hashedSids: false }).create({ uid: "1", createdAt: now, lastSeenAt: now, expiresAt: now + 3600, ip: "", userAgent: "" });
      expect(await rowOf(sessid)).toBeDefined();
      // Another instance: it has never seen this session, only its handle (from a list in another process, say).
      const other = store({ hashedSids: false });
      await other.touch(hashSessionId(sessid), now + 200, now + 3800);
      expect(Number((await rowOf(sessid))?.timestamp)).toBe(now + 200);
      await other.destroy(hashSessionId(sessid));
      expect(await rowOf(sessid)).toBeUndefined();
    });
  });

  describe("rows that are no session of the app", () => {
    it("an anonymous visitor's row (uid 0) is no session, and is left as Drupal wrote it, its cookie with it", async () => {
      const sessid = createSessionId();
      const now = Math.floor(Date.now() / 1000);
      await db().run(`INSERT INTO ${sessions()} (uid, sid, ssid, hostname, timestamp, cache, session) VALUES (0, ?, ?, '', ?, 0, ?)`, [
        hashSessionId(sessid),
        hashSessionId(sessid),
        now,
        Buffer.from("cart|a:1:{i:0;i:42;}"),
      ]);
      const pool = countedPool(db());
      const server = app(pool.pool, store({ pool: pool.pool, dialect }));
      await expect(store().get(sessid)).resolves.toBeNull();
      const name = await cookieName(server);
      pool.reset();
      const answer = await request(server).get("/guarded").set("Cookie", `${name}=${sessid}`);
      expect(answer.status).toBe(401);
      // The read that found no session already told whose row it was: one statement, as for any cookie.
      expect([pool.reads(), pool.writes()]).toEqual([1, 0]);
      // Drupal's cookie for the visitor's cart is not the app's to delete, on a guard or on system/connect, which names it as Drupal's did.
      expect(answer.headers["set-cookie"]).toBeUndefined();
      const connect = await request(server)
        .post("/services/json/system/connect")
        .set("Cookie", `${await cookieName(server)}=${sessid}`);
      expect([connect.status, (connect.body as { sessid: string }).sessid, connect.headers["set-cookie"]]).toEqual([200, sessid, undefined]);
      expect(text((await rowOf(hashSessionId(sessid)))?.session)).toBe("cart|a:1:{i:0;i:42;}");
      // A cookie naming no row at all is still deleted, as Drupal deletes it.
      pool.reset();
      const unknown = await request(server).get("/guarded").set("Cookie", `${name}=${createSessionId()}`);
      expect(String(unknown.headers["set-cookie"])).toMatch(/=deleted; /);
      expect([pool.reads(), pool.writes()]).toEqual([1, 0]);
      // Asked on its own, without the read before it, the store looks the row up.
      await expect(store().heldElsewhere!(sessid)).resolves.toBe(true);
      await expect(store().heldElsewhere!(createSessionId())).resolves.toBe(false);
    });

    it("a blocked account's session is ended on its first use, as Drupal's user_save() ends it", async () => {
      const mine = store();
      const now = Math.floor(Date.now() / 1000);
      const sessid = await mine.create({ uid: String(SEED_USERS.blocked.uid), createdAt: now, lastSeenAt: now, expiresAt: now + 3600, ip: "", userAgent: "" });
      await expect(mine.get(sessid)).resolves.toMatchObject({ user: { uid: String(SEED_USERS.blocked.uid), active: false } });
      const server = app(db().pool, mine);
      const answer = await request(server)
        .get("/guarded")
        .set("Cookie", `${await cookieName(server)}=${sessid}`);
      expect(answer.status).toBe(401);
      expect(await rowOf(hashSessionId(sessid))).toBeUndefined();
    });
  });

  describe("Drupal's settings", () => {
    const variable = (name: string, value: string) => db().run(`INSERT INTO ${db().table("variable")} (name, value) VALUES (?, ?)`, [name, Buffer.from(value)]);

    it("reads whether sids are hashed as drupal_session_id() does: hashed_session_ids_supported, unless do_not_hash_session_ids", async () => {
      const now = Math.floor(Date.now() / 1000);
      const record = { uid: "1", createdAt: now, lastSeenAt: now, expiresAt: now + 3600, ip: "", userAgent: "" };
      const raw = await drupal7SessionStore({ pool: db().pool, prefix: db().prefix, scheme: "https" }).create(record);
      expect(await rowOf(raw)).toBeDefined();
      await variable("hashed_session_ids_supported", "b:1;");
      const hashed = await drupal7SessionStore({ pool: db().pool, prefix: db().prefix, scheme: "https" }).create(record);
      expect(await rowOf(hashSessionId(hashed))).toBeDefined();
      await variable("do_not_hash_session_ids", "b:1;");
      const again = await drupal7SessionStore({ pool: db().pool, prefix: db().prefix, scheme: "http" }).create(record);
      expect(await rowOf(again)).toMatchObject({ ssid: "" });
    });

    it("takes no scheme of its own: mixed-mode HTTPS needs no setting, and neither the https variable nor any row stops it", async () => {
      expect(() => drupal7SessionStore({ pool: db().pool, scheme: "mixed" as "https" })).toThrow(/each request's own scheme decides/);
      // A row as mixed mode writes it (sid from the plain-HTTP cookie, ssid from the secure one), and the variable.
      await db().run(`INSERT INTO ${sessions()} (uid, sid, ssid, hostname, timestamp, cache) VALUES (1, ?, ?, '', 1, 0)`, ["a".repeat(43), "b".repeat(43)]);
      await variable("https", "b:1;");
      const served = store();
      await served.ready;
      await expect(served.get(createSessionId(), { secure: false })).resolves.toBeNull();
    });
  });
});
