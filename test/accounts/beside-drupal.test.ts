/**
 * The account calls beside a real Drupal 7.101 + Services site that serves the whole user resource
 * (`site.sh up --accounts`), on one database: the same requests sent to Drupal and to the app,
 * status lines and bodies compared byte for byte (JSON key order included), rows compared, mail
 * compared (Drupal's TestingMailSystem collector against the app's mailer), one-time links mailed
 * by one side used on the other, and a password changed on one side logging in on the other.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { Client, type Answer } from "../drupal/helpers/beside-drupal.js";
import { describeBesideDrupal } from "../drupal/helpers/drupal7-site.js";
import { startAccountsNodeSide, type AccountsNodeSide } from "./helpers/accounts-node-side.js";
import { clearDrupalMails, drupalMails, roleIds, setVariables, usersRow, type DrupalMail } from "./helpers/drupal-site-state.js";

/** What a side answered, as a client sees it. */
function seen(answer: Answer): { status: number; reason: string; body: unknown } {
  let body: unknown = answer.text;
  try {
    body = JSON.parse(answer.text);
  } catch {
    // Not JSON: compared as text.
  }
  return { status: answer.status, reason: answer.reason, body };
}

/** A login on one side: its client (with the cookie) and the CSRF token. */
async function loggedIn(port: number, username: string, password: string): Promise<{ client: Client; token: string; uid: string }> {
  const client = new Client(port);
  const login = await client.postJson("/services/json/user/login.json", { username, password });
  expect(login.status, login.text).toBe(200);
  const { token, user } = login.json<{ token: string; user: { uid: string } }>();
  return { client, token, uid: user.uid };
}

/** `/user/reset/<uid>/<timestamp>/<hash>` of a mail's body. */
function linkOf(body: string): { uid: string; timestamp: string; hashed_pass: string } {
  const match = /\/user\/reset\/(\d+)\/(\d+)\/([\w-]{43})/.exec(body);
  if (match === null) throw new Error(`no one-time link in:\n${body}`);
  return { uid: match[1]!, timestamp: match[2]!, hashed_pass: match[3]! };
}

/** A mail with what differs between two accounts (or two runs) named: the name, the uid, the link's timestamp and hash. */
function normalised(mail: Pick<DrupalMail, "id" | "to" | "from" | "subject" | "body" | "headers">, name: string, uid: string): Record<string, unknown> {
  const plain = (text: string) =>
    text
      .replace(/\/user\/reset\/\d+\/\d+\/[\w-]{43}/g, "/user/reset/UID/TIME/HASH")
      .replaceAll(`/user/${uid}/`, "/user/UID/")
      .replace(new RegExp(`\\b${name}\\b`, "g"), "NAME");
  return { id: mail.id, to: plain(mail.to), from: mail.from, subject: plain(mail.subject), body: plain(mail.body), headers: mail.headers };
}

/** Every `users` column but the ones that differ between two accounts made the same way (uid, name, mail, hash, times). */
function rowShape(row: Record<string, string | null> | undefined): Record<string, unknown> {
  if (row === undefined) return {};
  const { uid, name, mail, init, pass, created, changed, access, login, ...rest } = row;
  return {
    ...rest,
    initIsMail: init === mail,
    hash: pass?.slice(0, 4),
    changedIsCreated: changed === created,
    access: access === "0" ? "0" : "set",
    login: login === "0" ? "0" : "set",
    named: uid !== null && name !== null && mail !== null,
  };
}

describeBesideDrupal(
  "account calls beside Drupal",
  40,
  (site) => {
    let node: AccountsNodeSide;
    let sent: AccountsNodeSide["sent"];
    let drupalPort: number;

    beforeAll(async () => {
      drupalPort = site().port;
      // Services' own answer to an unknown name, to compare it.
      node = await startAccountsNodeSide(site(), { unknownAccount: "reveal" });
      sent = node.sent;
    }, 60_000);
    afterAll(async () => {
      await node?.close();
    });
    beforeEach(async () => {
      sent.length = 0;
      await clearDrupalMails(site());
      await site().sql("DELETE FROM flood");
    });

    /** Sends one request to each side, each with its own client; resolves both answers. */
    async function both(
      method: string,
      path: string,
      options: { body?: unknown; drupal?: { client: Client; token?: string }; node?: { client: Client; token?: string } } = {},
    ): Promise<[Answer, Answer]> {
      const send = (client: Client, token: string | undefined) =>
        client.request(method, `/services/json/${path}`, {
          headers: { ...(options.body === undefined ? {} : { "Content-Type": "application/json" }), ...(token === undefined ? {} : { "X-CSRF-Token": token }) },
          ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        });
      const drupal = await send(options.drupal?.client ?? new Client(drupalPort), options.drupal?.token);
      const ours = await send(options.node?.client ?? new Client(node.port), options.node?.token);
      return [drupal, ours];
    }

    async function expectSame(method: string, path: string, options: Parameters<typeof both>[2] = {}): Promise<[Answer, Answer]> {
      const answers = await both(method, path, options);
      expect(seen(answers[1]), `${method} ${path} ${JSON.stringify(options.body ?? "")}`).toEqual(seen(answers[0]));
      return answers;
    }

    async function usersTable(): Promise<unknown[]> {
      return site().sql("SELECT uid, name, pass, mail, status, created, changed, timezone, init FROM users ORDER BY uid");
    }

    it("answers refused and malformed calls as Drupal does, and writes nothing", async () => {
      await setVariables(site(), { user_register: 1, user_email_verification: false });
      const before = await usersTable();
      const refused: Array<[string, string, unknown?]> = [
        ["POST", "user/register.json", {}],
        ["POST", "user.json", {}],
        ["POST", "user/register.json", "abc"],
        ["POST", "user/register.json", [1, 2]],
        ["POST", "user/register.json", { name: "demo", mail: "DEMO@example.com", pass: "x" }],
        ["POST", "user/register.json", { name: "a".repeat(61), mail: "bad", pass: "x" }],
        ["POST", "user/register.json", { name: " lead", mail: "a@b", pass: "x" }],
        ["POST", "user/register.json", { name: "x<y", mail: "a@b.c", pass: { pass1: "a" } }],
        ["POST", "user/register.json", { name: "two  spaces", mail: "two@example.com", pass: { pass1: "a", pass2: "b" } }],
        ["POST", "user/register.json", { name: "nopass", mail: "nopass@example.com" }],
        ["POST", "user/register.json", { account: { name: "0", mail: "0", pass: "p" } }],
        ["POST", "user/register.json", { name: ["a"], mail: "array@example.com", pass: "p" }],
        ["GET", "user/1.json"],
        ["GET", "user/login.json"],
        ["GET", "user/99.json"],
        ["GET", "user/2abc"],
        ["GET", "user.json"],
        ["PUT", "user/2.json", { mail: "x@example.com" }],
        ["PUT", "user/99.json", {}],
        ["DELETE", "user/2.json"],
        ["DELETE", "user/99.json"],
        ["POST", "user/2/cancel.json", ""],
        ["POST", "user/99/cancel.json", ""],
        ["POST", "user/2/resend_welcome_email.json", ""],
        ["POST", "user/99/password_reset.json", ""],
        ["POST", "user/request_new_password.json", {}],
        ["POST", "user/request_new_password.json", { name: "nobody" }],
        ["POST", "user/request_new_password.json", { name: "blocked" }],
        ["POST", "user/user_pass_reset.json", {}],
        ["POST", "user/user_pass_reset.json", { uid: 2 }],
        ["POST", "user/user_pass_reset.json", { uid: 2, timestamp: 100 }],
        ["POST", "user/user_pass_reset.json", { uid: 2, timestamp: 100, hashed_pass: "x" }],
        ["POST", "user/user_pass_reset.json", { uid: "abc", timestamp: 100, hashed_pass: "x" }],
        ["POST", "user/user_pass_reset.json", { uid: 3, timestamp: 100, hashed_pass: "x" }],
        ["POST", "user/user_pass_reset.json", { uid: 2, timestamp: 99_999_999_999, hashed_pass: "x" }],
        ["POST", "user/password_reset.json", ""],
        ["POST", "user/2/nothing.json", ""],
      ];
      for (const [method, path, body] of refused) await expectSame(method, path, body === undefined ? {} : { body });
      expect(await usersTable()).toEqual(before);
      expect(sent).toEqual([]);
    });

    it("answers a logged-in user's and an admin's refused calls as Drupal does", async () => {
      const drupalDemo = await loggedIn(drupalPort, "demo", "demo-password");
      const nodeDemo = await loggedIn(node.port, "demo", "demo-password");
      const asDemo = { drupal: drupalDemo, node: nodeDemo };
      const before = await usersTable();
      await expectSame("GET", "user/1.json", asDemo);
      await expectSame("GET", "user.json", asDemo);
      await expectSame("PUT", "user/2.json", { ...asDemo, body: { mail: "demo-new@example.com" } });
      await expectSame("PUT", "user/2.json", { ...asDemo, body: { pass: "new-password" } });
      await expectSame("PUT", "user/2.json", { ...asDemo, body: { pass: "new-password", current_pass: "wrong" } });
      await expectSame("PUT", "user/2.json", { ...asDemo, body: { name: "renamed" } });
      await expectSame("PUT", "user/2.json", { ...asDemo, body: { timezone: "Not/AZone" } });
      await expectSame("PUT", "user/2.json", { ...asDemo, body: { mail: "admin@example.com", current_pass: "demo-password" } });
      await expectSame("PUT", "user/1.json", { ...asDemo, body: {} });
      await expectSame("POST", "user/register.json", { ...asDemo, body: { name: "x", mail: "x@example.com", pass: "x" } });
      await expectSame("POST", "user/user_pass_reset.json", { ...asDemo, body: { uid: 2, timestamp: 100, hashed_pass: "x" } });
      await expectSame("POST", "user/user_pass_reset.json", { ...asDemo, body: { uid: 1, timestamp: 100, hashed_pass: "x" } });
      await expectSame("POST", "user/user_pass_reset.json", { ...asDemo, body: { uid: 99, timestamp: 100, hashed_pass: "x" } });
      await expectSame("DELETE", "user/3.json", asDemo);
      // No CSRF token: the session's check comes first.
      await expectSame("PUT", "user/2.json", { drupal: { client: drupalDemo.client }, node: { client: nodeDemo.client }, body: {} });

      const drupalAdmin = await loggedIn(drupalPort, "admin", "admin-password");
      const nodeAdmin = await loggedIn(node.port, "admin", "admin-password");
      const asAdmin = { drupal: drupalAdmin, node: nodeAdmin };
      await expectSame("DELETE", "user/1.json", asAdmin);
      await expectSame("POST", "user/1/cancel.json", { ...asAdmin, body: "" });
      await expectSame("GET", "user.json?fields=uid,name,mail,status&parameters[uid]=1,2,3&pagesize=2", asAdmin);
      await expectSame("GET", "user.json?fields=uid,name&options[orderby][name]=asc&page=1&pagesize=2", asAdmin);
      await expectSame("GET", "user.json?fields=uid,name&parameters[status]=0", asAdmin);
      // The first sentence is Drupal's; the rest is the database's own error, which differs by server (docs/differences-from-drupal.md).
      const [drupalQuery, ourQuery] = await both("GET", "user.json?fields=uid,nope", asAdmin);
      expect([ourQuery.status, ourQuery.reason.split(". ")[0]]).toEqual([drupalQuery.status, drupalQuery.reason.split(". ")[0]]);
      await expectSame("POST", "user/register.json", { ...asAdmin, body: { name: "x", mail: "x@example.com", pass: "x", status: 5, roles: { "1": "1" } } });
      expect(await usersTable()).toEqual(before);
    });

    it("reads accounts as Drupal does: its own, and any as an admin, the index", async () => {
      const drupalDemo = await loggedIn(drupalPort, "demo", "demo-password");
      const nodeDemo = await loggedIn(node.port, "demo", "demo-password");
      const drupalAdmin = await loggedIn(drupalPort, "admin", "admin-password");
      const nodeAdmin = await loggedIn(node.port, "admin", "admin-password");
      // rdf_mapping comes from Drupal's rdf module at load time (docs/differences-from-drupal.md); access moves as sessions are written.
      const plain = (answer: Answer) => {
        const { rdf_mapping, access, login, ...rest } = answer.json<Record<string, unknown>>();
        void rdf_mapping;
        return { status: answer.status, rest, times: [typeof access, typeof login] };
      };
      for (const [path, drupal, ours] of [
        ["user/2.json", drupalDemo, nodeDemo],
        ["user/02.json", drupalDemo, nodeDemo],
        ["user/1.json", drupalAdmin, nodeAdmin],
        ["user/3.json", drupalAdmin, nodeAdmin],
      ] as const) {
        const [a, b] = await both("GET", path, { drupal, node: ours });
        expect(plain(b), path).toEqual(plain(a));
      }
      const [a, b] = await both("GET", "user.json?fields=uid,name,mail,theme,signature,signature_format,created,status,timezone,language,picture,init", {
        drupal: drupalAdmin,
        node: nodeAdmin,
      });
      expect(seen(b)).toEqual(seen(a));
      const [c, d] = await both("GET", "user.json", { drupal: drupalAdmin, node: nodeAdmin });
      const columns = (answer: Answer) => answer.json<Array<Record<string, unknown>>>().map((row) => Object.keys(row));
      expect(columns(d)).toEqual(columns(c));
    });

    it("registers a visitor who may log in at once as Drupal does: reply, session, row and mail", async () => {
      await setVariables(site(), { user_register: 1, user_email_verification: false });
      const onDrupal = new Client(drupalPort);
      const onNode = new Client(node.port);
      const drupal = await onDrupal.postJson("/services/json/user/register.json", { name: "ann", mail: "ann@example.com", pass: "ann-password" });
      const ours = await onNode.postJson("/services/json/user/register.json", { name: "bob", mail: "bob@example.com", pass: "bob-password" });
      expect(drupal.status, drupal.text).toBe(200);
      expect(ours.status, ours.text).toBe(200);
      const drupalUid = drupal.json<{ uid: string }>().uid;
      const ourUid = ours.json<{ uid: string }>().uid;
      expect(Number(ourUid)).toBe(Number(drupalUid) + 1);
      expect(ours.json()).toEqual({ uid: ourUid, uri: `${site().baseUrl}/services/json/user/${ourUid}` });
      expect(drupal.json()).toEqual({ uid: drupalUid, uri: `${site().baseUrl}/services/json/user/${drupalUid}` });
      // Logged in on both: the new account's session answers connect.
      for (const [client, name] of [
        [onNode, "bob"],
        [onDrupal, "ann"],
      ] as const) {
        const token = (await client.get("/services/session/token")).text;
        const connect = await client.postJson("/services/json/system/connect.json", "", { "X-CSRF-Token": token });
        expect(connect.json<{ user: { name: string } }>().user.name).toBe(name);
      }
      expect(rowShape(await usersRow(site(), ourUid))).toEqual(rowShape(await usersRow(site(), drupalUid)));
      expect(await roleIds(site(), ourUid)).toEqual([]);
      expect(await site().sql("SELECT uid FROM services_user WHERE uid IN (?, ?) ORDER BY uid", [Number(drupalUid), Number(ourUid)])).toHaveLength(2);
      const [drupalMail] = await drupalMails(site());
      expect(sent).toHaveLength(1);
      expect(normalised(sent[0]!, "bob", ourUid)).toEqual(normalised(drupalMail!, "ann", drupalUid));
      // The new password works on the other side.
      await loggedIn(drupalPort, "bob", "bob-password");
      await loggedIn(node.port, "ann", "ann-password");
    });

    it("registers under e-mail verification and admin approval as Drupal does: blocked, a random password, Drupal's two mails", async () => {
      await setVariables(site(), { user_register: 2, user_email_verification: true });
      const drupal = await new Client(drupalPort).postJson("/services/json/user.json", { account: { name: "cat", mail: "cat@example.com", pass: "ignored" } });
      const ours = await new Client(node.port).postJson("/services/json/user.json", { account: { name: "dan", mail: "dan@example.com", pass: "ignored" } });
      expect([drupal.status, ours.status]).toEqual([200, 200]);
      expect(ours.headers.getSetCookie()).toEqual([]);
      const drupalUid = drupal.json<{ uid: string }>().uid;
      const ourUid = ours.json<{ uid: string }>().uid;
      const ourRow = await usersRow(site(), ourUid);
      expect(ourRow?.status).toBe("0");
      expect(rowShape(ourRow)).toEqual(rowShape(await usersRow(site(), drupalUid)));
      const mails = await drupalMails(site());
      expect(sent.map((mail) => mail.id)).toEqual(mails.map((mail) => mail.id));
      sent.forEach((mail, index) => expect(normalised(mail, "dan", ourUid)).toEqual(normalised(mails[index]!, "cat", drupalUid)));
      // Blocked until an admin approves it.
      expect((await new Client(node.port).postJson("/services/json/user/login.json", { username: "dan", password: "ignored" })).status).toBe(403);
    });

    it("lets an admin create an account with roles and a welcome mail as Drupal does", async () => {
      const drupalAdmin = await loggedIn(drupalPort, "admin", "admin-password");
      const nodeAdmin = await loggedIn(node.port, "admin", "admin-password");
      const account = (name: string) => ({
        name,
        mail: `${name}@example.com`,
        pass: { pass1: "pw-1", pass2: "pw-1" },
        roles: { "3": "3" },
        notify: 1,
        status: 0,
      });
      const drupal = await drupalAdmin.client.postJson("/services/json/user.json", account("eve"), { "X-CSRF-Token": drupalAdmin.token });
      const ours = await nodeAdmin.client.postJson("/services/json/user.json", account("fay"), { "X-CSRF-Token": nodeAdmin.token });
      expect([drupal.status, ours.status], `${drupal.text} ${ours.text}`).toEqual([200, 200]);
      const drupalUid = drupal.json<{ uid: string }>().uid;
      const ourUid = ours.json<{ uid: string }>().uid;
      expect(rowShape(await usersRow(site(), ourUid))).toEqual(rowShape(await usersRow(site(), drupalUid)));
      expect(await roleIds(site(), ourUid)).toEqual(await roleIds(site(), drupalUid));
      const mails = await drupalMails(site());
      expect(sent.map((mail) => mail.id)).toEqual(mails.map((mail) => mail.id));
      expect(normalised(sent[0]!, "fay", ourUid)).toEqual(normalised(mails[0]!, "eve", drupalUid));
    });

    it("mails one-time links that open on the other side, and a password reset there logs in on both", async () => {
      await setVariables(site(), { user_register: 1, user_email_verification: false });
      for (const [name, registerOn] of [
        ["gil", node.port],
        ["hal", drupalPort],
      ] as const) {
        const created = await new Client(registerOn).postJson("/services/json/user/register.json", {
          name,
          mail: `${name}@example.com`,
          pass: `${name}-password`,
        });
        expect(created.status, created.text).toBe(200);
      }
      // A session of gil's elsewhere (a login moves `login`, which a link is made of: before the links).
      const elsewhere = await loggedIn(node.port, "gil", "gil-password");
      // Logged in a while ago, so that using a link moves `login` and spends it even within the same second.
      await site().sql("UPDATE users SET login = login - 100 WHERE name IN (?, ?)", ["gil", "hal"]);
      // The app mails gil's link; Drupal opens it. Drupal mails hal's; the app opens it.
      const ours = await new Client(node.port).postJson("/services/json/user/request_new_password.json", { name: "gil" });
      expect(seen(ours)).toEqual({ status: 200, reason: "OK", body: [true] });
      const drupal = await new Client(drupalPort).postJson("/services/json/user/request_new_password.json", { name: "hal@example.com" });
      expect(seen(drupal)).toEqual({ status: 200, reason: "OK", body: [true] });
      const drupalMail = (await drupalMails(site())).find((mail) => mail.id === "user_password_reset");
      const ourMail = sent.find((mail) => mail.id === "user_password_reset")!;
      const gil = await usersRow(site(), linkOf(ourMail.body).uid);
      const hal = await usersRow(site(), linkOf(drupalMail!.body).uid);
      expect(normalised(ourMail, "gil", gil!.uid!)).toEqual(normalised(drupalMail!, "hal", hal!.uid!));

      for (const [port, link, name] of [
        [drupalPort, linkOf(ourMail.body), "gil"],
        [node.port, linkOf(drupalMail!.body), "hal"],
      ] as const) {
        const client = new Client(port);
        const used = await client.postJson("/services/json/user/user_pass_reset.json", link);
        expect(used.status, used.text).toBe(200);
        const { pass_reset_token, message } = used.json<{ pass_reset_token: string; message: string }>();
        expect(message).toBe(
          "You have just used your one-time login link. It is no longer necessary to use this link to log in. <strong>Please change your password</strong>.",
        );
        // Used once: the login it made moved past the link.
        expect(seen(await new Client(port).postJson("/services/json/user/user_pass_reset.json", link)).status).toBe(406);
        const token = (await client.postJson("/services/json/user/token.json", "")).json<{ token: string }>().token;
        const refused = await client.request("PUT", `/services/json/user/${link.uid}.json`, {
          headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
          body: JSON.stringify({ pass: `${name}-new` }),
        });
        expect(refused.status).toBe(406);
        const changed = await client.request("PUT", `/services/json/user/${link.uid}.json?pass-reset-token=${pass_reset_token}`, {
          headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
          body: JSON.stringify({ pass: `${name}-new` }),
        });
        expect(seen(changed)).toEqual({ status: 200, reason: "OK", body: { uid: link.uid, roles: { "2": "authenticated user" } } });
        // The token is spent with the password saved.
        const again = await client.request("PUT", `/services/json/user/${link.uid}.json?pass-reset-token=${pass_reset_token}`, {
          headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
          body: JSON.stringify({ pass: `${name}-newer` }),
        });
        expect(again.status).toBe(406);
      }
      // Both new passwords log in on both sides.
      for (const port of [drupalPort, node.port]) {
        await loggedIn(port, "gil", "gil-new");
        await loggedIn(port, "hal", "hal-new");
      }
      // gil's password changed on Drupal through Services, which leaves the account's other sessions (docs/differences-from-drupal.md).
      const connect = await elsewhere.client.postJson("/services/json/system/connect.json", "", { "X-CSRF-Token": elsewhere.token });
      expect(connect.json<{ user: { uid: unknown } }>().user.uid).toBe(gil!.uid);
    });

    it("ends an account's other sessions when the app changes its password, the caller's staying", async () => {
      await setVariables(site(), { user_register: 1, user_email_verification: false });
      await new Client(node.port).postJson("/services/json/user/register.json", { name: "ivy", mail: "ivy@example.com", pass: "ivy-password" });
      const onDrupal = await loggedIn(drupalPort, "ivy", "ivy-password");
      const other = await loggedIn(node.port, "ivy", "ivy-password");
      const caller = await loggedIn(node.port, "ivy", "ivy-password");
      const changed = await caller.client.request("PUT", `/services/json/user/${caller.uid}.json`, {
        headers: { "Content-Type": "application/json", "X-CSRF-Token": caller.token },
        body: JSON.stringify({ pass: "ivy-new", current_pass: "ivy-password" }),
      });
      expect(seen(changed)).toEqual({ status: 200, reason: "OK", body: { uid: caller.uid, roles: { "2": "authenticated user" } } });
      const connect = (who: { client: Client; token: string }) => who.client.postJson("/services/json/system/connect.json", "", { "X-CSRF-Token": who.token });
      expect((await connect(caller)).json<{ user: { uid: unknown } }>().user.uid).toBe(caller.uid);
      expect((await connect(other)).json<{ user: { uid: unknown } }>().user.uid).toBe(0);
      // Drupal's own session of the account is a row of the same table: gone too.
      expect((await connect(onDrupal)).json<{ user: { uid: unknown } }>().user.uid).toBe(0);
      await loggedIn(drupalPort, "ivy", "ivy-new");
    });

    it("counts password requests in Drupal's flood table, and a used link clears the account's failures there", async () => {
      await setVariables(site(), { user_register: 1, user_email_verification: false });
      const created = await new Client(node.port).postJson("/services/json/user/register.json", { name: "nia", mail: "nia@example.com", pass: "nia-password" });
      const uid = created.json<{ uid: string }>().uid;
      await site().sql("UPDATE users SET login = login - 100 WHERE uid = ?", [Number(uid)]);
      // Failed logins on Drupal: its flood rows for the account and this address.
      for (let i = 0; i < 3; i++)
        expect((await new Client(drupalPort).postJson("/services/json/user/login.json", { username: "nia", password: "wrong" })).status).toBe(401);
      const failures = () => site().sql("SELECT identifier FROM flood WHERE event = ?", ["failed_login_attempt_user"]);
      expect(await failures()).toHaveLength(3);
      expect((await new Client(node.port).postJson("/services/json/user/request_new_password.json", { name: "nia" })).status).toBe(200);
      const events = await site().sql<{ event: string; identifier: string }>("SELECT event, identifier FROM flood WHERE event LIKE ? ORDER BY event", [
        "pass_reset%",
      ]);
      expect(events.map((row) => [row.event, row.identifier])).toEqual([
        ["pass_reset_ip", "127.0.0.1"],
        ["pass_reset_user", uid],
      ]);
      const link = linkOf(sent.find((mail) => mail.id === "user_password_reset")!.body);
      expect((await new Client(node.port).postJson("/services/json/user/user_pass_reset.json", link)).status).toBe(200);
      expect(await failures()).toEqual([]);
      expect(await site().sql("SELECT event FROM flood WHERE event = ?", ["pass_reset_user"])).toEqual([]);
      // Requests Drupal's own form counted (its rows) count here: the sixth in the window is refused.
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 5; i++)
        await site().sql("INSERT INTO flood (event, identifier, timestamp, expiration) VALUES (?, ?, ?, ?)", ["pass_reset_user", uid, now, now + 21_600]);
      const refused = await new Client(node.port).postJson("/services/json/user/request_new_password.json", { name: "nia@example.com" });
      expect(seen(refused)).toEqual({
        status: 406,
        reason:
          "Not Acceptable : Sorry, there have been more than 5 password reset attempts for this account. It is temporarily blocked. Try again later or login with your password.",
        body: [
          'Sorry, there have been more than 5 password reset attempts for this account. It is temporarily blocked. Try again later or <a href="/user/login">login with your password</a>.',
        ],
      });
    });

    it("cancels, deletes and mails as an admin as Drupal does", async () => {
      await setVariables(site(), { user_register: 1, user_email_verification: false, user_mail_status_blocked_notify: true });
      const uids: string[] = [];
      for (const name of ["jay", "kim", "lee", "max"]) {
        const created = await new Client(node.port).postJson("/services/json/user/register.json", { name, mail: `${name}@example.com`, pass: "pw" });
        uids.push(created.json<{ uid: string }>().uid);
      }
      // Made a minute ago, so a cancel's new `changed` differs from `created` on both sides whatever second it falls in.
      for (const uid of uids) await site().sql("UPDATE users SET created = created - 60, changed = changed - 60 WHERE uid = ?", [Number(uid)]);
      sent.length = 0;
      await clearDrupalMails(site());
      const drupalAdmin = await loggedIn(drupalPort, "admin", "admin-password");
      const nodeAdmin = await loggedIn(node.port, "admin", "admin-password");
      const [jay, kim, lee, max] = uids as [string, string, string, string];
      const post = (who: { client: Client; token: string }, path: string) => who.client.postJson(`/services/json/${path}`, "", { "X-CSRF-Token": who.token });
      expect(seen(await post(drupalAdmin, `user/${jay}/cancel.json`))).toEqual(seen(await post(nodeAdmin, `user/${kim}/cancel.json`)));
      expect(rowShape(await usersRow(site(), kim))).toEqual(rowShape(await usersRow(site(), jay)));
      expect((await usersRow(site(), kim))?.status).toBe("0");
      expect(seen(await post(drupalAdmin, `user/${jay}/resend_welcome_email.json`))).toEqual(
        seen(await post(nodeAdmin, `user/${kim}/resend_welcome_email.json`)),
      );
      expect(seen(await post(drupalAdmin, `user/${jay}/password_reset.json`))).toEqual(seen(await post(nodeAdmin, `user/${kim}/password_reset.json`)));
      const mails = await drupalMails(site());
      expect(sent.map((mail) => mail.id)).toEqual(mails.map((mail) => mail.id));
      sent.forEach((mail, index) => expect(normalised(mail, "kim", kim)).toEqual(normalised(mails[index]!, "jay", jay)));
      const remove = (who: { client: Client; token: string }, uid: string) =>
        who.client.request("DELETE", `/services/json/user/${uid}.json`, { headers: { "X-CSRF-Token": who.token } });
      expect(seen(await remove(nodeAdmin, max))).toEqual(seen(await remove(drupalAdmin, lee)));
      expect(await usersRow(site(), max)).toBeUndefined();
      expect(await roleIds(site(), max)).toEqual([]);
      // Gone: the same 404, each naming its own uid.
      const again = seen(await remove(nodeAdmin, max));
      expect(JSON.stringify(again).replaceAll(max, "UID")).toBe(JSON.stringify(seen(await remove(drupalAdmin, lee))).replaceAll(lee, "UID"));
    });
  },
  (variant) => !variant.rawSids,
  { accounts: true },
);
