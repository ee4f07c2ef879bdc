import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseMultipart } from "../../src/http-input/multipart.js";
import { createTestApp, login, statusText } from "../helpers/app.js";

/** A multipart/form-data body written by hand, so its parts are exactly what a test needs. */
function multipart(parts: ReadonlyArray<{ name: string; value: string; filename?: string }>, boundary = "XyZ") {
  const body = parts
    .map(({ name, value, filename }) => {
      const file = filename === undefined ? "" : `; filename="${filename}"\r\nContent-Type: application/octet-stream`;
      return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n${value}\r\n`;
    })
    .join("");
  return { type: `multipart/form-data; boundary=${boundary}`, body: `${body}--${boundary}--\r\n` };
}

const CREDENTIALS = multipart([
  { name: "username", value: "demo" },
  { name: "password", value: "demo-password" },
]);

describe("multipart/form-data bodies", () => {
  it("log in as a form body does, as Android and iOS multipart helpers send it", async () => {
    const { agent } = createTestApp();
    const res = await agent.post("/services/json/user/login").set("Content-Type", CREDENTIALS.type).send(CREDENTIALS.body);
    expect(res.status).toBe(200);
    expect((res.body as { user: { name: string } }).user.name).toBe("demo");
    // supertest's own multipart writer, too.
    expect((await agent.post("/services/json/user/login.json").field("username", "demo").field("password", "demo-password")).status).toBe(200);
  });

  it("carry services_token for the CSRF check of connect, logout and user/token, as Services reads $_REQUEST", async () => {
    const { app, agent } = createTestApp();
    const session = await login(app);
    const token = multipart([{ name: "services_token", value: session.token }]);
    const connect = await agent.post("/services/json/system/connect").set("Cookie", session.cookie).set("Content-Type", token.type).send(token.body);
    expect((connect.body as { user: { uid: string } }).user.uid).toBe("14");
    const wrong = multipart([{ name: "services_token", value: "x".repeat(43) }]);
    expect((await agent.post("/services/json/system/connect").set("Cookie", session.cookie).set("Content-Type", wrong.type).send(wrong.body)).status).toBe(401);
    expect((await agent.post("/services/json/user/token").set("Cookie", session.cookie).set("Content-Type", token.type).send(token.body)).text).toBe(
      `{"token":"${session.token}"}`,
    );
    const logout = await agent.post("/services/json/user/logout").set("Cookie", session.cookie).set("Content-Type", token.type).send(token.body);
    expect(logout.text).toBe("[true]");
  });

  it("are refused as Services refuses them when the parser is not enabled", async () => {
    const { agent } = createTestApp({ parsers: ["application/json", "application/x-www-form-urlencoded"] });
    const res = await agent
      .post("/services/json/system/connect")
      .set("Content-Type", "multipart/form-data; boundary=XyZ")
      .send('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--XyZ--\r\n');
    expect([res.status, statusText(res), res.text]).toEqual([
      406,
      "Not Acceptable : Unsupported request content type multipart/form-data",
      '["Unsupported request content type multipart/form-data"]',
    ]);
    // And with no parsers at all, even a body-less POST (taken as a form) is refused, as in Services.
    const none = createTestApp({ parsers: [] });
    expect((await none.agent.post("/services/json/system/connect")).status).toBe(406);
  });

  it("ignore file parts, a body PHP could not parse, and fields past PHP's max_input_vars", async () => {
    const { agent } = createTestApp({ bodyLimit: 200_000 });
    const file = multipart([
      { name: "username", value: "demo", filename: "name.txt" },
      { name: "password", value: "demo-password" },
    ]);
    expect((await agent.post("/services/json/user/login").set("Content-Type", file.type).send(file.body)).text).toBe('["Missing required argument username"]');
    for (const [type, body] of [
      ["multipart/form-data", CREDENTIALS.body],
      [CREDENTIALS.type, CREDENTIALS.body.slice(0, -12)],
      [CREDENTIALS.type, "not multipart at all"],
    ]) {
      const res = await agent.post("/services/json/user/login").set("Content-Type", type!).send(body);
      expect(res.text, `${type} ${body}`).toBe('["Missing required argument username"]');
    }
    const padding = Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}`, value: "x" }));
    const late = multipart([...padding, { name: "username", value: "demo" }, { name: "password", value: "demo-password" }]);
    expect((await agent.post("/services/json/user/login").set("Content-Type", late.type).send(late.body)).text).toBe('["Missing required argument username"]');
  });

  it("read a field named __proto__ as a plain field, never as the body's prototype", async () => {
    const polluted = multipart([
      { name: "__proto__", value: "x" },
      { name: "username", value: "demo" },
    ]);
    const fields = await parseMultipart(Buffer.from(polluted.body), polluted.type);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.hasOwn(fields, "__proto__")).toBe(true);
    expect(fields.username).toBe("demo");
  });

  it("stay under the body limit: a larger upload is refused before it is parsed", async () => {
    const { agent } = createTestApp({ bodyLimit: 1024 });
    const big = multipart([
      { name: "username", value: "demo" },
      { name: "password", value: "demo-password" },
      { name: "photo", value: "x".repeat(5000), filename: "me.jpg" },
    ]);
    expect((await agent.post("/services/json/user/login").set("Content-Type", big.type).send(big.body)).status).toBe(413);
  });

  it("settle on any bytes, truncated parts included, and never leave an error unhandled", async () => {
    const part = fc.record({ name: fc.string({ maxLength: 10 }), value: fc.string({ maxLength: 20 }), file: fc.boolean(), junk: fc.string({ maxLength: 10 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { maxLength: 5 }),
        fc.constantFrom("x", "XyZ", ""),
        fc.boolean(),
        fc.uint8Array({ maxLength: 50 }),
        fc.nat(200),
        async (parts, boundary, close, noise, cut) => {
          const text = parts
            .map((p) => `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.file ? '; filename="f"' : ""}${p.junk}\r\n\r\n${p.value}\r\n`)
            .join("");
          const whole = Buffer.from(`${text}${close ? `--${boundary}--\r\n` : ""}`);
          const raw = Buffer.concat([whole.subarray(0, cut === 0 ? undefined : cut), Buffer.from(noise)]);
          // An unhandled stream error would fail this run (and, in a server, end the process).
          const fields = await parseMultipart(raw, `multipart/form-data; boundary=${boundary}`);
          expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
        },
      ),
      { numRuns: 1000, seed: 20261123 },
    );
  });
});
