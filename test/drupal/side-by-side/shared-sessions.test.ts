/**
 * One set of sessions for a real Drupal 7 site and an app on the package, sharing one
 * database behind a proxy that splits paths between them (docs/running-beside-drupal-7.md):
 * on MariaDB and PostgreSQL, with hashed session ids (7.98+) and with
 * `do_not_hash_session_ids`. Nothing of Drupal is mocked: its own pages, Services endpoint,
 * session handler and cron answer.
 */
import { createHash } from "node:crypto";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { Client, nodeAndProxy, showsLoggedIn, type NodeSide, type Proxy } from "../helpers/beside-drupal.js";
import { describeBesideDrupal } from "../helpers/drupal7-site.js";

/** `drupal_hash_base64()`. */
const drupalHash = (id: string) => createHash("sha256").update(id).digest("base64url");

describeBesideDrupal("shared sessions", 0, (site, variant) => {
  let node: NodeSide;
  let proxy: Proxy;
  /** The `sessions.sid` Drupal keeps for a cookie. */
  const sidOf = (sessid: string) => (variant.rawSids ? sessid : drupalHash(sessid));
  const row = async (sessid: string) =>
    (await site().sql<Record<string, unknown>>("SELECT uid, sid, ssid, hostname, timestamp, cache, session FROM sessions WHERE sid = ?", [sidOf(sessid)]))[0];
  const sessionText = (value: unknown) => (Buffer.isBuffer(value) ? value.toString("utf8") : String(value ?? ""));

  const both = nodeAndProxy(site);
  beforeAll(() => void ({ node, proxy } = both));
  beforeEach(async () => {
    proxy.mode = "split";
    await site().sql("DELETE FROM sessions");
    await site().sql("DELETE FROM flood");
  });

  /** Logs `demo` in on Node through the proxy (the Services paths go there). */
  async function loginOnNode(client: Client) {
    const answer = await client.postJson("/services/json/user/login", { username: "demo", password: "demo-password" });
    expect(answer.status).toBe(200);
    return answer.json<{ sessid: string; session_name: string; token: string; user: { uid: string } }>();
  }

  /** Logs `demo` in on Drupal's own Services endpoint (the proxy sends everything to Drupal for it). */
  async function loginOnDrupal(client: Client) {
    proxy.mode = "drupal";
    const answer = await client.postForm("/services/json/user/login", { username: "demo", password: "demo-password" });
    proxy.mode = "split";
    expect(answer.status).toBe(200);
    return answer.json<{ sessid: string; session_name: string; token: string }>();
  }

  it("a login on Drupal is a session on Node: system/connect and a guarded route, with Drupal's cookie and token", async () => {
    const client = new Client(proxy.port);
    const { sessid, token } = await loginOnDrupal(client);
    expect((await row(sessid))?.sid).toBe(sidOf(sessid));
    const connect = await client.postJson("/services/json/system/connect", "", { "X-CSRF-Token": token });
    expect(connect.status).toBe(200);
    expect(connect.json<{ sessid: string; user: { uid: string; name: string } }>()).toMatchObject({ sessid, user: { uid: "2", name: "demo" } });
    expect((await client.get("/services/json/me")).json()).toEqual({ uid: "2", name: "demo" });
    expect((await client.postJson("/services/json/me", {}, { "X-CSRF-Token": token })).status).toBe(200);
    // Drupal's token is this session's token on Node too, and nothing else is.
    expect((await client.postJson("/services/json/me", {}, { "X-CSRF-Token": `${token.slice(0, -1)}x` })).status).toBe(401);
    expect((await client.get("/?q=services/session/token")).text).toBe(token);
    // Node gave the session it found the entry it keeps, and Drupal still serves it.
    expect(sessionText((await row(sessid))?.session)).toMatch(/^services_session_auth\|a:6:\{/);
    expect(showsLoggedIn((await client.get("/user")).text, "demo")).toBe(true);
  });

  it("a login on Node is a session on Drupal: a Drupal page shows the user and Drupal's system/connect takes Node's token", async () => {
    const client = new Client(proxy.port);
    const { sessid, token, session_name } = await loginOnNode(client);
    expect(session_name).toMatch(/^SESS[0-9a-f]{32}$/);
    // The row Drupal's session handler writes over HTTP.
    const written = await row(sessid);
    expect(written).toMatchObject({ sid: sidOf(sessid), ssid: "", hostname: "127.0.0.1" });
    expect(Number(written?.uid)).toBe(2);
    expect(Number(written?.cache)).toBe(0);
    expect(showsLoggedIn((await client.get("/user")).text, "demo")).toBe(true);
    proxy.mode = "drupal";
    const connect = await client.postJson("/services/json/system/connect", "", { "X-CSRF-Token": token });
    expect(connect.status).toBe(200);
    expect(connect.json<{ user: { uid: string } }>().user.uid).toBe("2");
    // Drupal checks the token it was given: a wrong one is refused there as here.
    expect((await client.postJson("/services/json/system/connect", "", { "X-CSRF-Token": "wrong" })).status).toBe(401);
    expect(client.sessionCookie()).toBe(sessid);
  });

  it("keeps Drupal's own $_SESSION data in a session Node started, and Node's entry in it", async () => {
    const client = new Client(proxy.port);
    const { sessid } = await loginOnNode(client);
    const form = (await client.get("/user/2/edit")).text;
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1] ?? "";
    const saved = await client.postForm("/user/2/edit", {
      mail: "demo@example.com",
      current_pass: "",
      "pass[pass1]": "",
      "pass[pass2]": "",
      timezone: /<option value="([^"]+)" selected/.exec(form)?.[1] ?? "UTC",
      form_build_id: field("form_build_id"),
      form_token: field("form_token"),
      form_id: "user_profile_form",
      op: "Save",
    });
    expect(saved.status).toBe(302);
    // Drupal wrote its message for the next page beside the package's entry.
    const data = sessionText((await row(sessid))?.session);
    expect(data).toMatch(/^services_session_auth\|a:6:\{.*\}messages\|a:1:\{s:6:"status";/);
    // It reads it back on the next page, and writes $_SESSION without it, the entry kept.
    expect((await client.get("/user/2/edit")).text).toContain("The changes have been saved.");
    expect(sessionText((await row(sessid))?.session)).toMatch(/^services_session_auth\|a:6:\{[^|]*\}$/);
    expect((await client.get("/services/json/me")).status).toBe(200);
    const stored = await node.sessionStore.get(sessid);
    expect(stored?.record.userAgent).toBe("side-by-side-test/1.0");
  });

  it("a logout on Node ends the session on Drupal", async () => {
    const client = new Client(proxy.port);
    const { token } = await loginOnDrupal(client);
    const cookie = client.jar.header()!;
    expect((await client.postJson("/services/json/user/logout", "", { "X-CSRF-Token": token })).json()).toEqual([true]);
    expect(await site().sql("SELECT sid FROM sessions WHERE uid = 2")).toEqual([]);
    // The cookie the client held before: Drupal no longer knows it.
    const page = (await client.request("GET", "/user", { cookie })).text;
    expect(page).toContain("<title>User account |");
  });

  it("a logout on Drupal ends the session on Node", async () => {
    const client = new Client(proxy.port);
    const { sessid, token } = await loginOnNode(client);
    const cookie = client.jar.header()!;
    // Drupal's own log-out link, followed as a browser would; then the cookie held before is sent to Node.
    const out = await client.get("/user/logout");
    expect(out.status).toBe(302);
    expect(await row(sessid)).toBeUndefined();
    expect((await client.request("GET", "/services/json/me", { cookie })).status).toBe(401);
    const connect = await client.request("POST", "/services/json/system/connect", { cookie, headers: { "X-CSRF-Token": token } });
    expect(connect.json<{ user: { uid: number } }>().user.uid).toBe(0);
  });

  it("'log out everywhere' on Node ends the user's sessions on Drupal, whichever side started them", async () => {
    const onDrupal = new Client(proxy.port);
    const onNode = new Client(proxy.port);
    await loginOnDrupal(onDrupal);
    await loginOnNode(onNode);
    expect(await node.sessionStore.listByUser("2")).toHaveLength(2);
    await expect(node.sessionStore.destroyByUser("2")).resolves.toBe(2);
    expect(showsLoggedIn((await onDrupal.get("/user")).text, "demo")).toBe(false);
    expect(showsLoggedIn((await onNode.get("/user")).text, "demo")).toBe(false);
  });

  it("Drupal's cron garbage collection leaves a session Node is serving alive, and ends one nobody used", async () => {
    const served = new Client(proxy.port);
    const idle = new Client(proxy.port);
    const a = await loginOnNode(served);
    const b = await loginOnNode(idle);
    // Both last written 400 s ago: past the 180 s write interval, inside a 600 s lifetime.
    await site().sql("UPDATE sessions SET timestamp = timestamp - 400");
    await site().sql("UPDATE users SET access = access - 400 WHERE uid = 2");
    const before = Number((await row(a.sessid))?.timestamp);
    // A request on Node moves the row's timestamp (and the account's access, as Drupal does).
    expect((await served.get("/services/json/me")).status).toBe(200);
    expect(Number((await row(a.sessid))?.timestamp)).toBeGreaterThanOrEqual(before + 400);
    const [account] = await site().sql<{ access: unknown }>("SELECT access FROM users WHERE uid = 2");
    expect(Number(account?.access)).toBeGreaterThanOrEqual(before + 400);
    // Then another request within the interval writes nothing.
    const touched = Number((await row(a.sessid))?.timestamp);
    expect((await served.get("/services/json/me")).status).toBe(200);
    expect(Number((await row(a.sessid))?.timestamp)).toBe(touched);
    await site().garbageCollect(300);
    expect(await row(a.sessid)).toBeDefined();
    expect(await row(b.sessid)).toBeUndefined();
    expect((await served.get("/services/json/me")).status).toBe(200);
    expect(showsLoggedIn((await served.get("/user")).text, "demo")).toBe(true);
    expect((await idle.get("/services/json/me")).status).toBe(401);
  });

  it("a session Drupal started gets the absolute timeout from its last login, and ends on both sides when Node sees it past it", async () => {
    const client = new Client(proxy.port);
    const { sessid } = await loginOnDrupal(client);
    const [account] = await site().sql<{ login: unknown }>("SELECT login FROM users WHERE uid = 2");
    const stored = await node.sessionStore.get(sessid);
    expect(stored?.record.createdAt).toBe(Number(account?.login));
    // A second session, whose login was long ago: Node's absolute timeout (2,000,000 s) has passed.
    const fresh = new Client(proxy.port);
    const { sessid: later } = await loginOnDrupal(fresh);
    await site().sql("UPDATE users SET login = login - 2000001 WHERE uid = 2");
    expect((await fresh.get("/services/json/me")).status).toBe(401);
    expect(await row(later)).toBeUndefined();
    // The first one already carries the creation time Node read: unchanged by the account's later logins.
    expect((await client.get("/services/json/me")).status).toBe(200);
  });
});
