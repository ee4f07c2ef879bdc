/**
 * Issue 29's planted live session: a sibling subdomain plants the attacker's own session cookie
 * beside the victim's (`SESS…=attacker; SESS…=victim`). Two accounts' live sessions are no
 * session, so the victim's logout used to be 406 "User is not logged in.", nothing was ended,
 * and the victim's session came back once the attacker ended theirs. A logout whose token
 * belongs to one of the sessions its cookies name ends that session, and never the other.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";
import { setCookies } from "../helpers/app.js";

type Session = { sessid: string; session_name: string; token: string };

describe.each(FRAMEWORKS)("a logout beside a planted live session on %s", (binding) => {
  async function setUp() {
    const { server, events } = await bindingApp(binding);
    const agent = request(server);
    const login = async (username: string, password: string) => (await agent.post("/services/json/user/login").send({ username, password })).body as Session;
    const whoIs = async (session: Session) =>
      (
        (await agent.post("/services/json/system/connect").set("Cookie", `${session.session_name}=${session.sessid}`).set("X-CSRF-Token", session.token))
          .body as { user: { uid: unknown } }
      ).user.uid;
    const logout = (cookie: string, token: string | undefined) => {
      const req = agent.post("/services/json/user/logout").set("Cookie", cookie);
      return token === undefined ? req : req.set("X-CSRF-Token", token);
    };
    return { events, login, whoIs, logout, victim: await login("demo", "demo-password"), attacker: await login("admin", "admin-password") };
  }

  it("ends the victim's own session with the victim's token, and leaves the attacker's", async () => {
    const { events, whoIs, logout, victim, attacker } = await setUp();
    const name = victim.session_name;
    const res = await logout(`${name}=${attacker.sessid}; ${name}=${victim.sessid}`, victim.token);
    expect([res.status, res.text]).toEqual([200, "[true]"]);
    expect(setCookies(res)[0]).toMatch(new RegExp(`^${name}=deleted; `));
    expect(await whoIs(victim)).toBe(0);
    expect(await whoIs(attacker)).toBe("1");
    expect(events.filter((event) => event.type === "logout").map((event) => "uid" in event && event.uid)).toEqual(["14"]);
  });

  it("ends only the attacker's with the attacker's token, and nothing without a token or with a wrong one", async () => {
    const { whoIs, logout, victim, attacker } = await setUp();
    const name = victim.session_name;
    const cookie = `${name}=${attacker.sessid}; ${name}=${victim.sessid}`;
    for (const token of [undefined, "x".repeat(43), `${victim.token.slice(0, -1)}${victim.token.endsWith("A") ? "E" : "A"}`]) {
      const res = await logout(cookie, token);
      expect([res.status, res.text, setCookies(res)]).toEqual([406, '["User is not logged in."]', []]);
    }
    expect([await whoIs(victim), await whoIs(attacker)]).toEqual(["14", "1"]);
    expect((await logout(cookie, attacker.token)).status).toBe(200);
    expect([await whoIs(victim), await whoIs(attacker)]).toEqual(["14", 0]);
  });

  it("finds the victim's session behind more planted values than are looked up", async () => {
    const { whoIs, logout, victim } = await setUp();
    const name = victim.session_name;
    const planted = Array.from({ length: 6 }, (_, i) => `${name}=planted-${i}`).join("; ");
    const res = await logout(`${planted}; ${name}=${victim.sessid}`, victim.token);
    expect([res.status, res.text]).toEqual([200, "[true]"]);
    expect(await whoIs(victim)).toBe(0);
  });
});
