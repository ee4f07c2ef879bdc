/**
 * `parallelRun` on drupal7UserStore: while Drupal still checks the same passwords, a login on
 * Node may upgrade a hash only to Drupal 7's own format.
 */
import express from "express";
import request from "supertest";
import { beforeEach, expect, it } from "vitest";
import { memorySessionStore, scryptHasher, type AuthEvent, type PasswordHasher } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { drupal7Hasher, drupal7UserStore, upgradingHasher } from "services-session-auth/drupal";
import { describeEachDrupalDb } from "./helpers/drupal-db.js";
import { SEED_USERS, seedSite } from "./helpers/drupal-seed.js";

describeEachDrupalDb("drupal7UserStore with parallelRun", (db) => {
  const joe = SEED_USERS.phpass;
  const passOf = async () => (await db().run<{ pass: string }>(`SELECT pass FROM ${db().table("users")} WHERE uid = ?`, [joe.uid]))[0]?.pass;

  beforeEach(async () => {
    for (const table of ["users", "users_roles", "role", "system", "variable"]) await db().run(`DELETE FROM ${db().table(table)}`);
    await seedSite(db());
  });

  async function logIn(hasher: PasswordHasher) {
    const events: AuthEvent[] = [];
    const auth = createSessionAuthRouter({
      userStore: drupal7UserStore({ pool: db().pool, prefix: db().prefix, parallelRun: true }),
      sessionStore: memorySessionStore(),
      hasher,
      secret: "parallel-run-test-secret-0123456789abcdef",
      onEvent: (event) => events.push(event),
    });
    const app = express().use(auth);
    const answer = await request(app).post("/services/json/user/login").send({ username: joe.name, password: joe.password });
    return { status: answer.status, events };
  }

  it("keeps the Drupal hash when the hasher would move it to another format, and says so", async () => {
    const { status, events } = await logIn(upgradingHasher({ current: scryptHasher({ logN: 10, r: 8, p: 1 }), legacy: [drupal7Hasher()] }));
    expect(status).toBe(200);
    expect(await passOf()).toBe(joe.pass);
    const failed = events.find((event) => event.type === "rehash.failed") as { err?: Error } | undefined;
    // The store's refusal, as the cause of the store failure the login reports.
    expect(String(failed?.err?.cause)).toMatch(/parallelRun: refusing to store a password hash Drupal 7 cannot check/);
  });

  it("stores a rehash in Drupal 7's own $S$ format, which Drupal checks", async () => {
    const { status } = await logIn(drupal7Hasher());
    expect(status).toBe(200);
    const pass = await passOf();
    expect(pass).toMatch(/^\$S\$D[./0-9A-Za-z]{51}$/);
    await expect(drupal7Hasher().verify(pass!, joe.password)).resolves.toBe(true);
  });
});
