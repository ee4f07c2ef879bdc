import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { drupal7UserStore, type PgPoolLike } from "services-session-auth/drupal";
import { describeEachDrupalDb } from "../drupal/helpers/drupal-db.js";
import { seedSite } from "../drupal/helpers/drupal-seed.js";
import { runCli } from "./run-cli.js";

describeEachDrupalDb("services-session-auth drupal7 check", (db, dialect) => {
  beforeAll(async () => {
    await seedSite(db());
  });

  it.runIf(dialect === "postgres")("warns on PostgreSQL without an index on LOWER(name) and says what to run, exiting 0: a stock site passes", async () => {
    const run = await runCli(["drupal7", "check", "--table-prefix", db().prefix], { DATABASE_URL: db().url });
    expect(run.code).toBe(0);
    const users = db().table("users");
    expect(run.stderr).toContain(`services-session-auth: warning: ${users} has no index on LOWER(name)`);
    expect(run.stderr).toContain(`  CREATE INDEX users_name_lower ON ${users} (LOWER(name));\n`);
    expect(run.stdout).toContain("password_count_log2 is 15 (Drupal's default)");
  });

  it.runIf(dialect === "postgres")("passes once the index the migration guide gives exists, and the lookup then uses it", async () => {
    const users = db().table("users");
    // A table of some size, indexed as the guide says, whose statistics know nothing yet of LOWER(name).
    await db().run(`INSERT INTO ${users} (uid, name) SELECT g, 'user' || g FROM generate_series(1000, 100000) g`);
    await db().run(`CREATE INDEX users_name_lower ON ${users} (LOWER(name))`);
    const run = await runCli(["drupal7", "check", "--table-prefix", db().prefix], { DATABASE_URL: db().url });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(new RegExp(`^ok: logins find names in ${users.replace(".", "\\.")} by the index users_name_lower on LOWER\\(name\\)\\.\n`));
    // The store's own lookup uses it.
    const sent: string[] = [];
    const inner = db().pool as PgPoolLike;
    const recording: PgPoolLike = { query: (sql, values) => (sent.push(sql), inner.query(sql, values)), connect: () => inner.connect() };
    await expect(drupal7UserStore({ pool: recording, dialect: "postgres", prefix: db().prefix }).findByName("USER5000")).resolves.toMatchObject({
      uid: "5000",
    });
    const lookup = sent.find((sql) => sql.includes("LOWER(name)"))!;
    const plan = await db().run<{ "QUERY PLAN": string }>(`EXPLAIN ${lookup.replace("$1", "?")}`, ["USER5000"]);
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("users_name_lower");
  });

  it.runIf(dialect === "mysql")("says how MySQL compares users.name", async () => {
    const run = await runCli(["drupal7", "check"], { DATABASE_URL: db().url });
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^ok: users\.name compares as utf8mb4_general_ci \(trailing spaces ignored\)/);
  });

  it("reads the database URL from a file named by --database-url-file or $DATABASE_URL_FILE", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ssa-check-"));
    try {
      const file = join(dir, "database-url");
      await writeFile(file, `  ${db().url}\n`, { mode: 0o600 });
      const direct = await runCli(["drupal7", "check", "--table-prefix", db().prefix]);
      expect(direct.code).toBe(2);
      expect(direct.stderr).toContain("$DATABASE_URL, a file named by --database-url-file or $DATABASE_URL_FILE, or --database");
      const byOption = await runCli(["drupal7", "check", "--table-prefix", db().prefix, "--database-url-file", file]);
      const byVariable = await runCli(["drupal7", "check", "--table-prefix", db().prefix], { DATABASE_URL_FILE: file });
      const byUrl = await runCli(["drupal7", "check", "--table-prefix", db().prefix], { DATABASE_URL: db().url });
      expect(byOption).toEqual(byUrl);
      expect(byVariable).toEqual(byUrl);
      expect(byUrl.stdout + byUrl.stderr).toMatch(/ok: |warning: /);
      // Both the option and its file: which one was meant?
      expect((await runCli(["drupal7", "check", "--database", db().url, "--database-url-file", file])).code).toBe(2);
      const missing = await runCli(["drupal7", "check", "--database-url-file", join(dir, "nothing-here")]);
      expect(missing).toMatchObject({ code: 1, stderr: `services-session-auth: cannot read --database-url-file ${join(dir, "nothing-here")}: ENOENT\n` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("takes a URL with a password on the command line still, and warns that ps shows it, never repeating it", async () => {
    const wrong = new URL(db().url);
    wrong.username = "nobody";
    wrong.password = "hunter2-s3cret";
    const run = await runCli(["drupal7", "check", "--database", wrong.href]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^services-session-auth: warning: the password in --database shows in ps and in the shell's history; put the URL in \$DATABASE_URL or a file \(--database-url-file\) instead\n/,
    );
    expect(run.stderr).not.toContain("hunter2-s3cret");
  });

  it("reports password_count_log2 and how sids are kept, and lists what settings.php decides, with how to confirm each by hand", async () => {
    const variable = (name: string, value: string) => db().run(`INSERT INTO ${db().table("variable")} (name, value) VALUES (?, ?)`, [name, Buffer.from(value)]);
    await variable("password_count_log2", "i:16;");
    await variable("hashed_session_ids_supported", "b:1;");
    const run = await runCli(["drupal7", "check", "--table-prefix", db().prefix], { DATABASE_URL: db().url });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("password_count_log2 is 16: give drupal7Hasher({ countLog2: 16 })");
    expect(run.stdout).toContain(".sid holds hashed ids (core 7.98+; hashed_session_ids_supported)");
    expect(run.stdout).toContain("not in the database (settings.php), to confirm by hand:");
    for (const setting of ["$conf['https']", "do_not_hash_session_ids", "$cookie_domain", "reverse_proxy", "session.gc_maxlifetime", "$drupal_hash_salt"])
      expect(run.stdout).toContain(setting);
    await db().run(`DELETE FROM ${db().table("variable")} WHERE name IN ('password_count_log2', 'hashed_session_ids_supported')`);
  });

  it("refuses an unsafe table prefix as a usage error", async () => {
    const run = await runCli(["drupal7", "check", "--table-prefix", "x; DROP TABLE users"], { DATABASE_URL: db().url });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--table-prefix");
  });
});
