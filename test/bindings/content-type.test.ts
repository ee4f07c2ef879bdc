/**
 * A Content-Type that is no media type, on every binding: Services reads it as an
 * unsupported type (406 in the wire format) and services/session/token never reads a body,
 * whatever the framework would make of it (Fastify answers such a header with a 415 of its
 * own before any handler).
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { BINDINGS, bindingApp } from "../helpers/bindings.js";

const CREDENTIALS = JSON.stringify({ username: "demo", password: "demo-password" });

describe.each(BINDINGS)("an unreadable Content-Type on %s", (binding) => {
  it("is Services' 406 on the endpoint, and no obstacle to the token call", async () => {
    const { server } = await bindingApp(binding);
    const agent = request(server);
    for (const type of ["json", "application/json, text/plain", "/json"]) {
      const login = await agent.post("/services/json/user/login").set("Content-Type", type).send(CREDENTIALS);
      expect([login.status, login.text], type).toEqual([406, JSON.stringify([`Unsupported request content type ${type}`])]);
    }
    const token = await agent.post("/services/session/token").set("Content-Type", "json").send("x");
    expect([token.status, token.text]).toEqual([200, expect.stringMatching(/^[\w-]{43}$/)]);
    // Below the endpoint but none of its calls: Services' 404, as for any other Content-Type.
    const unknown = await agent.post("/services/json/nowhere").set("Content-Type", "json").send("x");
    expect(unknown.status).toBe(404);
  });
});
