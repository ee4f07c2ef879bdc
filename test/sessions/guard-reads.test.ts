import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { createTestApp, login } from "../helpers/app.js";

// Counts, never time: what a guarded GET reads of the framework's request. Express's `req.secure`
// is a getter chain (its trust-proxy setting, the socket), and `req.id` is a property most apps
// never set, looked up through every prototype: a guard reads the one once and the other only
// for an event.
describe("what a guarded GET reads of the request", () => {
  function countingApp() {
    const reads = { secure: 0, id: 0 };
    const { app, agent, events } = createTestApp({}, undefined, (routes, auth) => {
      routes.get(
        "/counted",
        (req, _res, next) => {
          const prototype = Object.getPrototypeOf(req) as Request;
          Object.defineProperty(req, "secure", {
            get() {
              reads.secure += 1;
              return Reflect.get(prototype, "secure", req) as boolean;
            },
          });
          Object.defineProperty(req, "id", {
            get() {
              reads.id += 1;
              return "request-7";
            },
          });
          next();
        },
        auth.requireSession(),
        (req, res) => void res.json({ uid: req.auth?.user.uid }),
      );
    });
    return { app, agent, events, reads };
  }

  it("reads the scheme once and the request id never, for a live session", async () => {
    const { app, agent, reads } = countingApp();
    const session = await login(app);
    const response = await agent.get("/counted").set("Cookie", session.cookie);
    expect(response.status).toBe(200);
    expect(reads).toEqual({ secure: 1, id: 0 });
  });

  it("reads the request id when the check raises an event, which carries it", async () => {
    const { app, agent, events, reads } = countingApp();
    const session = await login(app);
    // Five values of the session cookie are more than a session can be: refused, and reported.
    const cookie = Array.from({ length: 5 }, (_, i) => `${session.cookie.split("=")[0]}=${String(i).repeat(43)}`).join("; ");
    const response = await agent.get("/counted").set("Cookie", cookie);
    expect(response.status).toBe(401);
    expect(reads.id).toBe(1);
    expect(events.filter((event) => event.type === "session.ambiguous").map((event) => event.requestId)).toEqual(["request-7"]);
  });
});
