import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { createClient } from "redis";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { createSessionId, hashSessionId, sessionCookieFor } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { drupal7UserStore } from "services-session-auth/drupal";
import { redisSessionStore } from "services-session-auth/redis";
import { nowSeconds } from "../../src/clock.js";
import { describeEachDrupalDb } from "../drupal/helpers/drupal-db.js";
import { clearSessions, insertSessions, SEED_USERS, seedSite } from "../drupal/helpers/drupal-seed.js";
import { deleteKeys, redisUrl, uniquePrefix } from "../stores/redis-helpers.js";
import { runCli } from "./run-cli.js";

const BASE_URL = "http://sports.test";

if (!redisUrl) console.warn("import-sessions.test.ts: REDIS_URL not set, skipping the import into Redis");
if (!redisUrl) it.skip("REDIS_URL not set: drupal7 import-sessions needs a real Redis (REDIS_URL=redis://127.0.0.1:6379)", () => {});

describeEachDrupalDb("services-session-auth drupal7 import-sessions", (db) => {
  if (!redisUrl) return;
  const url = redisUrl;
  const client = createClient({ url: url });
  let prefix: string;
  let cookies: { admin: string; joe: string; blocked: string };

  beforeAll(async () => {
    await client.connect();
    await seedSite(db());
  });
  afterAll(async () => {
    if (prefix !== undefined) await deleteKeys([url], prefix);
    client.destroy();
  });
  beforeEach(async () => {
    if (prefix !== undefined) await deleteKeys([url], prefix);
    prefix = uniquePrefix("cli");
    await clearSessions(db());
    const now = nowSeconds();
    cookies = { admin: createSessionId(), joe: createSessionId(), blocked: createSessionId() };
    await insertSessions(db(), [
      { uid: SEED_USERS.admin.uid, sid: hashSessionId(cookies.admin), hostname: "198.51.100.4", timestamp: now - 100 },
      { uid: SEED_USERS.phpass.uid, sid: hashSessionId(cookies.joe), timestamp: now - 50 },
      { uid: SEED_USERS.blocked.uid, sid: hashSessionId(cookies.blocked), timestamp: now - 10 },
      { uid: SEED_USERS.phpass.uid, sid: hashSessionId(createSessionId()), timestamp: now - 200_001 },
      { uid: 0, sid: hashSessionId(createSessionId()), timestamp: now - 10 },
      { uid: SEED_USERS.admin.uid, sid: "short-legacy-id", timestamp: now - 10 },
    ]);
  });

  const args = (...more: string[]) => ["drupal7", "import-sessions", "--database", db().url, "--redis", url, "--redis-prefix", prefix, ...more];
  const keys = async () => {
    const found: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*` })) found.push(...batch);
    return found;
  };

  it("imports the live sessions, which then pass a protected route, and says what it left behind", async () => {
    const run = await runCli(args());
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Imported 2 sessions \(sids hashed\)\.\nSkipped 4 rows:\n/);
    expect(run.stdout).toMatch(/ 1 {2}live, but the sid is not a 43-character session id\n/);
    expect(run.stdout).toMatch(/ 1 {2}anonymous \(uid 0\)\n/);
    expect(run.stdout).toMatch(/ 1 {2}blocked or deleted account\n/);
    expect(run.stdout).toMatch(/ 1 {2}expired \(no activity for 200,000 s\)\n/);
    expect(run.stdout).toMatch(/\n3 live rows read in \d+\.\d s: [\d,]+ rows\/s\.\n$/);

    const database = { pool: db().pool, dialect: db().dialect, prefix: db().prefix };
    const auth = createSessionAuthRouter({
      userStore: drupal7UserStore(database),
      sessionStore: redisSessionStore({ client, prefix }),
      secret: "cli-test-secret-0123456789-abcdefghijkl",
      baseUrl: BASE_URL,
    });
    const app = express();
    app.get("/teams", auth.requireSession(), (req, res) => res.json({ uid: req.auth!.user.uid }));
    const name = sessionCookieFor(BASE_URL).name;
    const admin = await request(app).get("/teams").set("Cookie", `${name}=${cookies.admin}`);
    expect(admin.status).toBe(200);
    expect(admin.body).toEqual({ uid: "1" });
    await expect(request(app).get("/teams").set("Cookie", `${name}=${cookies.joe}`)).resolves.toMatchObject({ status: 200, body: { uid: "14" } });
    await expect(request(app).get("/teams").set("Cookie", `${name}=${cookies.blocked}`)).resolves.toMatchObject({ status: 401 });
    // Drupal's table is left as it was unless asked.
    expect(await db().run(`SELECT sid FROM ${db().table("sessions")}`)).toHaveLength(6);
  });

  it("writes nothing in a dry run, to Redis or to Drupal's table", async () => {
    const run = await runCli(args("--dry-run", "--delete-imported"));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Dry run: would import 2 sessions/);
    expect(run.stdout).toMatch(/\nNothing was written\.\n$/);
    expect(await keys()).toEqual([]);
    expect(await db().run(`SELECT sid FROM ${db().table("sessions")}`)).toHaveLength(6);
  });

  it("deletes what it imported when asked, and reads the URLs from the environment", async () => {
    const run = await runCli(["drupal7", "import-sessions", "--redis-prefix", prefix, "--delete-imported"], { DATABASE_URL: db().url, REDIS_URL: url });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Imported 2 sessions/);
    expect(await keys()).not.toEqual([]);
    expect(await db().run(`SELECT sid FROM ${db().table("sessions")}`)).toHaveLength(4);
  });

  it("reads the URLs from files named by an option or a variable", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ssa-cli-"));
    try {
      await writeFile(join(dir, "db"), `${db().url}\n`, { mode: 0o600 });
      await writeFile(join(dir, "redis"), url, { mode: 0o600 });
      const run = await runCli(["drupal7", "import-sessions", "--redis-prefix", prefix, "--database-url-file", join(dir, "db"), "--dry-run"], {
        REDIS_URL_FILE: join(dir, "redis"),
      });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/^Dry run: would import 2 sessions/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fails with the message alone, never the password or a stack", async () => {
    const wrong = new URL(db().url);
    wrong.username = "nobody";
    wrong.password = "hunter2-s3cret";
    const run = await runCli(args().map((arg) => (arg === db().url ? wrong.href : arg)));
    expect(run.code).toBe(1);
    // The password was on the command line: taken, with a warning first.
    expect(run.stderr).toMatch(/^services-session-auth: warning: the password in --database shows in ps.+\nservices-session-auth: .+\n$/);
    expect(run.stderr).not.toContain("hunter2-s3cret");
    expect(await keys()).toEqual([]);
  });

  it("refuses bad arguments with the usage and exit code 2", async () => {
    for (const bad of [
      ["--batch-size", "0"],
      ["--hashed-sids", "maybe"],
      ["--idle-timeout", "2d"],
      ["--database", "sqlite:///drupal.db"],
      ["--database", "mysql://root:pw@127.0.0.1:99999/x"],
      ["--batch-size", "1000000"],
    ]) {
      const run = await runCli(args(...bad));
      expect(run.code, bad.join(" ")).toBe(2);
      expect(run.stderr).toContain("Usage: services-session-auth");
    }
  });
});
