import { describe, expect, it } from "vitest";
import type { PasswordHasher } from "services-session-auth";
import { drupal7Hasher, upgradingHasher } from "services-session-auth/drupal";
import { createTestApp, fastHasher } from "../helpers/app.js";

/** A hasher that records the parameters of every hash it is asked to verify against. */
function recording(): { hasher: PasswordHasher; verified: string[] } {
  const verified: string[] = [];
  const hasher: PasswordHasher = {
    hash: (password) => fastHasher.hash(password),
    verify: (hash, password) => {
      verified.push(hash.split("$").slice(0, 3).join("$"));
      return fastHasher.verify(hash, password);
    },
    needsRehash: (hash) => fastHasher.needsRehash(hash),
  };
  return { hasher, verified };
}

describe("timing-safe login", () => {
  it("verifies exactly once, with the same cost parameters, for an unknown name and for a wrong password", async () => {
    const unknown = recording();
    const a = createTestApp({ hasher: unknown.hasher });
    const ra = await a.agent.post("/services/json/user/login").send({ username: "nobody", password: "guess" });
    const wrong = recording();
    const b = createTestApp({ hasher: wrong.hasher });
    const rb = await b.agent.post("/services/json/user/login").send({ username: "demo", password: "guess" });
    expect(unknown.verified).toHaveLength(1);
    expect(wrong.verified).toHaveLength(1);
    expect(unknown.verified[0]).toBe(wrong.verified[0]);
    expect(unknown.verified[0]).toBe("$scrypt$ln=10,r=8,p=1");
    expect([ra.status, ra.text, ra.headers["content-type"]]).toEqual([rb.status, rb.text, rb.headers["content-type"]]);
  });

  it("refuses an over-long password or name before any hashing, and counts it as a failure", async () => {
    const { hasher, verified } = recording();
    const { agent, counterStore, events } = createTestApp({ hasher, maxPasswordBytes: 1024 });
    const res = await agent.post("/services/json/user/login").send({ username: "demo", password: "é".repeat(600) });
    expect([res.status, res.text]).toEqual([401, '["Wrong username or password."]']);
    const long = await agent.post("/services/json/user/login").send({ username: "d".repeat(5000), password: "x" });
    expect(long.status).toBe(401);
    expect(verified).toHaveLength(0);
    const ip = (events.find((e) => e.type === "login.failure") as { ip: string }).ip;
    expect(await counterStore.get(`ip:${ip}`)).toBe(2);
    // The audit log names the account by uid and the unknown name by a short keyed hash, never the name.
    expect(events).toMatchObject([
      { type: "login.failure", reason: "invalid-input", uid: "14" },
      { type: "login.failure", reason: "invalid-input", nameHash: expect.stringMatching(/^[\w-]{22}$/) },
    ]);
    expect(JSON.stringify(events)).not.toContain("ddddd");
  });

  it("counts an over-long password against the account, like any wrong one", async () => {
    const { agent } = createTestApp({ throttle: { userLimit: 1 } });
    await agent.post("/services/json/user/login").send({ username: "demo", password: "x".repeat(2000) });
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(406);
  });

  it("answers an over-long password with the block while the account is throttled", async () => {
    const { agent } = createTestApp();
    for (let i = 0; i < 5; i += 1) await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    const res = await agent.post("/services/json/user/login").send({ username: "demo", password: "x".repeat(2000) });
    expect([res.status, res.text]).toEqual([406, '["Account is temporarily blocked."]']);
  });

  it("logs the user in even when the hash upgrade fails, and reports it", async () => {
    const old = await fastHasher.hash("demo-password");
    const failing: PasswordHasher = {
      hash: () => Promise.reject(new RangeError("cannot hash this password")),
      verify: (hash, password) => fastHasher.verify(hash, password),
      needsRehash: () => true,
    };
    const { agent, userStore, events } = createTestApp({ hasher: failing }, [{ uid: "14", name: "demo", passwordHash: old }]);
    const res = await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(200);
    expect((await userStore.findById("14"))?.passwordHash).toBe(old);
    expect(events.filter((e) => e.type === "rehash.failed")).toEqual([
      { type: "rehash.failed", uid: "14", err: expect.any(RangeError), timestamp: expect.any(Number) },
    ]);
  });

  it("rehashes a hash with old parameters on login, by compare-and-set", async () => {
    const old = await fastHasher.hash("demo-password");
    const { scryptHasher } = await import("services-session-auth");
    const current = scryptHasher({ logN: 11 });
    const { app, userStore } = createTestApp({ hasher: current }, [{ uid: "14", name: "demo", passwordHash: old }]);
    const { login } = await import("../helpers/app.js");
    await login(app);
    const after = await userStore.findById("14");
    expect(after?.passwordHash).toMatch(/^\$scrypt\$ln=11,/);
    expect(await current.verify(after!.passwordHash, "demo-password")).toBe(true);
  });
});

describe("timing-safe login across hash algorithms", () => {
  /** An upgrading hasher (scrypt now, Drupal 7 hashes before) that records the cost class of every hash it verifies. */
  function upgrading() {
    const inner = upgradingHasher({ current: fastHasher, legacy: [drupal7Hasher()] });
    const checked: string[] = [];
    const hasher: PasswordHasher = { ...inner, verify: (hash, password) => (checked.push(inner.costClass!(hash)), inner.verify(hash, password)) };
    return { hasher, checked };
  }

  /** demo (uid 14) still on a Drupal 7 `$S$` hash, admin (uid 1) already on scrypt. */
  async function accounts() {
    const legacy = await drupal7Hasher({ countLog2: 7 }).hash("demo-password");
    const current = await fastHasher.hash("admin-password");
    return [
      { uid: "1", name: "admin", passwordHash: current },
      { uid: "14", name: "demo", passwordHash: legacy },
    ];
  }

  const attempts = {
    unknown: { username: "nobody", password: "guess" },
    legacy: { username: "demo", password: "guess" },
    current: { username: "admin", password: "guess" },
  } as const;

  it("makes every failed login check one hash of each cost class met, whatever the account, once the classes are met", async () => {
    const classes = ["drupal7:$S$5", "scrypt:10:8:1"]; // count 7 is "5" in Drupal's alphabet
    for (const order of [
      ["legacy", "unknown", "current", "legacy"],
      ["current", "legacy", "unknown", "current"],
      ["unknown", "legacy", "current", "unknown"],
    ] as const) {
      const { hasher, checked } = upgrading();
      const { agent } = createTestApp({ hasher, throttle: false }, await accounts());
      const work: Record<string, string[]> = {};
      for (const [i, kind] of order.entries()) {
        checked.length = 0;
        expect((await agent.post("/services/json/user/login").send(attempts[kind])).status).toBe(401);
        work[`${i}:${kind}`] = [...checked].sort();
      }
      // Once the Drupal class has been met (by the first attempt on a Drupal account),
      // every failure does the same work: one scrypt check and one $S$ check.
      const met = order.indexOf("legacy");
      for (const [label, done] of Object.entries(work)) {
        if (Number(label.split(":")[0]) >= met) expect([label, done]).toEqual([label, classes]);
      }
    }
  });

  it("does a failure's work for a blocked account's right password, which is refused anyway", async () => {
    const { hasher, checked } = upgrading();
    const users = [...(await accounts()), { uid: "15", name: "blocked", passwordHash: await fastHasher.hash("blocked-password"), active: false }];
    const { agent } = createTestApp({ hasher, throttle: false, blockedAccountResponse: "generic" }, users);
    await agent.post("/services/json/user/login").send(attempts.legacy); // meet the $S$ class
    const work: string[][] = [];
    for (const password of ["wrong", "blocked-password"]) {
      checked.length = 0;
      const res = await agent.post("/services/json/user/login").send({ username: "blocked", password });
      expect([res.status, res.text]).toEqual([401, '["Wrong username or password."]']);
      work.push([...checked].sort());
    }
    expect(work[1]).toEqual(work[0]);
  });

  it("does not sample a class that would make every failure cost far more than a check of the current one", async () => {
    const { hasher, checked } = upgrading();
    // fastHasher checks in about a millisecond; a $S$ hash at 2^18 rounds takes hundreds.
    const costly = await drupal7Hasher({ countLog2: 18 }).hash("old-password");
    const { agent } = createTestApp({ hasher, throttle: false }, [...(await accounts()), { uid: "30", name: "old", passwordHash: costly }]);
    await agent.post("/services/json/user/login").send({ username: "old", password: "x" });
    checked.length = 0;
    await agent.post("/services/json/user/login").send(attempts.unknown);
    expect(checked).toEqual(["scrypt:10:8:1"]);
  });

  it("checks an unknown name against the current hasher's hash before any other class is met", async () => {
    const { hasher, checked } = upgrading();
    const { agent } = createTestApp({ hasher }, await accounts());
    await agent.post("/services/json/user/login").send(attempts.unknown);
    expect(checked).toEqual(["scrypt:10:8:1"]);
  });

  it("still upgrades a Drupal hash on a successful login", async () => {
    const { hasher } = upgrading();
    const { agent, userStore } = createTestApp({ hasher }, await accounts());
    expect((await agent.post("/services/json/user/login").send({ username: "demo", password: "demo-password" })).status).toBe(200);
    expect((await userStore.findById("14"))?.passwordHash).toMatch(/^\$scrypt\$ln=10,/);
  });
});
