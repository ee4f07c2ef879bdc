import { beforeEach, expect, it } from "vitest";
import { hashSessionId, createSessionId } from "services-session-auth";
import { describeEachDrupalDb } from "../drupal/helpers/drupal-db.js";
import { seedSite } from "../drupal/helpers/drupal-seed.js";
import { runCli } from "./run-cli.js";

describeEachDrupalDb("services-session-auth drupal7 check --parallel-run", (db) => {
  const check = () => runCli(["drupal7", "check", "--parallel-run", "--table-prefix", db().prefix], { DATABASE_URL: db().url });
  const variable = (name: string, value: string) => db().run(`INSERT INTO ${db().table("variable")} (name, value) VALUES (?, ?)`, [name, Buffer.from(value)]);
  const session = (sid: string, ssid: string) =>
    db().run(`INSERT INTO ${db().table("sessions")} (uid, sid, ssid, hostname, timestamp, cache) VALUES (1, ?, ?, '', 1, 0)`, [sid, ssid]);

  beforeEach(async () => {
    for (const table of ["users", "users_roles", "role", "system", "variable", "sessions"]) await db().run(`DELETE FROM ${db().table(table)}`);
    await seedSite(db());
    // The PostgreSQL name check passes once the guide's index is there; this suite is about the rest.
    if (db().dialect === "postgres") await db().run(`CREATE INDEX IF NOT EXISTS users_name_lower ON ${db().table("users")} (LOWER(name))`);
  });

  it("passes a site whose sessions and passwords Drupal and Node can share, and says what to give the stores", async () => {
    await variable("hashed_session_ids_supported", "b:1;");
    const sid = hashSessionId(createSessionId());
    await session(sid, sid);
    const run = await check();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(".sid holds hashed ids (core 7.98+");
    expect(run.stdout).toContain("Drupal's logged-in sessions: 1 written over HTTPS, 0 over HTTP, 0 keyed by two cookies.");
    expect(run.stdout).toContain("the variable drupal_private_key is there");
    expect(run.stdout).toContain('give the router throttle: {"ipLimit":50,"ipWindow":3600,"userLimit":5,"userWindow":21600,"perAccountOnly":false}');
    expect(run.stdout).toContain("every password hash is one Drupal 7 checks");
  });

  it("notes mixed-mode HTTPS (served, exit 0), and fails only on accounts whose hash Drupal cannot check", async () => {
    await variable("https", "b:1;");
    await session(hashSessionId(createSessionId()), hashSessionId(createSessionId()));
    await variable("session_write_interval", "i:60;");
    const served = await check();
    expect(served.code).toBe(0);
    expect(served.stdout).toContain("note: the variable https is TRUE: mixed-mode HTTPS");
    expect(served.stdout).toContain("1 keyed by two cookies");
    expect(served.stdout).toContain("give createSessionAuthRouter touchInterval: 60");
    expect(served.stdout).toContain(".sid holds raw ids");
    await db().run(`UPDATE ${db().table("users")} SET pass = ? WHERE uid = 1`, ["scrypt$17$8$1$c2FsdA$aGFzaA"]);
    const run = await check();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("services-session-auth: problem: 1 accounts have a password hash Drupal 7 cannot check");
  });
});
