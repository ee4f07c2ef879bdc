/**
 * Issue 29's device-cookie findings, on every binding, behind a trusted loopback proxy (so each
 * request names its client in X-Forwarded-For and its scheme in X-Forwarded-Proto):
 *
 * - a device cookie is the account's that earned it, as the user store tells accounts apart:
 *   the owner of `démo` gets nothing at `demo` where the store keeps them apart;
 * - values planted before the victim's own (a sibling subdomain plants them on a longer Path,
 *   so they are sent first) never hide it;
 * - over HTTPS the cookie is `__Host-` prefixed (Secure, Path=/, no Domain), which a sibling
 *   subdomain cannot set at all, and the unprefixed name is not read there.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { memoryUserStore, type PasswordHasher } from "services-session-auth";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS, type Framework } from "../helpers/frameworks.js";
import { deviceCookieOf, fastHasher, setCookies, USERS } from "../helpers/app.js";

const LOGIN = "/services/json/user/login";
const HOME = "198.51.100.7";
const ATTACKER = "203.0.113.66";

/** An app with device cookies on, `démo` (uid 30) beside `demo` (uid 14), and a hasher that counts the passwords it checks. */
async function deviceApp(binding: Framework) {
  const verified: string[] = [];
  const hasher: PasswordHasher = { ...fastHasher, verify: (hash, password) => (verified.push(password), fastHasher.verify(hash, password)) };
  const userStore = memoryUserStore([...USERS, { uid: "30", name: "démo", password: "accent-password" }], { hasher: fastHasher });
  const { server } = await bindingApp(binding, { deviceCookies: true, hasher, userStore, throttle: { perAccountOnly: true } }, "loopback");
  const agent = request(server);
  const login = (from: string, username: string, password: string, options: { cookie?: string; https?: boolean; host?: string } = {}) => {
    let req = agent
      .post(LOGIN)
      .set("X-Forwarded-For", from)
      .set("X-Forwarded-Proto", options.https === true ? "https" : "http");
    if (options.host !== undefined) req = req.set("Host", options.host);
    if (options.cookie !== undefined) req = req.set("Cookie", options.cookie);
    return req.send({ username, password });
  };
  /** Locks an account for everyone without a device cookie: 5 failures from elsewhere. */
  const lock = async (username: string) => {
    for (let i = 0; i < 5; i += 1) expect((await login(`192.0.2.${i + 1}`, username, `guess-${i}`)).status).toBe(401);
  };
  return { verified, login, lock };
}

describe.each(FRAMEWORKS)("device cookies on %s", (binding) => {
  it("are bound to the account that earned them: démo's cookie buys no guesses at demo", async () => {
    const { verified, login, lock } = await deviceApp(binding);
    const accent = deviceCookieOf(await login(HOME, "démo", "accent-password"));
    await lock("demo");
    verified.length = 0;
    for (let i = 0; i < 4; i += 1) {
      const res = await login(ATTACKER, "demo", `cookie-guess-${i}`, { cookie: accent });
      expect([res.status, res.text]).toEqual([406, '["Account is temporarily blocked."]']);
    }
    expect(verified).toEqual([]);
    // Still démo's own: its holder gets in though the names share one (locked) count.
    expect((await login(HOME, "démo", "accent-password")).status).toBe(406);
    expect((await login(HOME, "démo", "accent-password", { cookie: accent })).status).toBe(200);
  });

  it("are not hidden by values planted before them: junk, or another account's own cookie", async () => {
    const { login, lock } = await deviceApp(binding);
    const own = deviceCookieOf(await login(HOME, "demo", "demo-password"));
    const attackers = deviceCookieOf(await login(ATTACKER, "admin", "admin-password"));
    await lock("demo");
    const planted = Array.from({ length: 6 }, (_, i) => `ssa_device=${"A".repeat(22)}.${"B".repeat(22)}.1.${"C".repeat(21)}${i}.${"D".repeat(43)}`);
    const cookie = [...planted, attackers, "ssa_device=junk", own].join("; ");
    expect((await login(HOME, "demo", "demo-password", { cookie })).status).toBe(200);
  });

  it("are __Host- cookies over HTTPS (Secure, Path=/, no Domain), and only that name is read there", async () => {
    const { login, lock } = await deviceApp(binding);
    const host = "api.example.com";
    const secure = await login(HOME, "demo", "demo-password", { https: true, host });
    const [device, session] = setCookies(secure);
    expect(session).toMatch(/^SSESS\w+=.*; domain=\.api\.example\.com; secure; HttpOnly$/);
    expect(device).toMatch(/^__Host-ssa_device=[\w.-]+; expires=[^;]+; Max-Age=7776000; path=\/; secure; HttpOnly$/);
    const plain = await login(HOME, "demo", "demo-password", { host });
    expect(setCookies(plain)[0]).toMatch(/^ssa_device=[\w.-]+; expires=[^;]+; Max-Age=7776000; path=\/; HttpOnly$/);

    await lock("demo");
    const prefixed = deviceCookieOf(secure, "__Host-ssa_device");
    expect((await login(HOME, "demo", "demo-password", { https: true, host, cookie: prefixed })).status).toBe(200);
    // Over HTTPS the unprefixed name is what a sibling subdomain could plant: not read, even holding a good value.
    const unprefixed = prefixed.replace("__Host-", "");
    expect((await login(HOME, "demo", "demo-password", { https: true, host, cookie: unprefixed })).status).toBe(406);
  });
});
