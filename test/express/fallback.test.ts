import express from "express";
import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import { memorySessionStore, memoryUserStore, type AuthEvent, type AuthEventListener } from "services-session-auth";
import { createSessionAuthRouter } from "services-session-auth/express";
import { createTestApp, SECRET, statusText } from "../helpers/app.js";

/** Runs `body` outside NODE_ENV=test (where nothing is logged), with what it writes to stderr captured. */
async function withStderr(body: (written: string[]) => Promise<void>): Promise<void> {
  const written: string[] = [];
  const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (written.push(String(chunk)), true));
  vi.stubEnv("NODE_ENV", "production");
  try {
    await body(written);
  } finally {
    vi.unstubAllEnvs();
    write.mockRestore();
  }
}

/** An auth over empty stores, for the handlers that need none of its sessions. */
function bareAuth(onEvent?: AuthEventListener) {
  return createSessionAuthRouter({
    userStore: memoryUserStore([]),
    sessionStore: memorySessionStore(),
    secret: SECRET,
    ...(onEvent === undefined ? {} : { onEvent }),
  });
}

describe("SessionAuthRouter.notFound", () => {
  const { agent } = createTestApp();

  it("answers an unknown resource as Services does, with an empty body and PHP's default Content-Type", async () => {
    const res = await agent.post("/services/json/nothing.json");
    expect(res.status).toBe(404);
    expect(statusText(res)).toBe("Not found : Could not find resource nothing.");
    expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
    expect(res.text).toBe("");
  });

  it("answers an unknown action of a known resource with the missing controller", async () => {
    for (const path of ["/services/json/user/register.json", "/services/json/system/get_variable", "/services/json/players/7/stats"]) {
      const res = await agent.post(path);
      expect(res.status, path).toBe(404);
      expect(statusText(res), path).toBe("Not found : Could not find the controller.");
      expect(res.text).toBe("");
    }
  });

  it("answers ?q= paths the same way", async () => {
    const res = await agent.get("/?q=services/json/nothing");
    expect(statusText(res)).toBe("Not found : Could not find resource nothing.");
  });

  it("keeps a hostile resource name out of the status line's control characters and length", async () => {
    const res = await agent.get(`/services/json/${encodeURIComponent("a\r\nX-Evil: 1<b>")}${"z".repeat(500)}`);
    expect(res.status).toBe(404);
    expect(res.headers["x-evil"]).toBeUndefined();
    expect(statusText(res)).toMatch(/^Not found : Could not find resource aX-Evil: 1z+\.$/);
    expect(statusText(res).length).toBeLessThan(120);
  });

  it("mounted at the site root, answers every other path with Drupal's page-not-found status line and no HTML", async () => {
    for (const path of ["/nothing", "/services/", "/services/json.xml", "/services/session/token/x", "/?q=nothing"]) {
      const res = await agent.post(path);
      expect([res.status, statusText(res)], path).toEqual([404, "Not Found"]);
      // No body, so the type Drupal gives every body-less reply: never an HTML page.
      expect(res.headers["content-type"], path).toBe("text/html; charset=UTF-8");
      expect(res.text, path).toBe("");
    }
  });

  it("mounted below the root with the router, reads paths as the router does, from where it is mounted", async () => {
    const auth = bareAuth();
    const app = express();
    app.use("/v2", auth);
    app.use("/v2", auth.notFound());
    // Mounted at the endpoint path itself, it answers for the endpoint whatever comes before it.
    app.use("/v3/services/json", auth.notFound());
    const agent = request(app);
    expect(statusText(await agent.get("/v2/services/json/teams"))).toBe("Not found : Could not find resource teams.");
    expect(statusText(await agent.get("/v2/teams"))).toBe("Not Found");
    expect(statusText(await agent.get("/v3/services/json/teams"))).toBe("Not found : Could not find resource teams.");
  });

  it("refuses options it does not know at start-up", () => {
    expect(() => bareAuth().notFound({ resource: ["players"] } as never)).toThrow(TypeError);
  });
});

describe("SessionAuthRouter.errorHandler", () => {
  it("answers a path that cannot be decoded with a body-less 400, never Express's HTML page", async () => {
    const { agent } = createTestApp();
    const res = await agent.get("/services/json/players/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(statusText(res)).toBe(": Malformed request.");
    expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
    expect(res.text).toBe("");
  });

  function appThatThrows(error: unknown, events: AuthEvent[] = []) {
    const app = express();
    app.post("/json", express.json({ limit: 10 }), () => undefined);
    app.get("/boom", () => {
      throw error;
    });
    app.use(bareAuth((event) => events.push(event)).errorHandler());
    return request(app);
  }

  it("answers a body parser's invalid JSON and oversized body as the router does", async () => {
    const agent = appThatThrows(new Error("unused"));
    const bad = await agent.post("/json").set("Content-Type", "application/json").send("{x");
    expect([bad.status, statusText(bad), bad.text]).toEqual([400, ": Invalid JSON.", '["Invalid JSON."]']);
    const big = await agent.post("/json").set("Content-Type", "application/json").send('{"a":"0123456789"}');
    expect([big.status, statusText(big), big.text]).toEqual([413, ": Request body too large.", '["Request body too large."]']);
  });

  it("answers anything else with a body-less 500 and reports it, with no stack trace", async () => {
    const events: AuthEvent[] = [];
    const error = new Error("database password is hunter2");
    const res = await appThatThrows(error, events).get("/boom");
    expect(res.status).toBe(500);
    expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
    expect(res.text).toBe("");
    expect(statusText(res)).not.toContain("hunter2");
    expect(events).toEqual([{ type: "internal.error", err: error, timestamp: expect.any(Number) }]);
  });

  it("keeps another middleware's client error status, with no body", async () => {
    const events: AuthEvent[] = [];
    const unauthorized = Object.assign(new Error("jwt expired: secret details"), { status: 401 });
    const res = await appThatThrows(unauthorized, events).get("/boom");
    expect([res.status, statusText(res), res.text, res.headers["content-type"]]).toEqual([401, "Unauthorized", "", "text/html; charset=UTF-8"]);
    expect(events).toEqual([]);
    const odd = await appThatThrows(Object.assign(new Error("x"), { statusCode: 600 })).get("/boom");
    expect(odd.status).toBe(500);
  });

  it("does not report a client's mistake as an internal error", async () => {
    const events: AuthEvent[] = [];
    await appThatThrows(new URIError("bad"), events).get("/boom");
    expect(events).toEqual([]);
  });

  it("survives a listener that throws", async () => {
    const app = express();
    app.get("/boom", () => {
      throw new Error("x");
    });
    const auth = bareAuth(() => {
      throw new Error("listener");
    });
    app.use(auth.errorHandler());
    expect((await request(app).get("/boom")).status).toBe(500);
  });

  it("logs what it answers with a 500 to stderr as Express does, unless told otherwise, and never a client's 4xx", async () => {
    await withStderr(async (written) => {
      const boom = new Error("the database is down");
      await appThatThrows(boom).get("/boom");
      expect(written).toEqual([`${boom.stack}\n`]);
      written.length = 0;
      await appThatThrows(Object.assign(new Error("nope"), { status: 404 })).get("/boom");
      await appThatThrows(new Error("x")).post("/json").set("Content-Type", "application/json").send("{x");
      expect(written).toEqual([]);
    });
    // Under test, as Express, it keeps quiet; a log function of the app's own takes the error and the request.
    const seen: unknown[] = [];
    const app = express();
    app.get("/boom", () => {
      throw new Error("custom");
    });
    app.use(bareAuth().errorHandler({ log: (err, req) => seen.push([(err as Error).message, req.path]) }));
    expect((await request(app).get("/boom")).status).toBe(500);
    expect(seen).toEqual([["custom", "/boom"]]);
    expect(() => bareAuth().errorHandler({ log: "console" } as never)).toThrow(TypeError);
  });

  it("without onEvent, writes each fault once to stderr, a store outage too; an error after the reply started ends the connection", async () => {
    await withStderr(async (written) => {
      const boom = new Error("the database is down");
      const app = express();
      app.get("/boom", () => {
        throw boom;
      });
      app.get("/late", (_req, res, next) => {
        res.write("partial");
        next(new Error("failed half-way"));
      });
      app.use(bareAuth().errorHandler());
      expect((await request(app).get("/boom").set("X-Request-Id", "req-1")).status).toBe(500);
      expect(written).toHaveLength(1);
      expect(written[0]).toMatch(/^services-session-auth \S+ internal\.error requestId=req-1\nError: the database is down\n/);
      written.length = 0;
      await expect(request(app).get("/late")).rejects.toThrow();
      expect(written).toHaveLength(1);
      expect(written[0]).toContain("Error: failed half-way");

      // A session store that fails: the 503 goes to the client and the fault to stderr.
      written.length = 0;
      const failing = { ...memorySessionStore(), get: () => Promise.reject(new Error("ECONNREFUSED")) };
      const auth = createSessionAuthRouter({ userStore: memoryUserStore([]), sessionStore: failing, secret: SECRET, sessionName: "SESStest" });
      const guarded = express().get("/p", auth.requireSession(), (_req, res) => res.json([]));
      expect((await request(guarded).get("/p").set("Cookie", "SESStest=abc")).status).toBe(503);
      expect(written.join("")).toMatch(/store\.failure operation=sessionStore\.get\nError: ECONNREFUSED/);
    });
  });

  it("takes the request id from req.id, else from an X-Request-Id that looks like one", async () => {
    const events: AuthEvent[] = [];
    const app = express();
    app.get("/own", (req, _res, next) => {
      (req as unknown as { id: number }).id = 7;
      next(new Error("x"));
    });
    app.get("/boom", () => {
      throw new Error("y");
    });
    app.use(bareAuth((event) => events.push(event)).errorHandler({ log: false }));
    await request(app).get("/own").set("X-Request-Id", "from-client");
    for (const id of ["abc-123_x.y:z", "forged\tid", "x\u0085y", "a".repeat(129), "with space"]) await request(app).get("/boom").set("X-Request-Id", id);
    expect(events.map((event) => event.requestId)).toEqual(["7", "abc-123_x.y:z", undefined, undefined, undefined, undefined]);
  });

  it("reports an error after the reply started to onEvent and to its log, not to Express's handler", async () => {
    const events: AuthEvent[] = [];
    const logged: string[] = [];
    const app = express();
    app.get("/late", (_req, res, next) => {
      res.write("partial");
      next(new Error("failed half-way"));
    });
    app.use(bareAuth((event) => events.push(event)).errorHandler({ log: (err) => logged.push((err as Error).message) }));
    await expect(request(app).get("/late")).rejects.toThrow();
    expect(logged).toEqual(["failed half-way"]);
    expect(events).toMatchObject([{ type: "internal.error", err: { message: "failed half-way" } }]);
  });

  it("answers a guard's denial passed on with onDenied: next as the guard would", async () => {
    const { agent } = createTestApp({}, undefined, (app, auth) => {
      app.get("/services/json/next", auth.requireSession({ onDenied: "next" }), (_req, res) => res.json({}));
    });
    const res = await agent.get("/services/json/next");
    expect([res.status, statusText(res), res.text]).toEqual([401, "Unauthorized : Access denied for user anonymous", '["Access denied for user anonymous"]']);
  });

  it("leaves a reply that has already started to Express", async () => {
    const app = express();
    app.get("/half", (_req, res, next) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("partial");
      next(new Error("late"));
    });
    app.use(bareAuth().errorHandler());
    const res = await request(app)
      .get("/half")
      .catch((error: unknown) => error);
    // Express destroys the socket: the client sees an aborted or partial reply, never a second one.
    if (!(res instanceof Error)) expect((res as { text: string }).text).toBe("partial");
  });
});
