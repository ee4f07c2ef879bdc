/**
 * Generated bad input on every account call: whatever JSON, form or query a client sends, the
 * answer is in the wire format (never a 500, never an unexpected error), and a call that does not
 * succeed writes nothing (no partial write: the accounts, their sessions and the mail are as before).
 */
import fc from "fast-check";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { memorySessionStore, memoryUserStore, type AuthEvent, type MailMessage } from "services-session-auth";
import { createTestApp, fastHasher, login, USERS } from "../helpers/app.js";

/** JSON values a client may send in place of what a call expects, near-misses included. */
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.string({ maxLength: 20 }),
    fc.constantFrom("", "0", "demo", "admin", "DEMO@example.com", " lead", "x<y", "a".repeat(300), "\u0000", "é", "[user:name]"),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom(
        "name",
        "mail",
        "pass",
        "pass1",
        "pass2",
        "current_pass",
        "status",
        "roles",
        "notify",
        "timezone",
        "uid",
        "account",
        "data",
        "__proto__",
        "constructor",
      ),
      tie("value"),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

const CALLS: ReadonlyArray<readonly [string, string]> = [
  ["post", "/services/json/user/register.json"],
  ["post", "/services/json/user.json"],
  ["put", "/services/json/user/14.json"],
  ["put", "/services/json/user/1.json"],
  ["post", "/services/json/user/request_new_password.json"],
  ["post", "/services/json/user/user_pass_reset.json"],
  ["post", "/services/json/user/14/cancel.json"],
  ["post", "/services/json/user/14/password_reset.json"],
  ["post", "/services/json/user/14/resend_welcome_email.json"],
  ["delete", "/services/json/user/16.json"],
  ["get", "/services/json/user/14.json"],
  ["get", "/services/json/user.json"],
];

describe("the account calls under generated bad input", () => {
  it("answer in the wire format, and write nothing unless they succeed", async () => {
    const events: AuthEvent[] = [];
    const sent: MailMessage[] = [];
    const userStore = memoryUserStore(USERS, { hasher: fastHasher });
    const sessionStore = memorySessionStore();
    const { app } = createTestApp({
      userStore,
      sessionStore,
      onEvent: (event) => events.push(event),
      accounts: { calls: "all", mailer: { send: async (message) => void sent.push(message) }, settings: { register: "visitors", emailVerification: false } },
    });
    const demo = await login(app, "demo", "demo-password");
    const accounts = async () => JSON.stringify(await userStore.listUsers!({ fields: [], conditions: [], orderBy: [], offset: 0, limit: 100 }));

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CALLS),
        fc.oneof(
          anyJson.map((value) => ({ kind: "json" as const, value })),
          fc.string({ maxLength: 60 }).map((value) => ({ kind: "form" as const, value })),
        ),
        fc.boolean(),
        fc.string({ maxLength: 40 }),
        async ([method, path], body, asDemo, query) => {
          const before = await accounts();
          const mails = sent.length;
          let test = (request(app) as unknown as Record<string, (url: string) => request.Test>)[method]!(`${path}?${encodeURI(query)}`);
          if (asDemo) test = test.set("Cookie", demo.cookie).set("X-CSRF-Token", demo.token);
          const res =
            method === "get" || method === "delete"
              ? await test
              : body.kind === "json"
                ? await test.type("json").send(JSON.stringify(body.value))
                : await test.type("form").send(body.value);
          expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).not.toBe(500);
          expect(res.status).toBeLessThan(500);
          expect(res.headers["content-type"]).toMatch(/^(?:application\/json|text\/html; charset=UTF-8)$/);
          if (res.status !== 200) {
            expect(await accounts()).toBe(before);
            expect(sent.length).toBe(mails);
          }
        },
      ),
      { numRuns: 400, seed: 37 },
    );
    expect(events.filter((event) => event.type === "internal.error")).toEqual([]);
    // demo's own session survived whatever the calls did to other accounts.
    expect((await request(app).post("/services/json/system/connect.json").set("Cookie", demo.cookie).set("X-CSRF-Token", demo.token)).body.user.uid).toBe("14");
  }, 120_000);
});
