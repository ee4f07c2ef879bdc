import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type request from "supertest";
import { DeviceCookies } from "../../src/login/device-cookie.js";
import { memoryUserStore, type PasswordHasher, type UserStore } from "services-session-auth";
import { createTestApp, deviceCookieOf, fastHasher, setCookies, USERS } from "../helpers/app.js";
import { listen, postJson } from "../helpers/clients.js";
import { fakeClock } from "../helpers/doubles.js";

const LOGIN = "/services/json/user/login";
const HOME = "198.51.100.7";

/** An app that takes the client address from X-Forwarded-For, with device cookies on. */
function deviceApp(overrides: Parameters<typeof createTestApp>[0] = {}) {
  return createTestApp({ deviceCookies: true, ...overrides }, USERS, (app) => app.set("trust proxy", true));
}

type App = ReturnType<typeof deviceApp>;

function post(test: App, from: string, body: { username: string; password: string }, cookie?: string): request.Test {
  const req = test.agent.post(LOGIN).set("X-Forwarded-For", from);
  return (cookie === undefined ? req : req.set("Cookie", cookie)).send(body);
}

describe("device cookies", () => {
  let clock: ReturnType<typeof fakeClock>;
  beforeEach(() => {
    clock = fakeClock();
  });
  afterEach(() => {
    clock.restore();
  });

  it("are set by a successful login only, HttpOnly, for 90 days, before the session cookie (which stays last); never when off", async () => {
    const test = deviceApp();
    const ok = await post(test, HOME, { username: "demo", password: "demo-password" });
    expect(ok.status).toBe(200);
    const [device, session] = setCookies(ok);
    expect(session).toMatch(/^SESS\w+=/);
    expect(device).toMatch(/^ssa_device=[\w-]{22}\.[\w-]{22}\.\d+\.[\w-]{22}\.[\w-]{43}; expires=.+; Max-Age=7776000; path=\/; HttpOnly$/);
    expect(device).not.toContain("demo");
    expect(setCookies(await post(test, HOME, { username: "demo", password: "wrong" }))).toEqual([]);
    const off = createTestApp();
    expect(setCookies(await off.agent.post(LOGIN).send({ username: "demo", password: "demo-password" })).map((c) => c.split("=")[0])).toEqual([
      setCookies(ok).at(-1)!.split("=")[0],
    ]);
  });

  it("let their holder in when others have locked its address", async () => {
    const test = deviceApp({ throttle: { ipLimit: 3 } });
    const device = deviceCookieOf(await post(test, HOME, { username: "demo", password: "demo-password" }));
    // Others behind the same address (a NAT) use up its budget.
    for (const name of ["a", "b", "c"]) await post(test, HOME, { username: name, password: "x" });
    const stranger = await post(test, HOME, { username: "demo", password: "demo-password" });
    expect([stranger.status, stranger.text]).toEqual([406, '["This IP address is temporarily blocked."]']);
    const holder = await post(test, HOME, { username: "demo", password: "demo-password" }, device);
    expect(holder.status).toBe(200);
    // The holder's cookie is for demo only: another name from the address is still refused.
    expect((await post(test, HOME, { username: "admin", password: "admin-password" }, device)).status).toBe(406);
  });

  it("let their holder in when others have locked its account", async () => {
    const test = deviceApp({ throttle: { perAccountOnly: true } });
    const device = deviceCookieOf(await post(test, HOME, { username: "demo", password: "demo-password" }));
    for (let i = 0; i < 5; i += 1) await post(test, `203.0.113.${i}`, { username: "demo", password: `guess-${i}` });
    expect((await post(test, "192.0.2.1", { username: "demo", password: "demo-password" })).status).toBe(406);
    // Any spelling of the name that the store matches to the account: the key, not the text, is checked.
    const res = await post(test, HOME, { username: "DEMO", password: "demo-password" }, device);
    expect(res.status).toBe(200);
    // A new cookie at each login: the next one works as well.
    expect((await post(test, HOME, { username: "demo", password: "demo-password" }, deviceCookieOf(res))).status).toBe(200);
  });

  it("give their holder a budget of its own, the account's limit, which its failures use up", async () => {
    const test = deviceApp({ throttle: { perAccountOnly: true } });
    const device = deviceCookieOf(await post(test, HOME, { username: "demo", password: "demo-password" }));
    for (let i = 0; i < 5; i += 1) expect((await post(test, HOME, { username: "demo", password: `wrong-${i}` }, device)).status).toBe(401);
    const spent = await post(test, HOME, { username: "demo", password: "demo-password" }, device);
    expect([spent.status, spent.text]).toEqual([406, '["Account is temporarily blocked."]']);
    // The holder's failures were its own: the account is not locked for anyone else.
    expect((await post(test, "192.0.2.1", { username: "demo", password: "demo-password" })).status).toBe(200);
  });

  it("are ignored when altered, expired, or signed with another secret", async () => {
    const test = deviceApp({ throttle: { perAccountOnly: true, userLimit: 1 } });
    const device = deviceCookieOf(await post(test, HOME, { username: "demo", password: "demo-password" }));
    await post(test, "203.0.113.1", { username: "demo", password: "guess" });
    const value = device.slice("ssa_device=".length);
    const altered = `ssa_device=${value.slice(0, -1)}${value.endsWith("A") ? "B" : "A"}`;
    const other = deviceCookieOf(
      await post(deviceApp({ secret: "another-secret-0123456789-abcdefghijklmnop" }), HOME, { username: "demo", password: "demo-password" }),
    );
    for (const cookie of [altered, other, "ssa_device=junk", `ssa_device=${value}.x`]) {
      expect([cookie, (await post(test, HOME, { username: "demo", password: "demo-password" }, cookie)).status]).toEqual([cookie, 406]);
    }
    expect((await post(test, HOME, { username: "demo", password: "demo-password" }, device)).status).toBe(200);
    clock.advance(7_776_000);
    // Long after, the account locked again by others: the cookie has expired.
    await post(test, "203.0.113.1", { username: "demo", password: "guess" });
    expect((await post(test, HOME, { username: "demo", password: "demo-password" }, device)).status).toBe(406);
  });

  it("take their name and lifetime from the options", async () => {
    const test = deviceApp({ deviceCookies: { name: "app_device", maxAge: 3600 } });
    const res = await post(test, HOME, { username: "demo", password: "demo-password" });
    expect(setCookies(res)[0]).toMatch(/^app_device=[^;]+; expires=.+; Max-Age=3600; path=\/; HttpOnly$/);
    expect(() => createTestApp({ deviceCookies: { name: "a b" } })).toThrow(TypeError);
    // The prefix is the package's to add, over HTTPS only: a browser refuses it elsewhere.
    for (const name of ["__Host-device", "__secure-device"]) expect(() => createTestApp({ deviceCookies: { name } })).toThrow(/__Host-/);
  });
});

describe("DeviceCookies", () => {
  const key = Buffer.alloc(32, 7);
  const nameHash = "A".repeat(22);

  it("reads back what it issued while it is good, every good one of several, each bound to its account", () => {
    const devices = new DeviceCookies(key, 100);
    const value = devices.issue(nameHash, "14", 1000);
    const [token] = devices.read([value], 1099);
    expect(token).toEqual({ nameHash, account: value.split(".")[1], nonce: value.split(".")[3] });
    expect(devices.read([value], 1100)).toEqual([]);
    const other = devices.issue(nameHash, "30", 1000);
    expect(devices.read(["junk", other, value], 1050).map((one) => one.nonce)).toEqual([other.split(".")[3], value.split(".")[3]]);
    expect(devices.forAccount(devices.read(["junk", other, value], 1050), "14")).toEqual(token);
    expect(devices.forAccount(devices.read([other], 1050), "14")).toBeUndefined();
    // Issued too far in the future (another instance's clock is not that far off).
    expect(devices.read([devices.issue(nameHash, "14", 2000)], 1000)).toEqual([]);
    expect(new DeviceCookies(Buffer.alloc(32, 8), 100).read([value], 1001)).toEqual([]);
    // The account tag cannot be swapped: the MAC covers it.
    const swapped = [value.split(".")[0], other.split(".")[1], ...value.split(".").slice(2)].join(".");
    expect(devices.read([swapped], 1050)).toEqual([]);
  });
});

describe("device cookies under a many-address burst", () => {
  it("put a locked-out holder's check ahead of every address's waiting logins", async () => {
    // One check runs at a time. The one running when the holder comes is held until the
    // holder's login has looked its account up (from there to its place in the queue is
    // microtasks only), so the order below depends on the queue, not on how fast this machine
    // is; the checks after it take 20 ms each, 30 waiting logins 600 ms of queue.
    let holderLookedUp = (): void => {};
    const holderQueued = new Promise<void>((resolve) => (holderLookedUp = resolve));
    const verified: string[] = [];
    let holdNext = false;
    const slow: PasswordHasher = {
      ...fastHasher,
      verify: async (hash, password) => {
        verified.push(password);
        if (holdNext) {
          holdNext = false;
          await holderQueued;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
        return fastHasher.verify(hash, password);
      },
    };
    const users = memoryUserStore(USERS, { hasher: fastHasher });
    let holding = false;
    const userStore: UserStore = {
      ...users,
      findByName: async (name) => {
        const found = await users.findByName(name);
        // After the lookup's own continuation has run: the login is in the queue by then.
        if (holding && name === "demo") setTimeout(holderLookedUp, 0);
        return found;
      },
    };
    const test = createTestApp({ deviceCookies: true, hasher: slow, hashing: { concurrency: 1, maxWait: 30 }, throttle: { ipLimit: 3 }, userStore });
    const server = await listen(test.app);
    try {
      const home = "127.0.0.2";
      const first = await postJson(server.port, LOGIN, { username: "demo", password: "demo-password" }, { from: home });
      const cookie = (first.headers["set-cookie"] as string[]).find((value) => value.startsWith("ssa_device="))!.split(";")[0]!;
      await users.ready;
      // Others behind the holder's address (a NAT) lock it out: the cookie is now the holder's remedy.
      for (const name of ["a", "b", "c"]) await postJson(server.port, LOGIN, { username: name, password: "x" }, { from: home });
      verified.length = 0;
      holdNext = true;
      const burst = Array.from({ length: 30 }, (_, i) =>
        postJson(server.port, LOGIN, { username: `name-${i}`, password: `guess-${i}` }, { from: `127.0.1.${i + 1}` }),
      );
      // Let the burst arrive and queue first.
      while (verified.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      holding = true;
      const holder = await postJson(server.port, LOGIN, { username: "demo", password: "demo-password" }, { from: home, headers: { Cookie: cookie } });
      const checksBeforeReply = verified.length;
      expect(holder.status).toBe(200);
      // Checked right after the check running when it came (and the sample checks of that failure).
      const position = verified.indexOf("demo-password");
      expect(position).toBeLessThanOrEqual(3);
      // And answered right after its check: counted in checks, not in wall-clock time, which a
      // loaded machine stretches. The queue moves on as the reply is written, and a stall can let
      // one more timer in before the client reads it; the 30 queued logins are far behind.
      expect(checksBeforeReply).toBeLessThanOrEqual(position + 3);
      await Promise.all(burst);
    } finally {
      await server.close();
    }
  });
});

describe("device cookies of a holder nobody has locked out", () => {
  it("give no place ahead of others: a loop of one holder's logins leaves new users' logins their turn", async () => {
    // Checks take 20 ms, one at a time, and a login may wait 300 ms: twenty logins ahead would turn a new user away.
    const slow: PasswordHasher = {
      ...fastHasher,
      verify: async (hash, password) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return fastHasher.verify(hash, password);
      },
    };
    const test = createTestApp({ deviceCookies: true, hasher: slow, hashing: { concurrency: 1, maxWait: 0.3 } });
    const server = await listen(test.app);
    try {
      const first = await postJson(server.port, LOGIN, { username: "demo", password: "demo-password" }, { from: "127.0.0.2" });
      const cookie = (first.headers["set-cookie"] as string[]).find((value) => value.startsWith("ssa_device="))!.split(";")[0]!;
      const loop = Array.from({ length: 20 }, () =>
        postJson(server.port, LOGIN, { username: "demo", password: "demo-password" }, { from: "127.0.0.2", headers: { Cookie: cookie } }),
      );
      const newcomers = ["admin", "O'Brien <b>"].map((name, i) =>
        postJson(server.port, LOGIN, { username: name, password: name === "admin" ? "admin-password" : "obrien-password" }, { from: `127.0.3.${i + 1}` }),
      );
      expect((await Promise.all(newcomers)).map((reply) => reply.status)).toEqual([200, 200]);
      await Promise.all(loop);
    } finally {
      await server.close();
    }
  });
});
