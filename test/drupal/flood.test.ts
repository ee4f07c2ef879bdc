/**
 * Drupal's flood control on real MariaDB and PostgreSQL: the primitive (`drupal7Flood`: register,
 * count in a window, clear, bounded garbage collection) and the login throttle's counter store
 * over it, which passes the counter contract and records its failures as Drupal's own events.
 * The same budget beside a live Drupal site is in side-by-side/flood.test.ts.
 */
import express from "express";
import request from "supertest";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AuthEvent } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import {
  drupal7CsrfToken,
  drupal7Flood,
  drupal7FloodCounterStore,
  drupal7Hasher,
  drupal7UserStore,
  readDrupal7SiteSettings,
} from "services-session-auth/drupal";
import { describeCounterStore } from "../stores/contract.js";
import { describeEachDrupalDb } from "./helpers/drupal-db.js";
import { SEED_HASH_SALT, SEED_PRIVATE_KEY, SEED_USERS, seedSite } from "./helpers/drupal-seed.js";
import { memorySessionStore } from "services-session-auth";

describeEachDrupalDb("Drupal's flood table", (db, dialect) => {
  const flood = () => db().table("flood");
  const events = async () =>
    (
      await db().run<{ event: string; identifier: string; timestamp: unknown; expiration: unknown }>(
        `SELECT event, identifier, timestamp, expiration FROM ${flood()} ORDER BY fid`,
      )
    ).map((row) => ({ event: row.event, identifier: row.identifier, window: Number(row.expiration) - Number(row.timestamp) }));

  beforeAll(async () => {
    await seedSite(db());
  });
  beforeEach(async () => {
    await db().run(`DELETE FROM ${flood()}`);
    await db().run(`DELETE FROM ${db().table("variable")} WHERE name <> ?`, ["drupal_private_key"]);
  });

  describe("drupal7Flood", () => {
    it("registers, counts in a window, clears by identifier, as includes/common.inc does", async () => {
      const primitive = drupal7Flood({ pool: db().pool, prefix: db().prefix });
      for (let i = 0; i < 3; i++) await primitive.register("pass_reset_ip", "203.0.113.7", 3600);
      await primitive.register("pass_reset_ip", "203.0.113.8", 3600);
      await primitive.register("pass_reset_user", "2", 21_600);
      expect(await primitive.count("pass_reset_ip", "203.0.113.7", 3600)).toBe(3);
      expect(await primitive.isAllowed("pass_reset_ip", 3, 3600, "203.0.113.7")).toBe(false);
      expect(await primitive.isAllowed("pass_reset_ip", 4, 3600, "203.0.113.7")).toBe(true);
      // Events older than the window are no longer counted (timestamp > REQUEST_TIME - window).
      await db().run(`UPDATE ${flood()} SET timestamp = timestamp - 7200 WHERE identifier = ?`, ["203.0.113.8"]);
      expect(await primitive.count("pass_reset_ip", "203.0.113.8", 3600)).toBe(0);
      await primitive.clear("pass_reset_ip", "203.0.113.7");
      expect(await primitive.count("pass_reset_ip", "203.0.113.7", 3600)).toBe(0);
      expect(await events()).toEqual([
        // Moved back 7200 s above: still there, as Drupal keeps it until its expiration passes.
        { event: "pass_reset_ip", identifier: "203.0.113.8", window: 3600 + 7200 },
        { event: "pass_reset_user", identifier: "2", window: 21_600 },
      ]);
      await expect(primitive.register("x".repeat(65), "i", 1)).rejects.toThrow(TypeError);
    });

    it("collects expired events in bounded batches, as system_cron() deletes them", async () => {
      const primitive = drupal7Flood({ pool: db().pool, prefix: db().prefix });
      const now = Math.floor(Date.now() / 1000);
      await db().run(
        `INSERT INTO ${flood()} (event, identifier, timestamp, expiration) VALUES ${Array.from({ length: 25 }, () => "(?, ?, ?, ?)").join(", ")}`,
        [...Array.from({ length: 25 }, (_, i) => ["contact", `10.0.0.${i}`, now - 9000, i < 20 ? now - 100 : now + 100]).flat()],
      );
      expect(await primitive.collectGarbage(8)).toBe(8);
      expect(await primitive.collectGarbage(100)).toBe(12);
      expect(await primitive.collectGarbage(100)).toBe(0);
      expect(await events()).toHaveLength(5);
    });
  });

  describeCounterStore(`drupal7FloodCounterStore on ${dialect}`, () => drupal7FloodCounterStore({ pool: db().pool, prefix: db().prefix, gcInterval: 0 }));

  describe("drupal7FloodCounterStore", () => {
    it("records an address's and an account's failures as Drupal's events, clears the account's only, and counts Drupal's", async () => {
      const store = drupal7FloodCounterStore({ pool: db().pool, prefix: db().prefix, gcInterval: 0 });
      await store.increment("ip:203.0.113.7", 3600);
      await store.increment("account:2-203.0.113.7", 21_600);
      await store.increment("user:nameHashXYZ-203.0.113.7", 21_600);
      // The attempts were checked and failed: each becomes a failure on record, no longer one in flight.
      await store.increment("failed-ip:203.0.113.7", 3600);
      await store.increment("failed-account:2-203.0.113.7", 21_600);
      await store.increment("failed-user:nameHashXYZ-203.0.113.7", 21_600);
      expect(await events()).toEqual([
        { event: "failed_login_attempt_ip", identifier: "203.0.113.7", window: 3600 },
        { event: "failed_login_attempt_user", identifier: "2-203.0.113.7", window: 21_600 },
        { event: "services_session_auth_failed_login", identifier: "user:nameHashXYZ-203.0.113.7", window: 21_600 },
      ]);
      expect(await store.get("account:2-203.0.113.7")).toBe(1);
      // Drupal's own failure for the account, as flood_register_event() writes it.
      const now = Math.floor(Date.now() / 1000);
      await db().run(`INSERT INTO ${flood()} (event, identifier, timestamp, expiration) VALUES ('failed_login_attempt_user', '2-203.0.113.7', ?, ?)`, [
        now,
        now + 21_600,
      ]);
      expect(await store.get("failed-account:2-203.0.113.7")).toBe(2);
      expect(await store.increment("account:2-203.0.113.7", 21_600)).toBe(3);
      // A login: the account's failures are cleared (flood_clear_event()), the address's stay.
      await Promise.all([store.delete("account:2-203.0.113.7"), store.delete("failed-account:2-203.0.113.7")]);
      await store.delete("failed-ip:203.0.113.7");
      expect((await events()).map((one) => one.event)).toEqual(["failed_login_attempt_ip", "services_session_auth_failed_login"]);
    });

    it("reads the site's limits and password cost from variable, with Drupal's defaults and bounds", async () => {
      const variable = (name: string, value: string) =>
        db().run(`INSERT INTO ${db().table("variable")} (name, value) VALUES (?, ?)`, [name, Buffer.from(value)]);
      await expect(readDrupal7SiteSettings({ pool: db().pool, prefix: db().prefix })).resolves.toEqual({
        passwordCountLog2: 15,
        throttle: { ipLimit: 50, ipWindow: 3600, userLimit: 5, userWindow: 21_600, perAccountOnly: false },
        servicesFloodControl: true,
        sessionWriteInterval: 180,
      });
      await variable("password_count_log2", "i:16;");
      await variable("user_failed_login_user_limit", 's:1:"3";');
      await variable("user_failed_login_identifier_uid_only", "b:1;");
      await variable("services_flood_control_enabled", "b:0;");
      await expect(readDrupal7SiteSettings({ pool: db().pool, prefix: db().prefix })).resolves.toMatchObject({
        passwordCountLog2: 16,
        throttle: { userLimit: 3, perAccountOnly: true },
        servicesFloodControl: false,
      });
      await db().run(`UPDATE ${db().table("variable")} SET value = ? WHERE name = 'password_count_log2'`, [Buffer.from("i:40;")]);
      expect((await readDrupal7SiteSettings({ pool: db().pool, prefix: db().prefix })).passwordCountLog2).toBe(30);
    });

    it("the router's throttle over it: Drupal's account failures refuse the right password here (406), and a login here clears them", async () => {
      const admin = SEED_USERS.admin;
      const events: AuthEvent[] = [];
      const auth = createSessionAuthRouter({
        userStore: drupal7UserStore({ pool: db().pool, prefix: db().prefix, dialect }),
        sessionStore: memorySessionStore(),
        counterStore: drupal7FloodCounterStore({ pool: db().pool, prefix: db().prefix, gcInterval: 0 }),
        hasher: drupal7Hasher(),
        csrfToken: drupal7CsrfToken({ privateKey: SEED_PRIVATE_KEY, hashSalt: SEED_HASH_SALT }),
        secret: "flood-test-secret-0123456789abcdefghijkl",
        onEvent: (event) => events.push(event),
      });
      const app = express();
      app.set("trust proxy", "loopback");
      app.use(auth);
      const login = (password: string) =>
        request(app).post("/services/json/user/login").set("X-Forwarded-For", "198.51.100.4").send({ username: admin.name, password });
      // Four failures Drupal recorded for the account from this address, and one here: five in all.
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 4; i++)
        await db().run(`INSERT INTO ${flood()} (event, identifier, timestamp, expiration) VALUES ('failed_login_attempt_user', ?, ?, ?)`, [
          `${admin.uid}-198.51.100.4`,
          now,
          now + 21_600,
        ]);
      expect((await login("wrong")).status).toBe(401);
      const refused = await login(admin.password);
      expect([refused.status, refused.body]).toEqual([406, ["Account is temporarily blocked."]]);
      expect(events.filter((event) => event.type === "login.throttled").at(-1)).toMatchObject({ scope: "user", uid: String(admin.uid) });
      // Drupal's flood_is_allowed() sees the same budget: 5 + the refused attempt, and the address's.
      const [user] = await db().run<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${flood()} WHERE event = 'failed_login_attempt_user'`);
      const [ip] = await db().run<{ n: unknown }>(
        `SELECT COUNT(*) AS n FROM ${flood()} WHERE event = 'failed_login_attempt_ip' AND identifier = '198.51.100.4'`,
      );
      expect([Number(user?.n), Number(ip?.n)]).toEqual([6, 2]);
      // Once they are cleared (an administrator, or a login on Drupal), the right password logs in, and Drupal's are cleared again.
      await db().run(`DELETE FROM ${flood()} WHERE event = 'failed_login_attempt_user'`);
      await db().run(`INSERT INTO ${flood()} (event, identifier, timestamp, expiration) VALUES ('failed_login_attempt_user', ?, ?, ?)`, [
        `${admin.uid}-198.51.100.4`,
        now,
        now + 21_600,
      ]);
      expect((await login(admin.password)).status).toBe(200);
      const [left] = await db().run<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${flood()} WHERE event = 'failed_login_attempt_user'`);
      expect(Number(left?.n)).toBe(0);
    });
  });
});
