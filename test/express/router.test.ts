import { describe, expect, it } from "vitest";
import { createTestApp, login, statusText } from "../helpers/app.js";
import request from "supertest";

describe("createSessionAuthRouter request handling", () => {
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
        const req = raw({ port, method: "POST", path: "/services/json/system/connect", headers: { "Transfer-Encoding": "chunked", "Content-Type": "application/json" } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
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
      const res = await agent.post("/services/json/user/login").set("Content-Type", "application/json").serialize((raw: unknown) => raw as string).send(body);
      expect(res.status).toBe(400);
      expect(statusText(res)).toBe(": Invalid JSON.");
      expect(res.text).toBe('["Invalid JSON."]');
      expect(res.headers["content-type"]).toBe("application/json");
    }
  });

  it("accepts any top-level JSON value, such as the \"\" some clients post", async () => {
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

  it("answers JSON whatever the Accept header says", async () => {
    const { agent } = createTestApp();
    for (const accept of ["text/html", "application/xml", "*/*", "garbage;;;"]) {
      const res = await agent.post("/services/json/system/connect").set("Accept", accept).send();
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json");
      expect(res.headers.vary).toBe("Accept");
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

  it("answers other methods on the actions like Services: 404 controller, HEAD and OPTIONS 200", async () => {
    const { agent } = createTestApp();
    for (const method of ["get", "put", "delete", "patch"] as const) {
      const res = await agent[method]("/services/json/user/login");
      expect(res.status, method).toBe(404);
      expect(statusText(res)).toBe("Not found : Could not find the controller.");
      expect(res.headers["content-type"]).toBe("application/json");
    }
    expect((await agent.head("/services/json/system/connect")).status).toBe(200);
    expect((await agent.options("/services/json/user/logout")).status).toBe(200);
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

  it("reads a body an earlier express.json() already parsed", async () => {
    const express = (await import("express")).default;
    const { options } = createTestApp();
    const { createSessionAuthRouter } = await import("services-session-auth");
    const app = express();
    app.use(express.json());
    app.use("/services/json", createSessionAuthRouter(options));
    const res = await request(app).post("/services/json/user/login").send({ username: "demo", password: "demo-password" });
    expect(res.status).toBe(200);
  });
});
