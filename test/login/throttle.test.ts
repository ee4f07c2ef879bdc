import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { memoryCounterStore, type CounterStore, type PasswordHasher } from "services-session-auth";
import { redisCounterStore } from "services-session-auth/redis";
import { verdictOf } from "../../src/login/throttle.js";
import { listen, postJson, type Reply } from "../helpers/clients.js";
import { createTestApp, fastHasher, statusText, USERS } from "../helpers/app.js";
import { fakeClock } from "../helpers/doubles.js";
import { deleteKeys, redisUrl, uniquePrefix } from "../stores/redis-helpers.js";
import { arrivalGate } from "../helpers/arrival-gate.js";

const USERS_WITH_ALICE = [...USERS, { uid: "21", name: "alice", password: "alice-password" }, { uid: "22", name: "alice2", password: "alice-password" }];

const limits = { ipLimit: 50, ipWindow: 3600, userLimit: 5, userWindow: 21_600, perAccountOnly: false };
const LOGIN = "/services/json/user/login";

/** A hasher that counts the passwords it is asked to verify. */
function counting(): { hasher: PasswordHasher; verified: string[] } {
  const verified: string[] = [];
  return {
    verified,
    hasher: { ...fastHasher, verify: (hash, password) => (verified.push(password), fastHasher.verify(hash, password)) },
  };
}

/** The parts of a reply a client can tell apart. */
function visible(reply: Reply): unknown {
  return { status: reply.status, reason: reply.reason, type: reply.headers["content-type"], body: reply.body, cookie: reply.headers["set-cookie"] };
}

describe("verdictOf", () => {
  it("decides on the count that includes this attempt, and on recorded failures alone when it is over the limit", () => {
    const never = () => {
      throw new Error("recorded failures are read only over the limit");
    };
    expect(verdictOf(5, never, limits.userLimit)).toBe("within");
    expect(verdictOf(6, () => 5, limits.userLimit)).toBe("blocked");
    expect(verdictOf(6, () => 4, limits.userLimit)).toBe("held");
    expect(verdictOf(51, () => 0, limits.ipLimit)).toBe("held");
  });
});

describe("login throttling", () => {
  let clock: ReturnType<typeof fakeClock>;
  beforeEach(() => {
    clock = fakeClock();
  });
  afterEach(() => {
    clock.restore();
  });

  it("blocks an account after 5 failures from one IP, even with the right password, and says so", async () => {
    const { agent, events } = createTestApp();
    for (let i = 0; i < 5; i += 1) {
      expect((await agent.post(LOGIN).send({ username: "demo", password: "wrong" })).status).toBe(401);
    }
    const blocked = await agent.post(LOGIN).send({ username: "demo", password: "demo-password" });
    expect(blocked.status).toBe(406);
    expect(statusText(blocked)).toBe("Not Acceptable : Account is temporarily blocked.");
    expect(blocked.text).toBe('["Account is temporarily blocked."]');
    // Refused before the account was looked up: the event names the name's hash, never the uid.
    const throttled = events.find((e) => e.type === "login.throttled");
    expect(throttled).toMatchObject({ scope: "user", nameHash: expect.any(String) });
    expect(throttled).not.toHaveProperty("uid");
    // Another account from the same IP is not affected.
    expect((await agent.post(LOGIN).send({ username: "admin", password: "admin-password" })).status).toBe(200);
  });

  it("lifts the account block when its window ends", async () => {
    const { agent } = createTestApp({ throttle: { userLimit: 2, userWindow: 60 } });
    for (let i = 0; i < 2; i += 1) await agent.post(LOGIN).send({ username: "demo", password: "wrong" });
    expect((await agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).status).toBe(406);
    clock.advance(61);
    expect((await agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).status).toBe(200);
  });

  it("blocks an address whose window turned after a quiet success, never holds it for attempts that are not in flight", async () => {
    const { agent, events } = createTestApp({ throttle: { ipLimit: 3, ipWindow: 3600, userLimit: 100 }, hashing: { maxWait: 1 } });
    // A success opens the address's count (given back to 0, its window running); a failure a minute on opens its record of failures.
    expect((await agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).status).toBe(200);
    clock.advance(60);
    expect((await agent.post(LOGIN).send({ username: "a", password: "x" })).status).toBe(401);
    // The count's window ends first; three failures in the next one, then the old record of failures ends too.
    clock.advance(3540);
    for (const name of ["b", "c", "d"]) expect((await agent.post(LOGIN).send({ username: name, password: "x" })).status).toBe(401);
    clock.advance(61);
    // Three failures on record in this window, nothing in flight: blocked, as Drupal, not a 503 for a login held back.
    const res = await agent.post(LOGIN).send({ username: "demo", password: "demo-password" });
    expect([res.status, res.text]).toEqual([406, '["This IP address is temporarily blocked."]']);
    expect(events.filter((event) => event.type === "login.busy")).toEqual([]);
  });

  it("blocks an IP after its limit, whatever the name", async () => {
    const { agent } = createTestApp({ throttle: { ipLimit: 3 } });
    for (const name of ["a", "b", "c"]) await agent.post(LOGIN).send({ username: name, password: "x" });
    const res = await agent.post(LOGIN).send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(406);
    expect(res.text).toBe('["This IP address is temporarily blocked."]');
  });

  it("clears the account's count after a success from the same IP, and does not count the success against the IP", async () => {
    const { agent, counterStore } = createTestApp({ throttle: { userLimit: 3, ipLimit: 5 } });
    for (let i = 0; i < 2; i += 1) await agent.post(LOGIN).send({ username: "demo", password: "wrong" });
    expect((await agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) await agent.post(LOGIN).send({ username: "demo", password: "wrong" });
    // Counted while it was checked, then given back: four failures on record, not six attempts.
    expect((await agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).status).toBe(200);
    await expect(counterStore.get("ip:127.0.0.1")).resolves.toBe(4);
    await agent.post(LOGIN).send({ username: "demo", password: "wrong" });
    // Five failures: the address is at its limit, and the next attempt is refused, as in Drupal.
    expect((await agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).status).toBe(406);
  });

  it("checks before hashing: a throttled attempt never reaches the hasher", async () => {
    const { hasher, verified } = counting();
    const { agent } = createTestApp({ hasher, throttle: { userLimit: 1 } });
    await agent.post(LOGIN).send({ username: "demo", password: "wrong" });
    expect(verified).toHaveLength(1);
    await agent.post(LOGIN).send({ username: "demo", password: "demo-password" });
    expect(verified).toHaveLength(1);
  });

  it("uses req.ip only: a spoofed X-Forwarded-For does not reset the count", async () => {
    const { agent } = createTestApp({ throttle: { userLimit: 2 } });
    for (let i = 0; i < 2; i += 1) {
      await agent.post(LOGIN).set("X-Forwarded-For", `10.0.0.${i}`).send({ username: "demo", password: "wrong" });
    }
    const res = await agent.post(LOGIN).set("X-Forwarded-For", "10.9.9.9").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(406);
  });

  it("counts nothing for a blocked account or a malformed request", async () => {
    const { agent, counterStore, events } = createTestApp();
    await agent.post(LOGIN).send({ username: "blocked", password: "x" });
    await agent.post(LOGIN).send({ username: { $ne: 1 }, password: ["x"] });
    await agent.post(LOGIN).send({});
    const ip = (events.find((e) => e.type === "login.failure") as { ip: string }).ip;
    expect(await counterStore.get(`ip:${ip}`)).toBe(0);
    await agent.post(LOGIN).send({ username: "demo", password: "wrong" });
    expect(await counterStore.get(`ip:${ip}`)).toBe(1);
  });

  it("can be turned off", async () => {
    const { agent } = createTestApp({ throttle: false });
    for (let i = 0; i < 7; i += 1) await agent.post(LOGIN).send({ username: "demo", password: "wrong" });
    expect((await agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).status).toBe(200);
  });
});

/** A counter store that records the keys it is asked to increment. */
function recordingCounters(inner: CounterStore = memoryCounterStore()): { store: CounterStore; incremented: string[] } {
  const incremented: string[] = [];
  return {
    incremented,
    store: { ...inner, increment: (key, ttl) => (incremented.push(key), inner.increment(key, ttl)) },
  };
}

describe("login throttling: an address over its limit", () => {
  it("counts only the address, as Drupal, which never looks the account up: no account key is made", async () => {
    const { store, incremented } = recordingCounters();
    const { agent } = createTestApp({ counterStore: store, throttle: { ipLimit: 2 } });
    for (let i = 0; i < 2; i += 1) await agent.post(LOGIN).send({ username: `n${i}`, password: "x" });
    incremented.length = 0;
    for (let i = 0; i < 20; i += 1) expect((await agent.post(LOGIN).send({ username: `fresh-${i}`, password: "x".repeat(2000) })).status).toBe(406);
    // The address's count, and its record of failures (each refusal is one, as in Drupal).
    expect(incremented.filter((key) => !key.startsWith("ip:") && !key.startsWith("failed-ip:"))).toEqual([]);
  });

  it("cannot reset a lockout from a flooded address, however many names it tries", async () => {
    const counterStore = memoryCounterStore({ maxKeys: 40 });
    const { agent } = createTestApp({ counterStore }, undefined, (app) => app.set("trust proxy", true));
    for (let i = 0; i < 6; i += 1) await agent.post(LOGIN).set("X-Forwarded-For", "198.51.100.1").send({ username: "demo", password: "wrong" });
    // Counts of 7 on 60 names would outrank the lockout, were they all counted.
    for (let n = 0; n < 60; n += 1) {
      for (let i = 0; i < 7; i += 1)
        await agent
          .post(LOGIN)
          .set("X-Forwarded-For", "203.0.113.66")
          .send({ username: `junk-${n}`, password: "x".repeat(2000) });
    }
    expect((await agent.post(LOGIN).set("X-Forwarded-For", "198.51.100.1").send({ username: "demo", password: "demo-password" })).status).toBe(406);
  });
});

describe("login throttling: no enumeration", () => {
  it("counts and refuses a name with no account exactly as an account: same limit, status line, body and headers", async () => {
    const test = createTestApp();
    const server = await listen(test.app);
    try {
      const sixth: Record<string, Reply> = {};
      for (const name of ["demo", "nobody"]) {
        for (let i = 0; i < 5; i += 1) expect((await postJson(server.port, LOGIN, { username: name, password: `wrong-${i}` })).status).toBe(401);
        sixth[name] = await postJson(server.port, LOGIN, { username: name, password: name === "demo" ? "demo-password" : "any" });
      }
      expect(sixth.demo!.status).toBe(406);
      expect(visible(sixth.nobody!)).toEqual(visible(sixth.demo!));
      // Spellings a case- and accent-insensitive user table would match share the count, for an
      // account as for a name with none, whether or not this user store resolves them.
      for (const variant of ["NOBODY", "nobody ", "nöbody", "DEMO", "demo ", "dëmo"]) {
        expect([variant, visible(await postJson(server.port, LOGIN, { username: variant, password: "any" }))]).toEqual([variant, visible(sixth.demo!)]);
      }
      // The counters never hold the name itself.
      const throttled = test.events.filter((e) => e.type === "login.throttled");
      expect(JSON.stringify(throttled)).not.toContain("nobody");
      expect(throttled.every((e) => ("uid" in e && e.uid === "14") || ("nameHash" in e && typeof e.nameHash === "string"))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe("login throttling: keys of the user store's matching", () => {
  it("answers a variant spelling of a real account as it answers one of a made-up name (issue 21's reproduction, memory store)", async () => {
    const { agent } = createTestApp({}, [...USERS_WITH_ALICE]);
    const sixth: Record<string, Reply["status"]> = {};
    const texts: string[] = [];
    for (const [name, variant] of [
      ["alice", "ALICE"],
      ["nobodie", "NOBODIE"],
      ["alice2", "alıce2"],
      ["nobodie2", "nobodıe2"],
    ] as const) {
      for (let i = 0; i < 5; i += 1) expect((await agent.post(LOGIN).send({ username: name, password: "" })).status).toBe(401);
      const res = await agent.post(LOGIN).send({ username: variant, password: "" });
      sixth[variant] = res.status;
      texts.push(res.text);
    }
    // The store folds case: one count for both spellings, with an account or without.
    expect([sixth.ALICE, sixth.NOBODIE]).toEqual([406, 406]);
    // It does not fold a dotless i: a fresh count, with an account or without.
    expect([sixth["alıce2"], sixth["nobodıe2"]]).toEqual([401, 401]);
    expect(texts[0]).toBe(texts[1]);
    expect(texts[2]).toBe(texts[3]);
  });
});

describe("login throttling: client address groups", () => {
  /** An app that takes the client address from X-Forwarded-For, as behind a proxy. */
  function behindProxy(overrides: Parameters<typeof createTestApp>[0] = {}) {
    return createTestApp({ throttle: { userLimit: 2 }, ...overrides }, undefined, (app) => app.set("trust proxy", true));
  }

  it("counts an IPv6 /64 as one client", async () => {
    const { agent } = behindProxy();
    await agent.post(LOGIN).set("X-Forwarded-For", "2001:db8:1:2::1").send({ username: "demo", password: "wrong" });
    await agent.post(LOGIN).set("X-Forwarded-For", "2001:db8:1:2:ffff:ffff:ffff:fffe").send({ username: "demo", password: "wrong" });
    const sameNetwork = await agent.post(LOGIN).set("X-Forwarded-For", "2001:db8:1:2:abcd::42").send({ username: "demo", password: "demo-password" });
    expect(sameNetwork.status).toBe(406);
    const otherNetwork = await agent.post(LOGIN).set("X-Forwarded-For", "2001:db8:1:3::1").send({ username: "demo", password: "demo-password" });
    expect(otherNetwork.status).toBe(200);
  });

  it("takes the prefix length from ipv6Prefix", async () => {
    const { agent } = behindProxy({ ipv6Prefix: 128 });
    await agent.post(LOGIN).set("X-Forwarded-For", "2001:db8:1:2::1").send({ username: "demo", password: "wrong" });
    await agent.post(LOGIN).set("X-Forwarded-For", "2001:db8:1:2::2").send({ username: "demo", password: "wrong" });
    expect((await agent.post(LOGIN).set("X-Forwarded-For", "2001:db8:1:2::3").send({ username: "demo", password: "demo-password" })).status).toBe(200);
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 address", async () => {
    const { agent } = behindProxy();
    await agent.post(LOGIN).set("X-Forwarded-For", "::ffff:203.0.113.9").send({ username: "demo", password: "wrong" });
    await agent.post(LOGIN).set("X-Forwarded-For", "203.0.113.9").send({ username: "demo", password: "wrong" });
    expect((await agent.post(LOGIN).set("X-Forwarded-For", "::ffff:203.0.113.9").send({ username: "demo", password: "demo-password" })).status).toBe(406);
  });

  it("never lets a flood of cheap requests evict a lockout from a full memory counter store", async () => {
    const counterStore = memoryCounterStore({ maxKeys: 40 });
    const { agent } = behindProxy({ counterStore, throttle: {} });
    for (const name of ["demo", "ghost"]) {
      for (let i = 0; i < 5; i += 1) await agent.post(LOGIN).set("X-Forwarded-For", "198.51.100.1").send({ username: name, password: "wrong" });
    }
    // 400 requests, each from a new address with a new name and a password too long to hash.
    for (let i = 0; i < 400; i += 1) {
      await agent
        .post(LOGIN)
        .set("X-Forwarded-For", `10.${(i >> 8) & 255}.${i & 255}.1`)
        .send({ username: `flood-${i}`, password: "x".repeat(2000) });
    }
    for (const name of ["demo", "ghost"]) {
      const res = await agent
        .post(LOGIN)
        .set("X-Forwarded-For", "198.51.100.1")
        .send({ username: name, password: name === "demo" ? "demo-password" : "x" });
      expect([name, res.status, res.text]).toEqual([name, 406, '["Account is temporarily blocked."]']);
    }
  });
});

/** 40 wrong passwords for one account from one address, all at once, against `apps` in turn. */
async function burst(ports: readonly number[]): Promise<Reply[]> {
  return Promise.all(Array.from({ length: 40 }, (_, i) => postJson(ports[i % ports.length]!, LOGIN, { username: "admin", password: `wrong-${i}` })));
}

function expectAtMostTheLimit(replies: readonly Reply[], verified: readonly string[]): void {
  expect(verified.filter((password) => password.startsWith("wrong-"))).toHaveLength(5);
  expect(replies.filter((reply) => reply.status === 401)).toHaveLength(5);
  const blocked = replies.filter((reply) => reply.status === 406);
  expect(blocked).toHaveLength(35);
  expect(new Set(blocked.map((reply) => reply.body))).toEqual(new Set(['["Account is temporarily blocked."]']));
}

describe("login throttling under concurrency", () => {
  it("checks at most the account's limit of 40 parallel wrong passwords, and refuses the rest once those have failed", async () => {
    const { hasher, verified } = counting();
    const test = createTestApp({ hasher });
    const server = await listen(test.app);
    try {
      expectAtMostTheLimit(await burst([server.port]), verified);
    } finally {
      await server.close();
    }
  });

  it("checks at most the address's limit of parallel logins to many names", async () => {
    const { hasher, verified } = counting();
    // Room in the hashing queue for all 50: this is about the throttle, not admission control.
    const test = createTestApp({ hasher, hashing: { maxWait: 60 } });
    const server = await listen(test.app);
    try {
      const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => postJson(server.port, LOGIN, { username: `name-${i}`, password: `guess-${i}` })));
      expect(verified.filter((password) => password.startsWith("guess-"))).toHaveLength(50);
      expect(replies.filter((reply) => reply.status === 406).map((reply) => reply.body)).toEqual(Array(10).fill('["This IP address is temporarily blocked."]'));
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!redisUrl)("login throttling on Redis: an address over its limit makes no keys (REDIS_URL)", () => {
  const client = createClient({ url: redisUrl });
  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    await client.quit();
  });

  it("keeps the key count bounded whatever names a flooded address tries", async () => {
    const prefix = uniquePrefix("flooded");
    const { agent } = createTestApp({ counterStore: redisCounterStore({ client, prefix }), throttle: { ipLimit: 1 } });
    for (let i = 0; i < 100; i += 1) await agent.post(LOGIN).send({ username: `fresh-${i}`, password: "x".repeat(2000) });
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    // The address's count and failures, and the one account's of the attempt within the limit.
    expect(keys.map((key) => key.slice(prefix.length).split(":")[0]).sort()).toEqual(["failed-ip", "failed-user", "ip", "user"]);
    if (keys.length > 0) await client.del(keys);
  });
});

describe.skipIf(!redisUrl)("login throttling under concurrency on Redis (REDIS_URL)", () => {
  const clients = [createClient({ url: redisUrl }), createClient({ url: redisUrl })];
  beforeAll(async () => {
    await Promise.all(clients.map((client) => client.connect()));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit()));
  });

  it("checks at most the limit on one instance", async () => {
    const { hasher, verified } = counting();
    const test = createTestApp({ hasher, counterStore: redisCounterStore({ client: clients[0]!, prefix: uniquePrefix("burst") }) });
    const server = await listen(test.app);
    try {
      expectAtMostTheLimit(await burst([server.port]), verified);
    } finally {
      await server.close();
    }
  });

  /** 40 right passwords at once for one account from one address, against one instance or two sharing one Redis. */
  async function rightPasswords(instances: number) {
    const prefix = uniquePrefix("right");
    const gate = arrivalGate(40);
    const stores = clients.slice(0, instances).map((client) => gate.counting(redisCounterStore({ client, prefix })));
    // An address limit below the burst: refusals counted as its failures would lock it at once.
    const options = { hasher: gate.hasher, hashing: { maxWait: 60 }, throttle: { ipLimit: 10 } };
    const servers = await Promise.all(stores.map((counterStore) => listen(createTestApp({ ...options, counterStore }).app)));
    try {
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) => postJson(servers[i % instances]!.port, LOGIN, { username: "demo", password: "demo-password" })),
      );
      expect(replies.map((reply) => reply.status)).toEqual(Array(40).fill(200));
      expect(gate.verified).toHaveLength(40);
      // Nothing failed, so nothing is on record: not the address, not the account.
      for (const key of ["ip:127.0.0.1", "failed-ip:127.0.0.1"]) await expect(stores[0]!.get(key)).resolves.toBe(0);
      expect((await postJson(servers[0]!.port, LOGIN, { username: "admin", password: "admin-password" })).status).toBe(200);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      await deleteKeys([redisUrl!], prefix);
    }
  }

  it("lets in 40 right passwords at once for one account, never 'blocked', on one instance", async () => {
    await rightPasswords(1);
  });

  it("lets in 40 right passwords at once for one account, never 'blocked', across two instances sharing one Redis", async () => {
    await rightPasswords(2);
  });

  it("checks at most the limit across two instances sharing one Redis", async () => {
    const prefix = uniquePrefix("burst2");
    const { hasher, verified } = counting();
    const stores: CounterStore[] = clients.map((client) => redisCounterStore({ client, prefix }));
    const servers = await Promise.all(stores.map((counterStore) => listen(createTestApp({ hasher, counterStore }).app)));
    try {
      expectAtMostTheLimit(await burst(servers.map((server) => server.port)), verified);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });
});
