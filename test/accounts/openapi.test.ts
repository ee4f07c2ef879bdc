/**
 * The account calls in the OpenAPI document: a valid document with every call served and only
 * those, and each status a probe gets from the router one the document lists for its operation.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "services-session-auth";
import { createTestApp, login } from "../helpers/app.js";

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; tags: Array<{ name: string }> };

const mailer = { send: async () => undefined };

describe("the account calls in the OpenAPI document", () => {
  it("describes the calls served, and no other, in a valid document", async () => {
    const none = openApiDocument({}) as unknown as Doc;
    expect(Object.keys(none.paths).some((path) => path.includes("/user/register") || path.endsWith("/user.json"))).toBe(false);
    const some = openApiDocument({ auth: { accounts: { calls: ["register", "retrieve"], mailer } } }) as unknown as Doc;
    expect(Object.keys(some.paths["/services/json/user/{uid}.json"]!)).toEqual(["get"]);
    expect(some.paths["/services/json/user/register.json"]).toHaveProperty("post");
    expect(some.paths["/services/json/user.json"]).toBeUndefined();
    const all = openApiDocument({ auth: { accounts: { calls: "all", mailer } } });
    const result = await new Validator().validate(all as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys((all as unknown as Doc).paths)).toEqual(
      expect.arrayContaining([
        "/services/json/user.json",
        "/services/json/user/{uid}.json",
        "/services/json/user/register.json",
        "/services/json/user/request_new_password.json",
        "/services/json/user/user_pass_reset.json",
        "/services/json/user/{uid}/cancel.json",
        "/services/json/user/{uid}/password_reset.json",
        "/services/json/user/{uid}/resend_welcome_email.json",
      ]),
    );
  });

  it("lists every status the router answers for each call", async () => {
    const { app } = createTestApp({ accounts: { calls: "all", mailer, settings: { register: "visitors", emailVerification: false } } });
    const doc = openApiDocument({ auth: { accounts: { calls: "all", mailer } } }) as unknown as Doc;
    const admin = await login(app, "admin", "admin-password");
    const demo = await login(app, "demo", "demo-password");
    const as = (session: { cookie: string; token: string }, test: request.Test) => test.set("Cookie", session.cookie).set("X-CSRF-Token", session.token);
    const probes: Array<[string, string, () => request.Test]> = [
      [
        "/services/json/user/register.json",
        "post",
        () => request(app).post("/services/json/user/register.json").send({ name: "newone", mail: "n@example.com", pass: "p" }),
      ],
      ["/services/json/user/register.json", "post", () => request(app).post("/services/json/user/register.json").send({})],
      ["/services/json/user/register.json", "post", () => as(demo, request(app).post("/services/json/user/register.json").send({}))],
      ["/services/json/user/register.json", "post", () => request(app).post("/services/json/user/register.json").type("json").send("{")],
      [
        "/services/json/user.json",
        "post",
        () => as(admin, request(app).post("/services/json/user.json").send({ name: "another", mail: "a@example.com", pass: "p" })),
      ],
      ["/services/json/user.json", "get", () => as(admin, request(app).get("/services/json/user.json"))],
      ["/services/json/user.json", "get", () => request(app).get("/services/json/user.json")],
      ["/services/json/user.json", "get", () => as(admin, request(app).get("/services/json/user.json?fields=nope"))],
      ["/services/json/user/{uid}.json", "get", () => request(app).get("/services/json/user/99.json")],
      ["/services/json/user/{uid}.json", "get", () => as(demo, request(app).get("/services/json/user/14.json"))],
      ["/services/json/user/{uid}.json", "get", () => request(app).get("/services/json/user/14.json")],
      ["/services/json/user/{uid}.json", "put", () => as(demo, request(app).put("/services/json/user/14.json").send({ timezone: "UTC" }))],
      ["/services/json/user/{uid}.json", "put", () => as(demo, request(app).put("/services/json/user/14.json").send({ name: "x" }))],
      ["/services/json/user/{uid}.json", "put", () => request(app).put("/services/json/user/14.json").set("Cookie", demo.cookie).send({})],
      ["/services/json/user/{uid}.json", "put", () => as(demo, request(app).put("/services/json/user/1.json").send({}))],
      ["/services/json/user/{uid}.json", "delete", () => as(admin, request(app).delete("/services/json/user/1.json"))],
      ["/services/json/user/{uid}.json", "delete", () => as(admin, request(app).delete("/services/json/user/99.json"))],
      [
        "/services/json/user/request_new_password.json",
        "post",
        () => request(app).post("/services/json/user/request_new_password.json").send({ name: "demo" }),
      ],
      ["/services/json/user/request_new_password.json", "post", () => request(app).post("/services/json/user/request_new_password.json").send({})],
      [
        "/services/json/user/user_pass_reset.json",
        "post",
        () => request(app).post("/services/json/user/user_pass_reset.json").send({ uid: 14, timestamp: 1, hashed_pass: "x" }),
      ],
      [
        "/services/json/user/user_pass_reset.json",
        "post",
        () => request(app).post("/services/json/user/user_pass_reset.json").send({ uid: 99, timestamp: 1, hashed_pass: "x" }),
      ],
      [
        "/services/json/user/user_pass_reset.json",
        "post",
        () => as(demo, request(app).post("/services/json/user/user_pass_reset.json").send({ uid: 1, timestamp: 1, hashed_pass: "x" })),
      ],
      ["/services/json/user/{uid}/cancel.json", "post", () => as(admin, request(app).post("/services/json/user/1/cancel.json").send(""))],
      ["/services/json/user/{uid}/password_reset.json", "post", () => request(app).post("/services/json/user/14/password_reset.json").send("")],
      ["/services/json/user/{uid}/resend_welcome_email.json", "post", () => request(app).post("/services/json/user/14/resend_welcome_email.json").send("")],
      ["/services/json/user/{uid}/resend_welcome_email.json", "post", () => request(app).post("/services/json/user/99/resend_welcome_email.json").send("")],
    ];
    const seen = new Set<string>();
    for (const [path, method, probe] of probes) {
      const { status } = await probe();
      seen.add(`${path} ${method} ${status}`);
      expect(Object.keys(doc.paths[path]![method]!.responses), `${method} ${path} answered ${status}`).toContain(String(status));
    }
    expect(seen.size).toBeGreaterThan(20);
  });
});
