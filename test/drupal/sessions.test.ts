import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { nowSeconds } from "../../src/clock.js";
import { createSessionId, hashSessionId } from "../../src/sessions/session-id.js";
import { drupal7CsrfToken, drupal7SessionFallback, importDrupal7Sessions, readDrupal7PrivateKey, type MysqlPoolLike } from "../../src/drupal/index.js";
import { memorySessionStore, type MemorySessionStore } from "../../src/stores/memory-session-store.js";
import type { SessionStore } from "../../src/types.js";
import { describeEachDrupalDb, type TestDrupalDb } from "./helpers/drupal-db.js";
import { clearSessions, insertSessions, SEED_HASH_SALT, SEED_USERS, seedSite, setSchemaVersion } from "./helpers/drupal-seed.js";

/** A store like the sealed-cookie one: everything but `adopt`. */
function withoutAdopt(store: SessionStore): SessionStore {
  return {
    create: (record) => store.create(record),
    get: (sessid) => store.get(sessid),
    touch: (handle, lastSeenAt, expiresAt) => store.touch(handle, lastSeenAt, expiresAt),
    destroy: (handle) => store.destroy(handle),
    listByUser: (uid) => store.listByUser(uid),
    destroyByUser: (uid) => store.destroyByUser(uid),
  };
}

/** The raw ids the apps hold as cookies, one per kind of row. */
function cookies() {
  return {
    admin: createSessionId(),
    joe: createSessionId(),
    blocked: createSessionId(),
    stale: createSessionId(),
    anonymous: createSessionId(),
  };
}

async function seedSessions(db: TestDrupalDb, ids: ReturnType<typeof cookies>, hashed: boolean, now: number): Promise<void> {
  const sid = (raw: string) => (hashed ? hashSessionId(raw) : raw);
  await insertSessions(db, [
    { uid: SEED_USERS.admin.uid, sid: sid(ids.admin), hostname: "198.51.100.4", timestamp: now - 100 },
    { uid: SEED_USERS.phpass.uid, sid: sid(ids.joe), hostname: "2001:db8::1", timestamp: now - 199_000 },
    { uid: SEED_USERS.blocked.uid, sid: sid(ids.blocked), timestamp: now - 10 },
    { uid: SEED_USERS.phpass.uid, sid: sid(ids.stale), timestamp: now - 200_001 },
    { uid: 0, sid: sid(ids.anonymous), timestamp: now - 10 },
    // Not an id this package could ever be sent: counted as skipped.
    { uid: SEED_USERS.admin.uid, sid: "short-legacy-id", timestamp: now - 10 },
  ]);
}

describeEachDrupalDb("importDrupal7Sessions", (db) => {
  let store: MemorySessionStore;
  let ids: ReturnType<typeof cookies>;
  let now: number;

  beforeAll(async () => {
    await seedSite(db());
  });
  beforeEach(async () => {
    await clearSessions(db());
    await setSchemaVersion(db(), 7086);
    store = memorySessionStore();
    ids = cookies();
    now = nowSeconds();
  });
  afterEach(() => store.close());

  const options = () => ({ pool: db().pool, prefix: db().prefix, into: store });

  /** `count` live rows of one user, stored hashed; resolves the raw ids (the cookies). */
  async function seedLive(uid: number, count: number): Promise<string[]> {
    const raw = Array.from({ length: count }, () => createSessionId());
    await insertSessions(
      db(),
      raw.map((id) => ({ uid, sid: hashSessionId(id), timestamp: now - 5 })),
    );
    return raw;
  }

  it("adopts live sessions of active users under the stored (hashed) sid", async () => {
    await seedSessions(db(), ids, true, now);
    await expect(importDrupal7Sessions({ ...options(), hashedSids: true })).resolves.toEqual({
      imported: 2,
      skipped: 1,
      hashedSids: true,
      dryRun: false,
      leftBehind: { anonymous: 1, blocked: 1, expired: 1 },
    });

    const admin = await store.get(ids.admin);
    expect(admin).toEqual({
      handle: hashSessionId(ids.admin),
      record: { uid: "1", createdAt: now - 100, lastSeenAt: now - 100, expiresAt: now - 100 + 200_000, ip: "198.51.100.4", userAgent: "" },
    });
    expect((await store.get(ids.joe))?.record).toMatchObject({ uid: "14", ip: "2001:db8::1" });
    for (const gone of [ids.blocked, ids.stale, ids.anonymous]) expect(await store.get(gone)).toBeNull();
    // Drupal's table is left alone unless asked.
    expect(await db().run(`SELECT sid FROM ${db().table("sessions")}`)).toHaveLength(6);
  });

  it("hashes raw sids (before core 7.98) the way the stores hash cookies", async () => {
    await seedSessions(db(), ids, false, now);
    await expect(importDrupal7Sessions({ ...options(), hashedSids: false })).resolves.toMatchObject({ imported: 2, hashedSids: false });
    expect((await store.get(ids.admin))?.record.uid).toBe("1");
  });

  it("tells hashed from raw sids by the system schema version with 'auto'", async () => {
    await seedSessions(db(), ids, false, now);
    await setSchemaVersion(db(), 7085);
    await expect(importDrupal7Sessions(options())).resolves.toMatchObject({ imported: 2, hashedSids: false });
    expect((await store.get(ids.admin))?.record.uid).toBe("1");
  });

  it("uses the router's timeouts", async () => {
    await seedSessions(db(), ids, true, now);
    await importDrupal7Sessions({ ...options(), hashedSids: true, idleTimeout: 600, absoluteTimeout: 600 });
    expect((await store.get(ids.admin))?.record.expiresAt).toBe(now - 100 + 600);
    expect(await store.get(ids.joe)).toBeNull();
  });

  it("pages through the table, and can delete what it adopted", async () => {
    const many = Array.from({ length: 7 }, () => createSessionId());
    await insertSessions(
      db(),
      many.map((raw) => ({ uid: 1, sid: hashSessionId(raw), timestamp: now - 5 })),
    );
    await expect(importDrupal7Sessions({ ...options(), hashedSids: true, batchSize: 3, deleteImported: true })).resolves.toMatchObject({ imported: 7 });
    for (const raw of many) expect((await store.get(raw))?.record.uid).toBe("1");
    expect(await db().run(`SELECT sid FROM ${db().table("sessions")}`)).toHaveLength(0);
  });

  it("refuses a store that cannot adopt", async () => {
    await expect(importDrupal7Sessions({ pool: db().pool, prefix: db().prefix, into: withoutAdopt(store) })).rejects.toThrow(TypeError);
  });

  it("reports progress after each page, and a dry run writes nothing anywhere", async () => {
    const many = await seedLive(1, 7);
    const progress: unknown[] = [];
    const result = await importDrupal7Sessions({
      ...options(),
      hashedSids: true,
      batchSize: 3,
      deleteImported: true,
      dryRun: true,
      onProgress: (p) => progress.push(p),
    });
    expect(result).toMatchObject({ imported: 7, skipped: 0, dryRun: true });
    expect(progress).toEqual([
      { read: 3, total: 7, imported: 3, skipped: 0 },
      { read: 6, total: 7, imported: 6, skipped: 0 },
      { read: 7, total: 7, imported: 7, skipped: 0 },
    ]);
    for (const raw of many) expect(await store.get(raw)).toBeNull();
    expect(await db().run(`SELECT sid FROM ${db().table("sessions")}`)).toHaveLength(7);
  });

  it("writes a page at a time through adoptMany when the store has it", async () => {
    const many = await seedLive(14, 7);
    const batches: number[] = [];
    const bulk: SessionStore = {
      ...withoutAdopt(store),
      adopt: () => Promise.reject(new Error("adopt must not be called when adoptMany exists")),
      adoptMany: async (sessions) => {
        batches.push(sessions.length);
        for (const { handle, record } of sessions) await store.adopt!(handle, record);
      },
    };
    await expect(importDrupal7Sessions({ ...options(), into: bulk, hashedSids: true, batchSize: 3 })).resolves.toMatchObject({ imported: 7 });
    expect(batches).toEqual([3, 3, 1]);
    for (const raw of many) expect((await store.get(raw))?.record.uid).toBe("14");
  });

  it("fails when the store fails, and says so before reporting the page done", async () => {
    await seedLive(14, 7);
    let calls = 0;
    const failing: SessionStore = {
      ...withoutAdopt(store),
      adopt: () => Promise.resolve(),
      adoptMany: () => (++calls === 2 ? Promise.reject(new Error("Redis went away")) : Promise.resolve()),
    };
    const progress: number[] = [];
    await expect(
      importDrupal7Sessions({ ...options(), into: failing, hashedSids: true, batchSize: 3, onProgress: (p) => progress.push(p.imported) }),
    ).rejects.toThrow("Redis went away");
    expect(progress).toEqual([3]);
  });

  it("starts no write and deletes no row after a failure, and throws only once the pages in flight are done", async () => {
    await seedLive(14, 12);
    const log: string[] = [];
    let calls = 0;
    let failed = false;
    let secondStarted = (): void => {};
    const second = new Promise<void>((resolve) => (secondStarted = resolve));
    const failing: SessionStore = {
      ...withoutAdopt(store),
      adopt: () => Promise.resolve(),
      adoptMany: async (sessions) => {
        const call = ++calls;
        log.push(`start ${call}${failed ? " after the failure" : ""}`);
        // The first page is still being written when the second fails: it waits for the second
        // to start (a gate, not a sleep a loaded database could outlast). An importer that wrote
        // one page at a time never starts the second, and the log says so after five seconds.
        if (call === 1) {
          let cap: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([second, new Promise((resolve) => (cap = setTimeout(resolve, 5000)))]);
          clearTimeout(cap);
        }
        if (call === 2) {
          secondStarted();
          failed = true;
          throw new Error("Redis went away");
        }
        for (const { handle, record } of sessions) await store.adopt!(handle, record);
        log.push(`end ${call}`);
      },
    };
    const importing = importDrupal7Sessions({ ...options(), into: failing, hashedSids: true, batchSize: 3, deleteImported: true });
    await expect(importing).rejects.toThrow("Redis went away");
    const settled = [...log];
    const rowsLeft = (await db().run(`SELECT sid FROM ${db().table("sessions")}`)).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Page 1 finished (its rows deleted) before the error was thrown; nothing happened after.
    expect(settled).toEqual(["start 1", "start 2", "end 1"]);
    expect(log).toEqual(settled);
    expect(rowsLeft).toBe(9);
    expect((await db().run(`SELECT sid FROM ${db().table("sessions")}`)).length).toBe(9);
  });

  it("refuses an idle timeout longer than the absolute one, as createSessionAuthRouter does", async () => {
    await expect(importDrupal7Sessions({ ...options(), idleTimeout: 7200, absoluteTimeout: 3600 })).rejects.toThrow(
      /idleTimeout: must not be longer than absoluteTimeout/,
    );
  });
});

describeEachDrupalDb("drupal7SessionFallback", (db) => {
  let inner: MemorySessionStore;
  let store: SessionStore;
  let ids: ReturnType<typeof cookies>;
  let now: number;

  beforeAll(async () => {
    await seedSite(db());
  });
  beforeEach(async () => {
    await clearSessions(db());
    await setSchemaVersion(db(), 7086);
    inner = memorySessionStore();
    store = drupal7SessionFallback(inner, { pool: db().pool, prefix: db().prefix });
    ids = cookies();
    now = nowSeconds();
  });
  afterEach(() => inner.close());

  const drupalSids = async () => (await db().run<{ sid: string }>(`SELECT sid FROM ${db().table("sessions")} ORDER BY sid`)).map((r) => r.sid);

  it("adopts a Drupal session on first sight, and takes it out of Drupal's table", async () => {
    await seedSessions(db(), ids, true, now);
    const found = await store.get(ids.admin);
    expect(found).toEqual({
      handle: hashSessionId(ids.admin),
      record: { uid: "1", createdAt: now - 100, lastSeenAt: now - 100, expiresAt: now - 100 + 200_000, ip: "198.51.100.4", userAgent: "" },
    });
    expect(await inner.get(ids.admin)).toEqual(found);
    expect(await drupalSids()).not.toContain(hashSessionId(ids.admin));
  });

  it("keeps the CSRF token the app already holds for the adopted session", async () => {
    await seedSessions(db(), ids, true, now);
    const csrfToken = drupal7CsrfToken({ privateKey: await readDrupal7PrivateKey({ pool: db().pool, prefix: db().prefix }), hashSalt: SEED_HASH_SALT });
    const heldByApp = csrfToken(ids.admin);
    const found = await store.get(ids.admin);
    // The router derives the token from the cookie value (sessid), which is unchanged by the hand-over.
    expect(found).not.toBeNull();
    expect(csrfToken(ids.admin)).toBe(heldByApp);
    expect(heldByApp).toMatch(/^[\w-]{43}$/);
  });

  it("does not bring a session back after logout", async () => {
    await seedSessions(db(), ids, true, now);
    const found = await store.get(ids.admin);
    await store.destroy(found!.handle);
    expect(await store.get(ids.admin)).toBeNull();
  });

  it("ignores blocked users, stale and anonymous rows, and unknown ids", async () => {
    await seedSessions(db(), ids, true, now);
    for (const id of [ids.blocked, ids.stale, ids.anonymous, createSessionId(), "short-legacy-id", ""]) expect(await store.get(id)).toBeNull();
    expect(await drupalSids()).toHaveLength(6);
  });

  it("does not accept a hashed sid from a dump as a cookie", async () => {
    await seedSessions(db(), ids, true, now);
    expect(await store.get(hashSessionId(ids.admin))).toBeNull();
  });

  it("looks raw sids up as they are on sites before 7.98, matching case exactly", async () => {
    await seedSessions(db(), ids, false, now);
    await setSchemaVersion(db(), 7085);
    const swapped = ids.admin.replace(/[a-z]/, (c) => c.toUpperCase());
    if (swapped !== ids.admin) expect(await store.get(swapped)).toBeNull();
    expect((await store.get(ids.admin))?.record.uid).toBe("1");
    expect(await store.get(ids.admin)).not.toBeNull();
  });

  it("ends the sessions not yet adopted on destroyByUser", async () => {
    await seedSessions(db(), ids, true, now);
    await store.get(ids.admin);
    await insertSessions(db(), [{ uid: 1, sid: hashSessionId(createSessionId()), timestamp: now }]);
    // One adopted, plus the new row and the short legacy one still in Drupal's table.
    await expect(store.destroyByUser("1")).resolves.toBe(3);
    expect(await store.get(ids.admin)).toBeNull();
  });

  it("passes the other methods to the store", async () => {
    const record = { uid: "14", createdAt: now, lastSeenAt: now, expiresAt: now + 100, ip: "::1", userAgent: "app" };
    const sessid = await store.create(record);
    const found = await store.get(sessid);
    expect(found?.record).toEqual(record);
    await store.touch(found!.handle, now + 1, now + 200);
    expect((await store.listByUser("14")).map((s) => s.record.expiresAt)).toEqual([now + 200]);
  });
});

describe("session kit options", () => {
  it("drupal7SessionFallback refuses a store that cannot adopt", () => {
    const inner = memorySessionStore();
    inner.close();
    expect(() => drupal7SessionFallback(withoutAdopt(inner), { pool: {} as never, dialect: "mysql" })).toThrow(TypeError);
  });

  it.each([{ idleTimeout: 0 }, { hashedSids: "yes" }, { absoluteTimeout: -1 }, { prefix: "a b" }])("refuses %j", (bad) => {
    const inner = memorySessionStore();
    inner.close();
    expect(() => drupal7SessionFallback(inner, { pool: {} as never, dialect: "mysql", ...(bad as object) })).toThrow(TypeError);
  });
});

describe("drupal7SessionFallback when Drupal's table cannot be written", () => {
  it("undoes the adoption, so the session cannot outlive a later logout", async () => {
    const inner = memorySessionStore();
    inner.close();
    const sessid = createSessionId();
    const now = nowSeconds();
    const pool: MysqlPoolLike = {
      execute: async (sql: string): Promise<[unknown, unknown]> => {
        if (sql.startsWith("SELECT schema_version")) return [[{ schema_version: 7086 }], []];
        if (sql.startsWith("SELECT")) return [[{ sid: hashSessionId(sessid), uid: 1, hostname: "::1", timestamp: now }], []];
        throw new Error("read-only replica");
      },
      getConnection: async () => ({}),
    };
    const store = drupal7SessionFallback(inner, { pool });
    await expect(store.get(sessid)).rejects.toThrow("read-only replica");
    expect(await inner.get(sessid)).toBeNull();
  });
});
