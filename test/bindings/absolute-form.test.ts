/**
 * A request line in absolute-form (`POST http://host/path HTTP/1.1`, as a client sends through
 * a forward proxy): Node leaves it in `req.url`, and the frameworks route it by its path, so
 * the package reads the same path and answers as it would the origin-form.
 */
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import express from "express";
import { memorySessionStore, memoryUserStore } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS } from "../helpers/frameworks.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Sends one raw request and resolves the status line, the headers and the body. */
function raw(server: Server, head: string, body = ""): Promise<{ status: string; headers: string; body: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const [status = "", ...headers] = text.slice(0, split).split("\r\n");
      resolve({ status, headers: headers.join("\n"), body: text.slice(split + 4) });
    });
  });
}

describe.each(FRAMEWORKS)("a request line in absolute-form, on %s", (binding) => {
  it("logs in, refuses and answers not-found by the path, as the framework routes it", async () => {
    const { server } = await bindingApp(binding);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const login = await raw(
      server,
      "POST http://sports.test/services/json/user/login.json HTTP/1.1\r\nHost: sports.test\r\nContent-Type: application/json",
      JSON.stringify({ username: "demo", password: "demo-password" }),
    );
    expect(login.status).toBe("HTTP/1.1 200 OK");
    expect(login.headers).toMatch(/^set-cookie: SESS[0-9a-f]{32}=/im);
    const refused = await raw(server, "GET http://sports.test/services/json/players HTTP/1.1\r\nHost: sports.test");
    expect(refused.status).toMatch(/^HTTP\/1.1 401 /);
    const missing = await raw(server, "GET http://sports.test/services/json/teams HTTP/1.1\r\nHost: sports.test");
    expect([missing.status, missing.body]).toEqual(["HTTP/1.1 404 Not found : Could not find resource teams.", ""]);
  });
});

describe.each(FRAMEWORKS)("a ?q= call in absolute-form, on %s", (binding) => {
  it("is routed by q to the app's route and to Services' not-found, as its origin-form is", async () => {
    const { server } = await bindingApp(binding);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const refused = await raw(server, "GET http://sports.test/?q=services/json/players HTTP/1.1\r\nHost: sports.test");
    expect(refused.status).toMatch(/^HTTP\/1.1 401 /);
    const missing = await raw(server, "GET http://sports.test/?q=services/json/teams HTTP/1.1\r\nHost: sports.test");
    expect([missing.status, missing.body]).toEqual(["HTTP/1.1 404 Not found : Could not find resource teams.", ""]);
  });
});

describe("an absolute-form target Express reads another way", () => {
  it("is never served past the app's middleware in front of the router: only an authority every router reads alike counts", async () => {
    const app = express();
    // The app's own guard in front of the Services calls (a rate limit, an IP block).
    app.use("/services", (_req, res) => void res.status(429).send("blocked"));
    app.use(
      createSessionAuthRouter({
        userStore: memoryUserStore(USERS, { hasher: fastHasher }),
        sessionStore: memorySessionStore(),
        secret: SECRET,
        hasher: fastHasher,
      }),
    );
    const server = createServer(app);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const body = JSON.stringify({ username: "demo", password: "demo-password" });
    const hosts = ["h", "h;x", "h%25", "h'", "u:p@h", "h:x", 'h"', "h<", "h{", "h|", "h^", "h`", `h\\`, "a".repeat(300), "[::1]:80", "h:8080"];
    for (const target of ["/services/json/user/login", ...hosts.map((host) => `http://${host}/services/json/user/login`)]) {
      const res = await raw(server, `POST ${target} HTTP/1.1\r\nHost: sports.test\r\nContent-Type: application/json`, body);
      expect(res.status, target).not.toMatch(/ 200 /);
      expect(res.headers, target).not.toMatch(/^set-cookie:/im);
    }
  });
});
