/**
 * The route guards on every binding, from one table: the same app (test/helpers/bindings.ts)
 * on the Express router, the Fastify plugin and the fetch handler in Hono, the same requests,
 * the same replies. Framework-specific behaviour (Express's `onDenied`, a form body the app
 * parsed) is tested with its binding.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { login, statusText } from "../helpers/app.js";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";

describe.each(FRAMEWORKS)("route guards on %s", (binding) => {
  async function app() {
    const { server } = await bindingApp(binding);
    return request(server);
  }

  it("lets a live session through with its user, and answers 401 in the wire format without one, with a junk cookie, or after logout", async () => {
    const agent = await app();
    const session = await login(agent);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).body).toEqual({ players: ["Ana"], uid: "14" });
    const none = await agent.get("/services/json/players");
    expect([none.status, statusText(none), none.headers["content-type"], none.text]).toEqual([
      401,
      "Unauthorized : Access denied for user anonymous",
      "application/json",
      '["Access denied for user anonymous"]',
    ]);
    const junk = await agent.get("/services/json/players").set("Cookie", `${session.session_name}=junk`);
    // One deletion: the refusal's reply carries the guard's headers once.
    expect([junk.status, junk.headers["set-cookie"]]).toEqual([401, [expect.stringMatching(/=deleted; expires=Thu, 01 Jan 1970 00:00:01 GMT/)]]);
    expect((await agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send()).status).toBe(200);
    expect((await agent.get("/services/json/players").set("Cookie", session.cookie)).status).toBe(401);
  });

  it("checks the CSRF token on unsafe methods only (header or query), and not on a route that turns it off", async () => {
    const agent = await app();
    const session = await login(agent);
    const other = await login(agent);
    const denied = await agent.post("/services/json/players").set("Cookie", session.cookie).send({});
    expect([denied.status, statusText(denied), denied.text]).toEqual([401, "Unauthorized : CSRF validation failed", '["CSRF validation failed"]']);
    expect((await agent.post("/services/json/players").set("Cookie", session.cookie).set("X-CSRF-Token", other.token).send({})).status).toBe(401);
    expect((await agent.post("/services/json/players").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send({})).body).toEqual({
      added: true,
    });
    expect((await agent.post(`/services/json/players?services_token=${session.token}`).set("Cookie", session.cookie).send({})).status).toBe(200);
    expect((await agent.post("/services/json/open").set("Cookie", session.cookie).send({})).body).toEqual({ open: true });
  });

  it("answers 403 without a required role", async () => {
    const agent = await app();
    const demo = await login(agent);
    const res = await agent.get("/services/json/admin").set("Cookie", demo.cookie);
    expect([res.status, statusText(res)]).toEqual([403, ": Access denied for user demo"]);
    const admin = await login(agent, "admin", "admin-password");
    expect((await agent.get("/services/json/admin").set("Cookie", admin.cookie)).body).toEqual({ admin: true });
  });

  it("lets everyone through an optional guard, with the session when it is live (and its token on an unsafe method)", async () => {
    const agent = await app();
    expect((await agent.get("/welcome")).body).toEqual({ name: null });
    const demo = await login(agent);
    expect((await agent.get("/welcome").set("Cookie", demo.cookie)).body).toEqual({ name: "demo" });
  });

  it("routes ?q= paths to the Services calls and to the app's own routes, and ends with Services' 404s", async () => {
    const agent = await app();
    const demo = await login(agent);
    expect((await agent.get("/?q=services/json/players").set("Cookie", demo.cookie)).body).toEqual({ players: ["Ana"], uid: "14" });
    expect((await agent.get("/index.php?q=services/session/token").set("Cookie", demo.cookie)).text).toBe(demo.token);
    const resource = await agent.get("/services/json/teams");
    expect([resource.status, statusText(resource), resource.text]).toEqual([404, "Not found : Could not find resource teams.", ""]);
    expect(statusText(await agent.delete("/services/json/players"))).toBe("Not found : Could not find the controller.");
    expect(statusText(await agent.get("/elsewhere"))).toBe("Not Found");
  });
});
