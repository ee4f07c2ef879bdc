/**
 * The account calls on every binding (Express, Fastify, Hono, fetch) with the memory stores, through
 * real HTTP: which calls answer when (opt-in, and a store that cannot write), registration under
 * each policy with its session and mail, forgot password with the non-revealing answer and flood
 * control, the one-time link and its pass-reset token, the own account, the admin calls, and bad
 * input that changes nothing.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  memoryCounterStore,
  memorySessionStore,
  memoryUserStore,
  type AccountsOptions,
  type AuthEvent,
  type MailMessage,
  type SessionAuthOptions,
  type UserStore,
} from "services-session-auth";
import { fastHasher, SECRET, USERS } from "../helpers/app.js";
import { bindingApp } from "../helpers/bindings.js";
import { FRAMEWORKS, type Framework } from "../helpers/frameworks.js";

/** A server on a framework with the account options given, and what it mailed. */
async function accountsApp(
  framework: Framework,
  accounts: Partial<AccountsOptions> & Pick<AccountsOptions, "calls">,
  userStore: UserStore = memoryUserStore(USERS, { hasher: fastHasher }),
): Promise<{ base: string; sent: MailMessage[]; events: AuthEvent[]; server: Server }> {
  const sent: MailMessage[] = [];
  const events: AuthEvent[] = [];
  const options: SessionAuthOptions = {
    userStore,
    sessionStore: memorySessionStore(),
    counterStore: memoryCounterStore(),
    secret: SECRET,
    hasher: fastHasher,
    onEvent: (event) => events.push(event),
    accounts: {
      mailer: { send: async (message) => void sent.push(message) },
      ...accounts,
      settings: { siteName: "Sports", siteMail: "site@example.com", ...(accounts.settings as object | undefined) },
    },
  };
  const { server } = await bindingApp(framework, options);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/json/`, sent, events, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Answer {
  readonly status: number;
  readonly reason: string;
  readonly body: unknown;
  readonly cookies: string[];
}

/** A client with the one session cookie it was given. */
class Caller {
  cookie: string | undefined;
  token: string | undefined;
  constructor(readonly base: string) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(this.base + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(this.cookie === undefined ? {} : { Cookie: this.cookie }),
        ...(this.token === undefined ? {} : { "X-CSRF-Token": this.token }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const cookies = response.headers.getSetCookie();
    const session = cookies.find((cookie) => !cookie.includes("=deleted"));
    if (session !== undefined) this.cookie = session.split(";")[0];
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // An empty or non-JSON body stays text.
    }
    return { status: response.status, reason: response.statusText, body: parsed, cookies };
  }

  async login(name: string, password: string): Promise<this> {
    const login = await this.call("POST", "user/login.json", { username: name, password });
    expect(login.status).toBe(200);
    this.token = (login.body as { token: string }).token;
    return this;
  }

  /** The CSRF token of the session now held (after a session the call opened). */
  async refreshToken(): Promise<void> {
    this.token = ((await this.call("POST", "user/token.json", "")).body as { token: string }).token;
  }
}

function linkOf(mail: MailMessage | undefined): { uid: string; timestamp: string; hashed_pass: string } {
  const match = /\/user\/reset\/(\d+)\/(\d+)\/([\w-]{43})/.exec(mail?.body ?? "");
  if (match === null) throw new Error(`no link in ${mail?.body}`);
  return { uid: match[1]!, timestamp: match[2]!, hashed_pass: match[3]! };
}

describe.each(FRAMEWORKS)("account calls on %s", (framework) => {
  it("answers only the calls named, and the session calls as before", async () => {
    const { base } = await accountsApp(framework, { calls: ["retrieve"] });
    const anonymous = new Caller(base);
    expect(await anonymous.call("GET", "user/login.json")).toMatchObject({ status: 404, reason: "Not found : There is no user with ID login." });
    expect(await anonymous.call("POST", "user/register.json", {})).toMatchObject({
      status: 404,
      reason: "Not found : Could not find the controller.",
      body: "",
    });
    expect(await anonymous.call("PUT", "user/14.json", {})).toMatchObject({ status: 404, reason: "Not found : Could not find the controller." });
    const demo = await new Caller(base).login("demo", "demo-password");
    expect((await demo.call("POST", "system/connect.json", "")).body).toMatchObject({ user: { uid: "14" } });
    expect(await demo.call("GET", "user/14.json")).toMatchObject({
      status: 200,
      body: { uid: "14", name: "demo", mail: "demo@example.com", login: expect.any(String) },
    });
    expect((await demo.call("POST", "user/logout.json", "")).body).toEqual([true]);
  });

  it("leaves the calls that write off for a user store that cannot write, and says so once", async () => {
    const store = memoryUserStore(USERS, { hasher: fastHasher });
    const readOnly: UserStore = {
      findByName: (name) => store.findByName(name),
      findById: (uid) => store.findById(uid),
      recordLogin: (uid, at) => store.recordLogin(uid, at),
      updatePasswordHash: (uid, expected, next) => store.updatePasswordHash(uid, expected, next),
    };
    const { base, events } = await accountsApp(framework, { calls: "all" }, readOnly);
    expect(await new Caller(base).call("POST", "user/register.json", { name: "x", mail: "x@example.com" })).toMatchObject({
      status: 404,
      reason: "Not found : Could not find the controller.",
    });
    expect(await new Caller(base).call("GET", "user/1.json")).toMatchObject({ status: 403, reason: ": Access denied for user anonymous" });
    expect(events.filter((event) => event.type === "config.accounts")).toHaveLength(1);
  });

  it("registers a visitor who may log in at once: the reply, a session, the welcome mail", async () => {
    const { base, sent } = await accountsApp(framework, { calls: ["register", "retrieve"], settings: { register: "visitors", emailVerification: false } });
    const visitor = new Caller(base);
    const reply = await visitor.call("POST", "user/register.json", {
      name: "Newbie",
      mail: " newbie@example.com ",
      pass: { pass1: "s3cret!", pass2: "s3cret!" },
    });
    expect(reply).toMatchObject({ status: 200, body: { uid: "17", uri: expect.stringMatching(/\/services\/json\/user\/17$/) } });
    expect(reply.cookies).toHaveLength(1);
    expect((await visitor.call("GET", "user/17.json")).body).toMatchObject({ uid: "17", name: "Newbie", mail: "newbie@example.com", status: "1" });
    expect(sent.map((mail) => [mail.id, mail.to])).toEqual([["user_register_no_approval_required", "newbie@example.com"]]);
    expect(sent[0]!.body).toMatch(/^Newbie,\n\nThank you for registering at Sports\. You may now log in by clicking this link\nor copying/);
    // The name and the mail are taken now, whatever their case.
    expect(await new Caller(base).call("POST", "user/register.json", { name: "NEWBIE", mail: "NEWBIE@example.com", pass: "x" })).toMatchObject({
      status: 406,
      body: { form_errors: { name: 'The name <em class="placeholder">NEWBIE</em> is already taken.', mail: expect.stringContaining("is already registered") } },
    });
  });

  it("keeps visitors out where only admins register, and lets an admin register anyone", async () => {
    const { base, sent } = await accountsApp(framework, { calls: ["create"], settings: { register: "admins" } });
    expect(await new Caller(base).call("POST", "user.json", { name: "x", mail: "x@example.com" })).toMatchObject({
      status: 403,
      reason: ": Access denied for user anonymous",
    });
    const admin = await new Caller(base).login("admin", "admin-password");
    const created = await admin.call("POST", "user.json", { name: "coach", mail: "coach@example.com", pass: "coach-pass", roles: { "3": "3" }, notify: true });
    expect(created).toMatchObject({ status: 200, body: { uid: "17" } });
    expect(created.cookies).toEqual([]);
    expect(sent.map((mail) => mail.id)).toEqual(["user_register_admin_created"]);
    const coach = await new Caller(base).login("coach", "coach-pass");
    expect((await coach.call("POST", "system/connect.json", "")).body).toMatchObject({ user: { roles: { "2": "authenticated user", "3": "administrator" } } });
  });

  it("answers an unknown name as Drupal 7.101's form does by default, mails a known one, and floods as the form", async () => {
    const { base, sent } = await accountsApp(framework, { calls: ["request_new_password"], settings: { passResetUserLimit: 2, passResetIpLimit: 4 } });
    const visitor = new Caller(base);
    expect(await visitor.call("POST", "user/request_new_password.json", { name: "nobody" })).toMatchObject({ status: 200, body: [true] });
    expect(sent).toEqual([]);
    expect(await visitor.call("POST", "user/request_new_password.json", { name: "DEMO@example.com" })).toMatchObject({ status: 200, body: [true] });
    expect(await visitor.call("POST", "user/request_new_password.json", { name: "demo" })).toMatchObject({ status: 200, body: [true] });
    // The account's third request in its window: answered alike, nothing sent.
    expect(await visitor.call("POST", "user/request_new_password.json", { name: "demo" })).toMatchObject({ status: 200, body: [true] });
    expect(sent.map((mail) => [mail.id, mail.to])).toEqual([
      ["user_password_reset", "demo@example.com"],
      ["user_password_reset", "demo@example.com"],
    ]);
    // The address's fifth: refused, with the form's words.
    expect(await visitor.call("POST", "user/request_new_password.json", { name: "demo" })).toMatchObject({
      status: 406,
      reason:
        "Not Acceptable : Sorry, too many password reset attempts from your IP address. This IP address is temporarily blocked. Try again later or request a new password.",
    });
    expect(await visitor.call("POST", "user/request_new_password.json", { name: ["demo"] })).toMatchObject({ status: 406 });
  });

  it("reveals an unknown name with Services' own answer when asked to", async () => {
    const { base } = await accountsApp(framework, { calls: ["request_new_password"], unknownAccount: "reveal" });
    expect(await new Caller(base).call("POST", "user/request_new_password.json", { name: "nobody" })).toMatchObject({
      status: 406,
      reason: "Not Acceptable : Sorry, nobody is not recognized as a user name or an e-mail address.",
      body: ['Sorry, <em class="placeholder">nobody</em> is not recognized as a user name or an e-mail address.'],
    });
  });

  it("opens a session with a mailed link, once, and lets it change the password without the old one", async () => {
    const { base, sent } = await accountsApp(framework, { calls: ["request_new_password", "user_pass_reset", "update"] });
    const other = await new Caller(base).login("demo", "demo-password");
    await new Caller(base).call("POST", "user/request_new_password.json", { name: "demo" });
    const link = linkOf(sent[0]);
    const visitor = new Caller(base);
    const used = await visitor.call("POST", "user/user_pass_reset.json", link);
    expect(used).toMatchObject({ status: 200, body: { pass_reset_token: expect.stringMatching(/^[\w-]{43}$/) } });
    const { pass_reset_token: token } = used.body as { pass_reset_token: string };
    await visitor.refreshToken();
    expect((await visitor.call("PUT", "user/14.json", { pass: "new-password" })).status).toBe(406);
    expect(await visitor.call("PUT", `user/14.json?pass-reset-token=${token}`, { pass: "new-password" })).toMatchObject({
      status: 200,
      body: { uid: "14", roles: { "2": "authenticated user" } },
    });
    // Spent with the password saved; the link was spent by the login it made.
    expect((await visitor.call("PUT", `user/14.json?pass-reset-token=${token}`, { pass: "newer-password" })).status).toBe(406);
    expect((await new Caller(base).call("POST", "user/user_pass_reset.json", link)).status).toBe(406);
    // The caller's session stays; the account's other one ended; the new password logs in.
    expect((await visitor.call("POST", "system/connect.json", "")).body).toMatchObject({ user: { uid: "14" } });
    expect((await other.call("POST", "system/connect.json", "")).body).toMatchObject({ user: { uid: 0 } });
    await new Caller(base).login("demo", "new-password");
  });

  it("lets an owner change the mail with the current password, the name only with its permission", async () => {
    const { base } = await accountsApp(framework, { calls: ["update", "retrieve"] });
    const demo = await new Caller(base).login("demo", "demo-password");
    expect(await demo.call("PUT", "user/14.json", { name: "demo2" })).toMatchObject({
      status: 406,
      reason: "Not Acceptable : You are not allowed to change your username.",
    });
    expect(await demo.call("PUT", "user/14.json", { mail: "new@example.com" })).toMatchObject({
      status: 406,
      body: { form_errors: { current_pass: expect.stringContaining("Your current password is missing or incorrect"), mail: "" } },
    });
    expect(
      await demo.call("PUT", "user/14.json", { mail: "new@example.com", current_pass: "demo-password", timezone: "Europe/Paris", extra: 1 }),
    ).toMatchObject({
      status: 200,
      body: { mail: "new@example.com", timezone: "Europe/Paris", extra: 1, uid: "14", roles: { "2": "authenticated user" } },
    });
    expect((await demo.call("GET", "user/14.json")).body).toMatchObject({ mail: "new@example.com", timezone: "Europe/Paris" });
    expect(await demo.call("PUT", "user/1.json", {})).toMatchObject({ status: 403, reason: ": Access denied for user demo" });
    // Without the token, CSRF validation fails first.
    demo.token = undefined;
    expect(await demo.call("PUT", "user/14.json", {})).toMatchObject({ status: 401, reason: "Unauthorized : CSRF validation failed" });
  });

  it("serves the admin calls behind Drupal's permissions", async () => {
    const { base, sent } = await accountsApp(framework, { calls: ["index", "delete", "cancel", "password_reset", "resend_welcome_email", "retrieve"] });
    const demo = await new Caller(base).login("demo", "demo-password");
    expect(await demo.call("GET", "user.json")).toMatchObject({ status: 403 });
    expect(await demo.call("DELETE", "user/16.json")).toMatchObject({ status: 403, reason: ": Access denied for user demo" });
    const admin = await new Caller(base).login("admin", "admin-password");
    const index = await admin.call("GET", "user.json?fields=uid,name&parameters[uid]=14,15&options[orderby][uid]=desc");
    expect(index.body).toEqual([
      { uid: "15", name: "blocked", uri: expect.stringMatching(/\/user\/15$/) },
      { uid: "14", name: "demo", uri: expect.stringMatching(/\/user\/14$/) },
    ]);
    expect(await admin.call("DELETE", "user/1.json")).toMatchObject({ status: 403, reason: ": The admin user cannot be deleted." });
    expect(await admin.call("POST", "user/14/cancel.json", "")).toMatchObject({ status: 200, body: [true] });
    expect((await demo.call("POST", "system/connect.json", "")).body).toMatchObject({ user: { uid: 0 } });
    expect(await admin.call("POST", "user/14/resend_welcome_email.json", "")).toMatchObject({ body: [true] });
    expect(await admin.call("POST", "user/14/password_reset.json", "")).toMatchObject({ body: [true] });
    expect(sent.map((mail) => mail.id)).toEqual(["user_register_pending_approval", "user_register_pending_approval_admin", "user_password_reset"]);
    expect(await admin.call("DELETE", "user/16.json")).toMatchObject({ status: 200, body: [true] });
    expect(await admin.call("GET", "user/16.json")).toMatchObject({ status: 404, reason: "Not found : There is no user with ID 16." });
  });

  it("answers bad input in the wire format and changes nothing", async () => {
    const { base } = await accountsApp(framework, { calls: "all", settings: { register: "visitors", emailVerification: false } });
    const visitor = new Caller(base);
    for (const body of [
      "",
      "abc",
      5,
      [1, 2],
      { account: "x" },
      { name: { a: 1 }, mail: ["m"], pass: { pass1: ["p"] } },
      { name: "a".repeat(10_000), mail: "x@y.z", pass: "p" },
    ]) {
      const answer = await visitor.call("POST", "user/register.json", body);
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(406);
      expect(answer.body).toHaveProperty("form_errors");
    }
    const malformed = await fetch(`${base}user/register.json`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" });
    expect([malformed.status, malformed.statusText]).toEqual([400, ": Invalid JSON."]);
    expect(await visitor.call("POST", "user/user_pass_reset.json", { uid: { a: 1 }, timestamp: [1], hashed_pass: null })).toMatchObject({
      status: 401,
      reason: "Unauthorized : Missing required argument hashed_pass",
    });
    expect(await visitor.call("POST", "user/user_pass_reset.json", { uid: { a: 1 }, timestamp: [1], hashed_pass: 1 })).toMatchObject({ status: 403 });
    expect(await visitor.call("GET", "user.json?page=-1")).toMatchObject({ status: 403 });
    const admin = await new Caller(base).login("admin", "admin-password");
    expect(await admin.call("GET", "user.json?page=x")).toMatchObject({ status: 406 });
    expect(await admin.call("GET", "user.json?fields=uid,pass%20FROM")).toMatchObject({ status: 406 });
    expect(await admin.call("GET", "user.json?parameters[pass;drop]=1")).toMatchObject({ status: 406 });
    // Form bodies nest as PHP's do.
    const form = await fetch(`${base}user/register.json`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "name=formuser&mail=form%40example.com&pass[pass1]=pw&pass[pass2]=pw",
    });
    expect(form.status).toBe(200);
    expect((await admin.call("GET", "user.json?fields=uid,name")).body).toHaveLength(5);
  });
});
