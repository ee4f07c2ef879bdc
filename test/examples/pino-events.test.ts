import { Writable } from "node:stream";
import express from "express";
import { pino } from "pino";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { pinoLoggedAuth } from "../../examples/recipes/recipes.js";
import { createTestApp } from "../helpers/app.js";

/** A pino logger whose lines are kept, parsed. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}

describe("README recipe: audit events with pino", () => {
  function app() {
    const { logger, lines } = capturedLogger();
    const { options } = createTestApp();
    const { sessionAuth, finish } = pinoLoggedAuth(options, logger);
    const built = express();
    // As pino-http and most request-id middleware do.
    built.use((req, _res, next) => {
      if (req.get("x-trace") !== undefined) (req as express.Request & { id?: string }).id = req.get("x-trace");
      next();
    });
    built.use(sessionAuth);
    built.get("/boom", () => {
      throw new Error("database password is hunter2");
    });
    finish(built);
    return { agent: request(built), lines };
  }

  it("writes each event as one line, with its time and the request's id, and never the name or password", async () => {
    const { agent, lines } = app();
    await agent.post("/services/json/user/login").set("X-Request-Id", "req-42").send({ username: "demo", password: "hunter2-wrong" });
    await agent.post("/services/json/user/login").set("X-Trace", "pino-7").send({ username: "demo", password: "demo-password" });
    const [failure, success] = lines;
    expect(failure).toMatchObject({
      level: 30,
      msg: "login.failure",
      type: "login.failure",
      reason: "wrong-password",
      uid: "14",
      requestId: "req-42",
      timestamp: expect.any(Number),
    });
    expect(success).toMatchObject({ msg: "login.success", uid: "14", requestId: "pino-7" });
    expect(Math.abs((failure!.timestamp as number) - Date.now())).toBeLessThan(60_000);
    expect(JSON.stringify(lines)).not.toMatch(/hunter2-wrong|demo-password|"demo"/);
  });

  it("logs an unhandled error once, as an error with its message and stack under err, and answers a body-less 500", async () => {
    const { agent, lines } = app();
    const res = await agent.get("/boom").set("X-Request-Id", "req-43");
    expect([res.status, res.text]).toEqual([500, ""]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: "internal.error",
      requestId: "req-43",
      err: { type: "Error", message: "database password is hunter2", stack: expect.stringContaining("Error: database password") },
    });
  });
});
