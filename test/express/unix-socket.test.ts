/**
 * An app listening on a Unix socket behind a proxy: Express's `req.ip` is undefined unless
 * `trust proxy` is a hop count (there is no proxy address to trust by), so the package sees
 * client addresses that are not IP addresses. Such requests must never share one address
 * group (one client's failures would lock every user out), and the first one is reported.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Express } from "express";
import { createTestApp } from "../helpers/app.js";

interface Reply {
  readonly status: number;
  readonly reason: string;
  readonly body: string;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  vi.restoreAllMocks();
});

/** Listens on a new Unix socket; resolves a function that posts JSON to it, as a proxy would, with X-Forwarded-For. */
async function onSocket(app: Express) {
  const dir = mkdtempSync(join(tmpdir(), "ssa-socket-"));
  const socketPath = join(dir, "app.sock");
  const server = app.listen(socketPath);
  await new Promise((resolve) => server.once("listening", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  return (path: string, forwardedFor: string, body: unknown) =>
    new Promise<Reply>((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(body));
      const headers = { "Content-Type": "application/json", "Content-Length": String(payload.length), Host: "sports.test", "X-Forwarded-For": forwardedFor };
      const req = httpRequest({ socketPath, path, method: "POST", headers, agent: false }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? "", body: text }));
      });
      req.on("error", reject);
      req.end(payload);
    });
}

const LOGIN = "/services/json/user/login";
const throttle = { ipLimit: 3, ipWindow: 3600, userLimit: 2, userWindow: 21_600, perAccountOnly: false };

describe("an app on a Unix socket behind a proxy", () => {
  it("with trust proxy by address, counts no client with another: no shared IP block, each account's own limit, one report", async () => {
    const { app, events } = createTestApp({ throttle });
    app.set("trust proxy", "loopback");
    const post = await onSocket(app);

    // Many failures, far past ipLimit, from many clients: none may lock the others out.
    for (let i = 0; i < 10; i++) {
      const reply = await post(LOGIN, `203.0.113.${i}`, { username: `nobody${i}`, password: "" });
      expect(reply.status, reply.reason).toBe(401);
    }
    const demo = await post(LOGIN, "198.51.100.7", { username: "demo", password: "demo-password" });
    expect(demo.status, demo.reason).toBe(200);
    // Each account's own limit still holds.
    for (let i = 0; i < throttle.userLimit; i++) expect((await post(LOGIN, `192.0.2.${i}`, { username: "admin", password: "wrong" })).status).toBe(401);
    const blocked = await post(LOGIN, "192.0.2.99", { username: "admin", password: "admin-password" });
    expect([blocked.status, blocked.reason]).toEqual([406, "Not Acceptable : Account is temporarily blocked."]);

    const reports = events.filter((event) => event.type === "address.unknown");
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ address: "" });
    expect((reports[0] as { message: string }).message).toContain('app.set("trust proxy", 1)');
  });

  it("with trust proxy as a hop count, has the client's address: the IP limit applies, and nothing is reported", async () => {
    const { app, events } = createTestApp({ throttle });
    app.set("trust proxy", 1);
    const post = await onSocket(app);
    for (let i = 0; i < throttle.ipLimit; i++) expect((await post(LOGIN, "203.0.113.1", { username: `nobody${i}`, password: "" })).status).toBe(401);
    const refused = await post(LOGIN, "203.0.113.1", { username: "demo", password: "demo-password" });
    expect(refused.reason).toBe("Not Acceptable : This IP address is temporarily blocked.");
    expect((await post(LOGIN, "203.0.113.2", { username: "demo", password: "demo-password" })).status).toBe(200);
    expect(events.filter((event) => event.type === "address.unknown")).toEqual([]);
  });

  it("reports the first request without an address on stderr when the app has no onEvent", async () => {
    const { app } = createTestApp({ onEvent: undefined });
    const post = await onSocket(app);
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    vi.stubEnv("NODE_ENV", "production");
    try {
      await post("/services/json/system/connect", "203.0.113.1", "");
      await post("/services/json/system/connect", "203.0.113.2", "");
    } finally {
      vi.unstubAllEnvs();
    }
    const reports = written.filter((line) => line.includes("address.unknown"));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('app.set("trust proxy", 1)');
  });
});
