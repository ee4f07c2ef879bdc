/**
 * Drupal's `?q=` paths on every binding: a repeated `q` is read as PHP's `$_GET` reads it (the
 * last one), as Drupal's `request_path()` routed it, so a proxy or log reading `q` the PHP way
 * sees the route the app takes.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { BINDINGS, bindingApp } from "../helpers/bindings.js";

const CREDENTIALS = { username: "demo", password: "demo-password" };

describe.each(BINDINGS)("?q= paths on %s", (binding) => {
  it("routes a repeated q by its last value", async () => {
    const { server } = await bindingApp(binding);
    const agent = request(server);
    const last = await agent.post("/?q=nothing&q=services/json/user/login.json").send(CREDENTIALS);
    expect(last.status).toBe(200);
    expect(last.headers["set-cookie"]).toHaveLength(1);
    const first = await agent.post("/?q=services/json/user/login.json&q=nothing").send(CREDENTIALS);
    expect(first.status).toBe(404);
    expect(first.headers["set-cookie"]).toBeUndefined();
  });
});
