/**
 * The Fastify plugin over HTTP/2 (h2c on loopback), where a request has no Host header but
 * `:authority`: the cookie is named and the site told apart by it, as over HTTP/1.1.
 */
import { connect } from "node:http2";
import { createHash } from "node:crypto";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, expect, it } from "vitest";
import { memorySessionStore, memoryUserStore } from "services-session-auth";
import { createSessionAuthPlugin } from "services-session-auth/fastify";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

function h2(origin: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; setCookie: string[]; body: string }>((resolve, reject) => {
    const client = connect(origin);
    client.on("error", reject);
    const stream = client.request({ ":method": body === undefined ? "GET" : "POST", ":path": path, ...headers });
    let status = 0;
    let setCookie: string[] = [];
    let text = "";
    stream.on("response", (head) => {
      status = Number(head[":status"]);
      setCookie = ([] as string[]).concat(head["set-cookie"] ?? []);
    });
    stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
    stream.on("end", () => {
      client.close();
      resolve({ status, setCookie, body: text });
    });
    stream.end(body);
  });
}

it("names the cookie after :authority and admits a same-origin browser login over HTTP/2", async () => {
  // The plugin's hooks are typed for Fastify's default server, as the example app does with HTTPS.
  const app = Fastify({ http2: true }) as unknown as FastifyInstance;
  const sessionAuth = createSessionAuthPlugin({
    userStore: memoryUserStore(USERS, { hasher: fastHasher }),
    sessionStore: memorySessionStore(),
    secret: SECRET,
    hasher: fastHasher,
  });
  await app.register(sessionAuth);
  app.get("/services/json/players", { preHandler: sessionAuth.requireSession() }, async (request) => ({ uid: request.auth?.user.uid }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  closing.push(() => app.close());
  const { port } = app.server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  const form = { "content-type": "application/x-www-form-urlencoded" };
  // A browser page of the site itself: its Origin is this very host.
  const browser = await h2(
    origin,
    "/services/json/user/login.json",
    { ...form, origin, "sec-fetch-site": "same-origin" },
    "username=demo&password=demo-password",
  );
  expect(browser.status).toBe(200);
  // The name the same host gets over HTTP/1.1 (Drupal derives it from the host), never the one of no host at all.
  const overHttp1 = await app.inject({
    method: "POST",
    url: "/services/json/user/login.json",
    headers: { ...form, host: `127.0.0.1:${port}` },
    payload: "username=demo&password=demo-password",
  });
  const name = String(overHttp1.headers["set-cookie"]).split("=", 1)[0]!;
  expect(name).not.toBe(`SESS${createHash("sha256").update("").digest("hex").slice(0, 32)}`);
  expect(browser.setCookie[0]).toMatch(new RegExp(`^${name}=[\\w-]{43};`));
  const guarded = await h2(origin, "/services/json/players", { cookie: browser.setCookie[0]!.split(";", 1)[0]! });
  expect([guarded.status, guarded.body]).toEqual([200, '{"uid":"14"}']);
});
