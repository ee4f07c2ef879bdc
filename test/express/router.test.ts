import { describe, expect, it } from "vitest";
import { createTestApp, login, statusText } from "../helpers/app.js";
import { listen, postJson } from "../helpers/clients.js";
import request from "supertest";
import { rawRequest } from "../endpoint/conformance/raw-http.js";

describe("SessionAuthRouter request handling", () => {
  it("serves every spelling of its own paths Express routes to it, and leaves every other path to the app", async () => {
    const { agent } = createTestApp({ queryPaths: ["/", "/index.php"] });
    const login = { username: "demo", password: "demo-password" };
    // Express's routing ignores case, and so does the router's quick check in front of it.
    expect((await agent.post("/SERVICES/JSON/user/login").send(login)).status).toBe(200);
    expect((await agent.post("/services/json/user/login/").send(login)).status).toBe(200);
    expect((await agent.post("/index.php?q=services/json/user/login").send(login)).status).toBe(200);
    expect((await agent.post("/services%2Fjson/user/login").send(login)).status).not.toBe(200);
    expect((await agent.get("/SERVICES/SESSION/TOKEN")).status).toBe(200);
    expect((await agent.get("/services/json")).text).toContain("has been setup successfully");
    // A path that only starts like the endpoint's is the app's (its 404 here).
    expect((await agent.post("/services/jsonx/user/login").send(login)).status).toBe(404);
    expect((await agent.get("/services/json/players")).status).toBe(401);
  });

  it("treats a request with no Content-Type as form-urlencoded, empty bodies included", async () => {
    const { app, agent } = createTestApp();
    const raw = await agent.post("/services/json/user/login").unset("Content-Type").send(Buffer.from("username=demo&password=demo-password"));
    expect(raw.status).toBe(200);
    const session = await login(app);
    const empty = await agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("X-CSRF-Token", session.token);
    expect(empty.status).toBe(200);
  });

  it("accepts a zero-length chunked body", async () => {
    const { app } = createTestApp();
    const server = app.listen(0);
    try {
      const port = (server.address() as { port: number }).port;
      const { request: raw } = await import("node:http");
      const status = await new Promise<number>((resolve, reject) => {
        const req = raw(
          { port, method: "POST", path: "/services/json/system/connect", headers: { "Transfer-Encoding": "chunked", "Content-Type": "application/json" } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(200);
    } finally {
      server.close();
    }
  });

  it("answers 400 Invalid JSON. for malformed JSON, the literal null and invalid UTF-8", async () => {
    const { agent } = createTestApp();
    for (const body of [Buffer.from("{nope"), Buffer.from("null"), Buffer.from([0x22, 0xff, 0x22])]) {
      const res = await agent
        .post("/services/json/user/login")
        .set("Content-Type", "application/json")
        .serialize((raw: unknown) => raw as string)
        .send(body);
      expect(res.status).toBe(400);
      expect(statusText(res)).toBe(": Invalid JSON.");
      expect(res.text).toBe('["Invalid JSON."]');
      expect(res.headers["content-type"]).toBe("application/json");
    }
  });

  it('accepts any top-level JSON value, such as the "" some clients post', async () => {
    const { agent } = createTestApp();
    for (const body of ['""', "[]", "0", "true", '"x"']) {
      const res = await agent.post("/services/json/system/connect").set("Content-Type", "application/json").send(body);
      expect(res.status, body).toBe(200);
    }
  });

  it("answers 406 Unsupported request content type for other types", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/login").set("Content-Type", "text/csv; charset=utf-8").send("a,b");
    expect(res.status).toBe(406);
    expect(statusText(res)).toBe("Not Acceptable : Unsupported request content type text/csv");
    expect(res.text).toBe('["Unsupported request content type text/csv"]');
  });

  it("answers 413 in the wire format for a body over the limit", async () => {
    const { agent } = createTestApp({ bodyLimit: 1024 });
    const res = await agent.post("/services/json/user/login").send({ username: "demo", password: "x".repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.text).toBe('["Request body too large."]');
    expect(res.headers["content-type"]).toBe("application/json");
  });

  it("negotiates Accept as Services' Mimeparse does: JSON when a range admits it, 406 with no body when none does", async () => {
    const { agent } = createTestApp();
    for (const accept of [
      "application/json",
      "*/*",
      "*",
      "application/*",
      "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      "text/html, application/json;q=0.1",
      "application/json;q=0",
      "",
    ]) {
      const res = await agent.post("/services/json/system/connect").set("Accept", accept).send();
      expect(res.status, accept).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json");
      expect(res.headers.vary).toBe("Accept");
    }
    // Mimeparse compares type and subtype exactly, case included.
    for (const accept of ["text/html", "application/xml", "Application/JSON", "text/*"]) {
      const res = await agent.post("/services/json/user/login").set("Accept", accept).send({ username: "demo", password: "demo-password" });
      expect(res.status, accept).toBe(406);
      expect(statusText(res)).toBe("Not Acceptable : Unknown or unsupported response format.");
      expect(res.text).toBe("");
      expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
      expect(res.headers.vary).toBe("Accept");
      // Refused before the login ran: no session, no cookie.
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("answers an Accept that Services' Mimeparse could not read with the 406 of an unknown format, never a 500", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    for (const path of ["/services/json/system/connect", "/services/json/user/logout"]) {
      for (const accept of ["application", ";;;/", "text/0", ";q=1", "/json", "*/0, text/html"]) {
        const res = await agent.post(path).set("Accept", accept).set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
        expect(res.status, `${path} ${accept}`).toBe(406);
        expect(statusText(res)).toBe("Not Acceptable : Unknown or unsupported response format.");
        expect(res.text).toBe("");
        expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
        expect(res.headers["set-cookie"]).toBeUndefined();
      }
    }
    // Refused before the logout ran: the session is still there.
    const still = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).set("X-CSRF-Token", session.token).send();
    expect((still.body as { user: { uid: unknown } }).user.uid).toBe("14");
  });

  it("skips the empty and unreadable ranges of an Accept list, and reads one of only empty ones as no Accept", async () => {
    const { agent } = createTestApp();
    for (const accept of ["application/json, ", ", application/json", "application, application/json", ",", " , ,", ";;;/, */*"]) {
      const res = await agent.post("/services/json/system/connect").set("Accept", accept).send();
      expect(res.status, accept).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json");
    }
    const suffixed = await agent.post("/services/json/system/connect.json").set("Accept", "text/html").send();
    expect(suffixed.status).toBe(200);
    expect(suffixed.headers.vary).toBeUndefined();
  });

  it("reads a repeated Accept header as the one list it is", async () => {
    const { app } = createTestApp();
    const { port, close } = await listen(app);
    try {
      const cases: Array<[readonly string[], number]> = [
        [["", "application/xml"], 406],
        [["application/xml", ""], 406],
        [["", "application/json"], 200],
        [["", ""], 200],
        [[";;;/", "text/html"], 406],
      ];
      for (const [accepts, status] of cases) {
        const headers: Array<[string, string]> = [
          ["Host", "localhost"],
          ["Content-Length", "0"],
          ["Connection", "close"],
          ...accepts.map((value): [string, string] => ["Accept", value]),
        ];
        const reply = await rawRequest(port, "POST", "/services/json/system/connect", headers, Buffer.alloc(0));
        expect(reply.status, JSON.stringify(accepts)).toBe(status);
      }
    } finally {
      await close();
    }
  });

  it("answers an unknown format suffix with 406 and an empty body", async () => {
    const { agent } = createTestApp();
    for (const path of ["/services/json/user/login.xml", "/services/json/user/login.JSON"]) {
      const res = await agent.post(path).send({ username: "demo", password: "demo-password" });
      expect(res.status).toBe(406);
      expect(statusText(res)).toBe("Not Acceptable : Unknown or unsupported response format.");
      expect(res.text).toBe("");
    }
  });

  it("answers other methods on the actions like Services: 404 controller, HEAD and OPTIONS 200, all without a body", async () => {
    const { agent } = createTestApp();
    for (const method of ["get", "put", "delete", "patch"] as const) {
      const res = await agent[method]("/services/json/user/login");
      expect(res.status, method).toBe(404);
      expect(statusText(res)).toBe("Not found : Could not find the controller.");
      expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
    }
    const head = await agent.head("/services/json/system/connect");
    expect([head.status, statusText(head), head.headers["content-type"]]).toEqual([200, ": OK", "text/html; charset=UTF-8"]);
    const options = await agent.options("/services/json/user/logout");
    expect([options.status, statusText(options), options.text]).toEqual([200, "OK", ""]);
  });

  it("answers HEAD and OPTIONS on any path of a resource it knows, as Services does before it looks for a controller", async () => {
    const { agent } = createTestApp();
    for (const path of ["/services/json/user/1", "/services/json/user/nosuchaction", "/services/json/system/x", "/services/json/players/7/stats"]) {
      const head = await agent.head(path);
      expect([head.status, statusText(head)], path).toEqual([200, ": OK"]);
      const options = await agent.options(path);
      expect([options.status, statusText(options), options.text], path).toEqual([200, "OK", ""]);
      expect(statusText(await agent.post(path).set("X-HTTP-Method-Override", "HEAD").send()), path).toBe(": OK");
    }
    // An unknown resource is unknown whatever the method.
    const unknown = await agent.head("/services/json/nothing/1");
    expect([unknown.status, statusText(unknown)]).toEqual([404, "Not found : Could not find resource nothing."]);
  });

  it("takes the last of a repeated query parameter, as PHP's $_GET does", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const last = await agent.post(`/services/json/system/connect?services_token=wrong&services_token=${session.token}`).set("Cookie", session.cookie).send();
    expect(last.status).toBe(200);
    const first = await agent.post(`/services/json/system/connect?services_token=${session.token}&services_token=wrong`).set("Cookie", session.cookie).send();
    expect(first.status).toBe(401);
    expect((await agent.post("/services/json/system/connect?_method=GET&_method=POST").send()).status).toBe(200);
  });

  it("splits the format suffix as Services' pattern does, which never takes a ^", async () => {
    // A raw request: Node 24's URL parser (used by supertest) would send the ^ as %5E.
    const server = await listen(createTestApp().app);
    try {
      const res = await postJson(server.port, "/services/json/user/login.js^n", { username: "demo", password: "demo-password" });
      expect([res.status, res.reason]).toEqual([404, "Not found : Could not find the controller."]);
    } finally {
      await server.close();
    }
  });

  it("routes a POST by X-HTTP-Method-Override, then ?_method=, and no other method", async () => {
    const { agent } = createTestApp();
    const overridden = await agent.post("/services/json/system/connect").set("X-HTTP-Method-Override", "GET").send();
    expect([overridden.status, statusText(overridden)]).toEqual([404, "Not found : Could not find the controller."]);
    const byQuery = await agent.post("/services/json/user/login?_method=GET").send({ username: "demo", password: "demo-password" });
    expect(byQuery.status).toBe(404);
    expect(byQuery.headers["set-cookie"]).toBeUndefined();
    expect((await agent.post("/services/json/system/connect").set("X-HTTP-Method-Override", "HEAD").send()).status).toBe(200);
    // Only a POST can be overridden, and an override to POST changes nothing.
    expect((await agent.get("/services/json/system/connect").set("X-HTTP-Method-Override", "POST")).status).toBe(404);
    expect((await agent.post("/services/json/system/connect?_method=").set("X-HTTP-Method-Override", "POST").send()).status).toBe(200);
  });

  it("answers the endpoint root as Services does, with the configured endpoint name", async () => {
    const { agent } = createTestApp({ endpointName: "sports<api>" });
    for (const path of ["/services/json", "/services/json/", "/?q=services/json"]) {
      const res = await agent.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=UTF-8");
      expect(res.text).toBe('Services Endpoint "sports&lt;api&gt;" has been setup successfully.');
    }
    expect((await createTestApp().agent.get("/services/json")).text).toBe('Services Endpoint "services" has been setup successfully.');
  });

  it("lets other paths under the endpoint through to the app", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const res = await agent.get("/services/json/players").set("Cookie", session.cookie);
    expect(res.status).toBe(200);
  });

  it("routes ?q= URLs on / and /index.php, keeping the rest of the query", async () => {
    const { app, agent } = createTestApp();
    const viaQ = await agent.post("/?q=services/json/user/login.json").type("form").send({ username: "demo", password: "demo-password" });
    expect(viaQ.status).toBe(200);
    const session = await login(app);
    const viaIndex = await agent.post(`/index.php?q=/services/json/system/connect.json/&services_token=${session.token}`).set("Cookie", session.cookie).send();
    expect((viaIndex.body as { user: { uid: string } }).user.uid).toBe("14");
  });

  it("leaves ?q= alone on the app's other paths", async () => {
    const { app } = createTestApp();
    const session = await login(app);
    const res = await request(app).get("/services/json/players?q=services/json/user/login").set("Cookie", session.cookie);
    expect(res.status).toBe(200);
    expect((res.body as { players: string[] }).players).toEqual(["Ana"]);
  });

  it("takes services_token from a form body an earlier parser already read, as requireSession does", async () => {
    const express = (await import("express")).default;
    const { options } = createTestApp();
    const { createSessionAuthRouter } = await import("services-session-auth/express");
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use(createSessionAuthRouter(options));
    const session = await login(app);
    const res = await request(app).post("/services/json/system/connect").set("Cookie", session.cookie).type("form").send({ services_token: session.token });
    expect(res.status).toBe(200);
    expect((res.body as { user: { uid: unknown } }).user.uid).toBe("14");
  });

  it("reads a body an earlier express.json() already parsed", async () => {
    const express = (await import("express")).default;
    const { options } = createTestApp();
    const { createSessionAuthRouter } = await import("services-session-auth/express");
    const app = express();
    app.use(express.json());
    app.use(createSessionAuthRouter(options));
    const res = await request(app).post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(200);
  });
});
