import express from "express";
import request from "supertest";
import { beforeAll, expect, it } from "vitest";
import { memorySessionStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { drupal7Hasher, drupal7UserStore } from "services-session-auth/drupal";
import { statusText } from "../helpers/app.js";
import { describeEachDrupalDb, type TestDrupalDb } from "./helpers/drupal-db.js";
import { SEED_USERS, seedSite } from "./helpers/drupal-seed.js";

/** The user object's keys in the order Drupal emits them (user_load(): the users table's columns, then roles). */
const ADMIN_KEYS = [
  "uid",
  "name",
  "mail",
  "theme",
  "signature",
  "signature_format",
  "created",
  "changed",
  "access",
  "login",
  "status",
  "timezone",
  "language",
  "picture",
  "init",
  "data",
  "roles",
];

function loginApp(db: TestDrupalDb) {
  const app = express();
  app.use(
    createSessionAuthRouter({
      userStore: drupal7UserStore({ pool: db.pool, dialect: db.dialect, prefix: db.prefix }),
      sessionStore: memorySessionStore(),
      secret: "login-reply-test-secret-0123456789abcdef",
      hasher: drupal7Hasher(),
      baseUrl: "https://sports.example.com",
    }),
  );
  return app;
}

async function loginAt(app: express.Express, username: string, password: string) {
  const before = Math.floor(Date.now() / 1000);
  const res = await request(app).post("/services/json/user/login.json").type("form").send({ username, password });
  const after = Math.floor(Date.now() / 1000);
  return { res, before, after };
}

/** `login` is the number user_login_finalize() set: this request's time, not the stored column. */
function expectLoginBetween(user: Record<string, unknown>, before: number, after: number): void {
  expect(typeof user.login).toBe("number");
  expect(user.login).toBeGreaterThanOrEqual(before);
  expect(user.login).toBeLessThanOrEqual(after);
}

describeEachDrupalDb("login reply built from a Drupal 7 database", (db) => {
  let app: express.Express;

  beforeAll(async () => {
    await seedSite(db());
    app = loginApp(db());
  });

  async function storedLogin(uid: number): Promise<number> {
    const [row] = await db().run<{ login: unknown }>(`SELECT login FROM ${db().table("users")} WHERE uid = ?`, [uid]);
    return Number(row?.login);
  }

  it("gives an administrator Drupal's user object: strings from the row, a numeric login, init, roles by rid, no pass", async () => {
    const { res, before, after } = await loginAt(app, "admin", SEED_USERS.admin.password);
    expect(res.status).toBe(200);
    const body = res.body as { sessid: string; session_name: string; token: string; user: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(["sessid", "session_name", "token", "user"]);
    const { user } = body;
    expect(Object.keys(user)).toEqual(ADMIN_KEYS);
    expectLoginBetween(user, before, after);
    expect(user).toEqual({
      uid: "1",
      name: "admin",
      mail: "admin@example.com",
      theme: "",
      signature: "",
      signature_format: "filtered_html",
      created: "1435764274",
      changed: "1435764280",
      // The access time before this login, as user_load() read it.
      access: "1435764290",
      login: user.login,
      status: "1",
      timezone: "Europe/Paris",
      language: "",
      // With user_pictures off, Drupal sends the raw fid string.
      picture: "7",
      init: "admin@example.com",
      data: { overlay: 1 },
      roles: { "2": "authenticated user", "3": "administrator", "4": "editor" },
    });
    // The JSON itself, not only its parse: uid is a quoted string, login a bare number.
    expect(res.text).toContain(`"user":{"uid":"1","name":"admin",`);
    expect(res.text).toContain(`"login":${String(user.login)},"status":"1"`);
    expect(res.text).not.toContain('"pass"');
    await expect(storedLogin(1)).resolves.toBe(user.login);
  });

  it("gives a normal user the same shape without init: nulls stay null, data is false, picture the fid string", async () => {
    const { res, before, after } = await loginAt(app, "Joe Phpass", SEED_USERS.phpass.password);
    expect(res.status).toBe(200);
    const user = (res.body as { user: Record<string, unknown> }).user;
    expect(Object.keys(user)).toEqual(ADMIN_KEYS.filter((key) => key !== "init"));
    expectLoginBetween(user, before, after);
    expect(user).toEqual({
      uid: "14",
      name: "Joe Phpass",
      mail: "joe@example.com",
      theme: "",
      signature: "",
      signature_format: null,
      created: "1435764274",
      changed: "1435764274",
      access: "0",
      login: user.login,
      status: "1",
      timezone: null,
      language: "",
      picture: "0",
      data: false,
      roles: { "2": "authenticated user" },
    });
    expect(res.text).toContain(`"user":{"uid":"14",`);
    expect(res.text).toContain('"signature_format":null');
    expect(res.text).toContain('"data":false,"roles":{"2":"authenticated user"}}');
    await expect(storedLogin(14)).resolves.toBe(user.login);
  });

  it.each([
    ["the right password", "blocked", SEED_USERS.blocked.password],
    // user_is_blocked() runs before the password check and matches the name with LIKE.
    ["a wrong password", "blocked", "not the password"],
    ["the name in other case", "BLOCKED", SEED_USERS.blocked.password],
  ])("answers a blocked account (status 0) with Services' 403, given %s", async (_case, username, password) => {
    const { res } = await loginAt(app, username, password);
    expect(res.status).toBe(403);
    expect(statusText(res)).toBe(`: The username ${username} has not been activated or is blocked.`);
    expect(res.text).toBe(`["The username <em class=\\"placeholder\\">${username}</em> has not been activated or is blocked."]`);
    expect(res.headers["set-cookie"]).toBeUndefined();
    await expect(storedLogin(SEED_USERS.blocked.uid)).resolves.toBe(SEED_USERS.blocked.login);
  });
});
