import { describe, expect, it } from "vitest";
import type { PasswordHasher } from "services-session-auth";
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
    expect(await counterStore.get(`flood:ip:${ip}`)).toBe(2);
    expect(await counterStore.get(`flood:user:14-${ip}`)).toBe(1);
    // The audit log gets a storable name, never the whole 5000 characters.
    expect(events.map((e) => (e.type === "login.failure" ? e.name.length : -1))).toEqual([4, 255]);
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
    expect(events.filter((e) => e.type === "rehash.failed")).toEqual([{ type: "rehash.failed", uid: "14", error: expect.any(RangeError) }]);
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
  it("checks an unknown name against a hash like the real accounts', not the new algorithm's", async () => {
    const { scryptHasher } = await import("services-session-auth");
    const legacy = scryptHasher({ logN: 11 });
    const legacyHash = await legacy.hash("demo-password");
    const seen: string[] = [];
    const hasher: PasswordHasher = {
      hash: (password) => fastHasher.hash(password),
      verify: (hash, password) => {
        seen.push(hash.split("$").slice(0, 3).join("$"));
        return hash.includes("ln=11") ? legacy.verify(hash, password) : fastHasher.verify(hash, password);
      },
      needsRehash: () => false,
    };
    const { agent } = createTestApp({ hasher }, [{ uid: "14", name: "demo", passwordHash: legacyHash }]);
    await agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    await agent.post("/services/json/user/login").send({ username: "nobody", password: "wrong" });
    expect(seen).toEqual(["$scrypt$ln=11,r=8,p=1", "$scrypt$ln=11,r=8,p=1"]);
  });
});
