/**
 * A Content-Type that is no media type, on every binding: Services reads it as an
 * unsupported type (406 in the wire format) and services/session/token never reads a body,
 * whatever the framework would make of it (Fastify answers such a header with a 415 of its
 * own before any handler).
 */
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";

const CREDENTIALS = JSON.stringify({ username: "demo", password: "demo-password" });

/** A POST with an empty Content-Type header, which supertest would leave out. */
function post(port: number, path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      { host: "127.0.0.1", port, path, method: "POST", headers: { "Content-Type": "", "Content-Length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

describe.each(FRAMEWORKS)("an unreadable Content-Type on %s", (binding) => {
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

  it("reads an empty Content-Type as none, as Node's other frameworks do", async () => {
    const { server } = await bindingApp(binding);
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    try {
      const { port } = server.address() as AddressInfo;
      const form = "username=demo&password=demo-password";
      const login = await post(port, "/services/json/user/login", form);
      expect([login.status, login.body]).toEqual([200, expect.stringContaining('"sessid":')]);
      const token = await post(port, "/services/session/token", "x");
      expect([token.status, token.body]).toEqual([200, expect.stringMatching(/^[\w-]{43}$/)]);
    } finally {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    }
  });
});
