import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Server } from "node:http";
import { request as httpRequest } from "node:http";
import { createTestApp, login } from "../helpers/app.js";

/** Sends one raw request, so that any bytes, methods and header values can be thrown at the server. */
function send(port: number, method: string, path: string, headers: Record<string, string | string[]>, body: Buffer) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const payload = method === "GET" || method === "HEAD" ? Buffer.alloc(0) : body;
    const req = httpRequest({ port, host: "127.0.0.1", method, path, headers: { ...headers, "Content-Length": String(payload.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

const PATHS = [
  "/services/json/user/login",
  "/services/json/user/login.json",
  "/services/json/system/connect",
  "/services/json/user/logout.json",
  "/services/json/user/token",
  "/services/session/token",
  "/?q=services/json/user/login.json",
  "/services/json/players",
  "/services/json/players/7",
  "/services/json/players/%E0%A4%A",
  "/services/json/user/register.json",
  "/services/json/nothing",
  "/?q=services/json/nothing",
  "/services/json/%FF%00.json",
];
const LOGIN_PATHS = new Set(["/services/json/user/login", "/services/json/user/login.json", "/?q=services/json/user/login.json"]);
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "POST", "POST"];
const TYPES = [
  undefined,
  "application/json",
  "application/x-www-form-urlencoded",
  "text/plain",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "APPLICATION/JSON",
  ";",
  "application/xml",
];

const hostileString = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom("\u0000", "demo\u0000admin", "' OR 1=1 --", "<script>x</script>", "a".repeat(70_000), "%00%ff", "__proto__", "é😀", "\r\nSet-Cookie: x=y"),
);
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    { username: fc.oneof(hostileString, fc.jsonValue({ maxDepth: 2 })), password: fc.oneof(hostileString, fc.jsonValue({ maxDepth: 2 })) },
    { requiredKeys: [] },
  ),
  fc.record({ name: hostileString, pass: hostileString, __proto__: fc.constant({ admin: true }) }, { requiredKeys: [] }),
);
const body = fc.oneof(
  jsonValue.map((value) => Buffer.from(JSON.stringify(value) ?? "")),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.dictionary(hostileString, hostileString, { maxKeys: 4 }).map((fields) => Buffer.from(new URLSearchParams(fields).toString())),
  fc.constantFrom(Buffer.alloc(0), Buffer.from('""'), Buffer.from("null"), Buffer.from("x".repeat(70_000)), Buffer.from([0xc3, 0x28])),
);
// Header values must be what Node's client can put on the wire; the server sees them as sent.
const headerValue = fc.string({ unit: "grapheme-ascii", maxLength: 80 }).map((s) => s.replace(/[\r\n]/g, ""));

// Accept headers as clients send them, as Mimeparse could not read them, and repeated (Node's server joins them with ", ").
const acceptHeader = fc.oneof(
  headerValue,
  fc.constantFrom(
    ";;;/",
    "",
    "0",
    "*",
    "application",
    "text/0",
    ",",
    "application/json;q=0",
    "*/*;q=",
    "application/json, text/plain, */*",
    "a".repeat(16_000),
    ",".repeat(8_000),
  ),
  fc.array(fc.oneof(headerValue, fc.constantFrom("", "application/xml", "application/json", ";;;/")), { minLength: 2, maxLength: 3 }),
);

// Node's client connects over IPv4 loopback; Express's req.ip is then the plain address.
const IP_KEY = "ip:127.0.0.1";

describe("hostile input (property-based, fixed seed)", () => {
  let server: Server;
  let port: number;
  const test = createTestApp({ bodyLimit: 65_536 });
  let cookie = "";
  let sessionName = "";
  let token = "";

  beforeAll(async () => {
    const session = await login(test.app);
    cookie = session.cookie;
    sessionName = session.session_name;
    token = session.token;
    server = test.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("never answers 5xx or outside the wire format, and changes no state unless it was a login attempt", async () => {
    const cookieHeader = fc.oneof(
      fc.constant(undefined),
      headerValue,
      fc.constant(cookie),
      headerValue.map((v) => `${sessionName}=${v}`),
      headerValue.map((v) => `${sessionName}=${v}; ${sessionName}=${v}x`),
      fc.constant(`${sessionName}=; ${sessionName}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        fc.constantFrom(...PATHS),
        fc.constantFrom(...TYPES),
        body,
        cookieHeader,
        fc.option(headerValue),
        fc.option(acceptHeader),
        async (method, path, type, payload, cookies, csrf, accept) => {
          const headers: Record<string, string | string[]> = {};
          if (accept !== null) headers.Accept = accept;
          if (type !== undefined) headers["Content-Type"] = type;
          if (cookies !== undefined) headers.Cookie = cookies;
          if (csrf !== null) headers["X-CSRF-Token"] = csrf;
          const sessionsBefore = test.sessionStore.size;
          const ipFailuresBefore = await test.counterStore.get(IP_KEY);
          const res = await send(port, method, path, headers, payload);

          const what = `${method} ${path} Accept ${JSON.stringify(accept)} → ${res.status} ${JSON.stringify(res.headers)} ${res.body.slice(0, 200)}`;
          expect(res.status, what).toBeLessThan(500);
          const type2 = res.headers["content-type"];
          // The test app's own /players routes answer 200 with Express's res.json; every other reply is the package's.
          const ownRoute = path.startsWith("/services/json/players") && res.status === 200;
          // A reply without a body has PHP's default type, as Drupal's did (a HEAD's body is dropped on the way).
          const allowed =
            method === "HEAD" ? ["application/json", "text/html; charset=UTF-8"] : [res.body === "" ? "text/html; charset=UTF-8" : "application/json"];
          if (path === "/services/session/token") expect(type2, what).toBe("text/plain;charset=UTF-8");
          else if (!ownRoute) expect(allowed, what).toContain(type2);
          if (res.body !== "" && type2 === "application/json") expect(() => JSON.parse(res.body)).not.toThrow();
          // Every error carries its message in a one-element array, or no body at all.
          if (res.status >= 400 && res.body !== "") expect(JSON.parse(res.body), what).toEqual([expect.any(String)]);
          expect(res.body).not.toMatch(/\bat .+\.(ts|js):\d+|Error:|ECONN|node_modules|<html|<!DOCTYPE/i);

          // The fuzzer never holds the session's CSRF token, so nothing it sends may end or add a
          // session, and only a login attempt may count a failure.
          expect(test.sessionStore.size, what).toBe(sessionsBefore);
          if (!(LOGIN_PATHS.has(path) && method === "POST")) expect(await test.counterStore.get(IP_KEY), what).toBe(ipFailuresBefore);
        },
      ),
      { seed: 20261121, numRuns: 400, endOnFailure: true },
    );
    // The session the fuzzer attacked is still the same user's, untouched.
    const after = await send(port, "POST", "/services/json/system/connect", { Cookie: cookie, "X-CSRF-Token": token }, Buffer.alloc(0));
    expect(after.status).toBe(200);
    expect((JSON.parse(after.body) as { user: { uid: unknown; name: unknown } }).user).toMatchObject({ uid: "14", name: "demo" });
    // And the counter watched above is the one a failed login really moves.
    const failuresBefore = await test.counterStore.get(IP_KEY);
    await send(port, "POST", "/services/json/user/login", { "Content-Type": "application/json" }, Buffer.from('{"username":"demo","password":"wrong"}'));
    expect(await test.counterStore.get(IP_KEY)).toBe(failuresBefore + 1);
  }, 120_000);

  it("answers headers of 16,000 hostile characters without echoing them whole", async () => {
    for (const char of ["<", ">", ";", "/", '"', "a"]) {
      const type = `text/${char.repeat(16_000)}`;
      const res = await send(port, "POST", "/services/json/user/login", { "Content-Type": type }, Buffer.from("x"));
      expect(res.status, char).toBe(406);
      // The MIME type is cut to 128 characters in the body (and the status line, after tags are stripped).
      expect(res.body, char).toBe(JSON.stringify([`Unsupported request content type ${type.split(";", 1)[0]!.slice(0, 128)}`]));
      const cookies = await send(
        port,
        "POST",
        "/services/json/system/connect",
        { Cookie: `${char.repeat(16_000)}=1; ${cookie}`, "X-CSRF-Token": token },
        Buffer.alloc(0),
      );
      expect((JSON.parse(cookies.body) as { user: { uid: unknown } }).user.uid, char).toBe("14");
    }
  });

  it("never adopts a session id the server did not issue", async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[\w-]{43}$/), async (forged) => {
        const res = await send(port, "POST", "/services/json/system/connect", { Cookie: `${sessionName}=${forged}`, "X-CSRF-Token": token }, Buffer.alloc(0));
        expect((JSON.parse(res.body) as { user: { uid: unknown } }).user.uid).toBe(0);
        const login2 = await send(
          port,
          "POST",
          "/services/json/user/login",
          { Cookie: `${sessionName}=${forged}`, "Content-Type": "application/json" },
          Buffer.from('{"username":"admin","password":"admin-password"}'),
        );
        if (login2.status === 200) expect((JSON.parse(login2.body) as { sessid: string }).sessid).not.toBe(forged);
      }),
      { seed: 7, numRuns: 30 },
    );
  });

  it("moves no failure counter for requests that are not login attempts", async () => {
    const fresh = createTestApp();
    const ip = "127.0.0.1";
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/services/json/system/connect", "/services/json/user/logout", "/services/json/user/token"),
        body,
        async (path, payload) => {
          await fresh.agent
            .post(path)
            .set("Content-Type", "application/json")
            .serialize((raw: unknown) => raw as string)
            .send(payload);
        },
      ),
      { seed: 3, numRuns: 40 },
    );
    expect(await fresh.counterStore.get(`ip:${ip}`)).toBe(0);
    // The key watched is the one a failed login moves (IPv4-mapped addresses count as IPv4).
    await fresh.agent.post("/services/json/user/login").send({ username: "demo", password: "wrong" });
    expect(await fresh.counterStore.get(`ip:${ip}`)).toBe(1);
  });
});
