/**
 * Behind a reverse proxy, on every binding: the client the login throttle counts is the one
 * the proxy names when the app believes that proxy, and never one a client names itself.
 * Supertest connects from 127.0.0.1, the proxy here.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";

const LOGIN = "/services/json/user/login.json";

function login(agent: ReturnType<typeof request>, forwardedFor: string, username: string, password: string) {
  return agent.post(LOGIN).set("X-Forwarded-For", forwardedFor).send({ username, password });
}

describe.each(FRAMEWORKS)("client addresses behind a proxy on %s", (binding) => {
  it.each([["loopback"], [1]])("counts each client the trusted proxy (%s) names on its own: one's failures lock no other out", async (trustProxy) => {
    const { server, events } = await bindingApp(binding, { throttle: { ipLimit: 3 } }, trustProxy);
    const agent = request(server);
    const attacker = [];
    for (let i = 0; i < 4; i++) attacker.push((await login(agent, "203.0.113.66", `nobody${i}`, "wrong")).status);
    expect(attacker).toEqual([401, 401, 401, 406]);
    expect((await login(agent, "198.51.100.7", "demo", "demo-password")).status).toBe(200);
    expect(events.find((event) => event.type === "login.success")).toMatchObject({ ip: "198.51.100.7" });
  });

  it("lets no client choose its address when no proxy is trusted", async () => {
    const { server } = await bindingApp(binding, { throttle: { ipLimit: 3 } });
    const agent = request(server);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await login(agent, `203.0.113.${i + 1}`, `nobody${i}`, "wrong")).status);
    expect(statuses).toEqual([401, 401, 401, 406]);
  });
});
