/**
 * The contract of a user store that writes (`createUser`, `updateUser`, `deleteUser`, `findByMail`,
 * `listUsers`, `permissions`, `roles`), run on every store that has them: uids as Drupal allocates
 * them, names and mails unique as the store compares them, held under concurrent writers, and
 * rows as Drupal's `users` table holds them.
 */
import { describe, expect, it } from "vitest";
import type { NewUserRecord, UserStore } from "services-session-auth";

/** What the contract needs to know of a store. */
export interface UserStoreContractOptions {
  /** A role id the store knows besides "authenticated user" (Drupal's administrator, 3). */
  readonly role: string;
  /** An existing account's uid, name and mail. */
  readonly existing: { readonly uid: string; readonly name: string; readonly mail: string };
}

let counter = 0;
/** A new account no other test made: a name and mail of its own. */
function newUser(overrides: Partial<NewUserRecord> = {}): NewUserRecord {
  counter += 1;
  const name = `contract${process.pid}x${counter}`;
  return {
    name,
    mail: `${name}@example.com`,
    init: `${name}@example.com`,
    passwordHash: "$S$Dhash",
    active: true,
    roles: {},
    created: 1_700_000_000,
    ...overrides,
  };
}

/** Runs the write contract on a store made by `makeStore` (once for the suite). */
export function describeUserStoreWrites(title: string, makeStore: () => UserStore, options: UserStoreContractOptions): void {
  describe(`${title} (UserStore writes contract)`, () => {
    const store = () => makeStore();

    it("creates an account as user_save() does, with the next uid", async () => {
      const first = await store().createUser!(newUser());
      const input = newUser({ roles: { [options.role]: "administrator" }, fields: { timezone: "Europe/Paris", signature_format: "filtered_html" } });
      const second = await store().createUser!(input);
      if (!("user" in first) || !("user" in second)) throw new Error("not created");
      expect(Number(second.user.uid)).toBe(Number(first.user.uid) + 1);
      expect(second.user).toMatchObject({
        name: input.name,
        mail: input.mail,
        passwordHash: input.passwordHash,
        active: true,
        created: input.created,
        access: 0,
        login: 0,
        roles: { "2": "authenticated user", [options.role]: expect.any(String) },
      });
      expect(second.user.fields).toMatchObject({ init: input.mail, timezone: "Europe/Paris", signature_format: "filtered_html" });
      expect(await store().findById(second.user.uid)).toEqual(second.user);
      expect(await store().findByName(input.name.toUpperCase())).toMatchObject({ uid: second.user.uid });
      expect((await store().findByMail!(input.mail.toUpperCase())).map((user) => user.uid)).toEqual([second.user.uid]);
    });

    it("refuses a name or mail another account holds, whatever its case", async () => {
      const { existing } = options;
      expect(await store().createUser!(newUser({ name: existing.name.toUpperCase() }))).toEqual({ taken: "name" });
      expect(await store().createUser!(newUser({ mail: existing.mail.toUpperCase() }))).toEqual({ taken: "mail" });
      const made = await store().createUser!(newUser());
      if (!("user" in made)) throw new Error("not created");
      expect(await store().updateUser!(made.user.uid, { name: existing.name, changed: 1_700_000_001 })).toEqual({ taken: "name" });
      expect(await store().updateUser!(made.user.uid, { mail: existing.mail, changed: 1_700_000_001 })).toEqual({ taken: "mail" });
      // Its own name and mail, in another case, are its own.
      const own = await store().updateUser!(made.user.uid, { name: made.user.name.toUpperCase(), mail: made.user.mail.toUpperCase(), changed: 1_700_000_002 });
      expect(own).toMatchObject({ user: { name: made.user.name.toUpperCase(), mail: made.user.mail.toUpperCase() } });
    });

    it("lets one of many writers racing for a name or a mail win", async () => {
      const name = newUser().name;
      const byName = await Promise.all(
        Array.from({ length: 12 }, (_, index) => store().createUser!(newUser({ name: index % 2 === 0 ? name : name.toUpperCase() }))),
      );
      expect(byName.filter((write) => "user" in write)).toHaveLength(1);
      expect(byName.filter((write) => "taken" in write && write.taken === "name")).toHaveLength(11);
      const mail = `${newUser().name}@example.com`;
      const byMail = await Promise.all(Array.from({ length: 12 }, () => store().createUser!(newUser({ mail }))));
      expect(byMail.filter((write) => "user" in write)).toHaveLength(1);
      expect((await store().findByMail!(mail)).length).toBe(1);
    });

    it("changes an account: name, mail, hash, status, roles, other columns, changed", async () => {
      const made = await store().createUser!(newUser());
      if (!("user" in made)) throw new Error("not created");
      const next = newUser();
      const write = await store().updateUser!(made.user.uid, {
        name: next.name,
        mail: next.mail,
        passwordHash: "$S$Dother",
        active: false,
        roles: { [options.role]: "administrator" },
        fields: { timezone: "UTC", data: { overlay: 1 } },
        changed: 1_700_000_100,
      });
      expect(write).toMatchObject({
        user: {
          uid: made.user.uid,
          name: next.name,
          mail: next.mail,
          passwordHash: "$S$Dother",
          active: false,
          roles: { "2": "authenticated user", [options.role]: expect.any(String) },
        },
      });
      if (write === null || !("user" in write)) throw new Error("not changed");
      expect(write.user.fields).toMatchObject({ timezone: "UTC", data: { overlay: 1 }, changed: "1700000100", init: made.user.mail });
      const rolesCleared = await store().updateUser!(made.user.uid, { roles: {}, changed: 1_700_000_101 });
      expect(rolesCleared).toMatchObject({ user: { roles: { "2": "authenticated user" } } });
      expect(await store().updateUser!("987654321", { changed: 1 })).toBeNull();
    });

    it("deletes an account and never gives its uid again", async () => {
      const made = await store().createUser!(newUser({ roles: { [options.role]: "administrator" } }));
      if (!("user" in made)) throw new Error("not created");
      expect(await store().deleteUser!(made.user.uid)).toBe(true);
      expect(await store().findById(made.user.uid)).toBeNull();
      expect(await store().deleteUser!(made.user.uid)).toBe(false);
      const after = await store().createUser!(newUser());
      if (!("user" in after)) throw new Error("not created");
      expect(Number(after.user.uid)).toBeGreaterThan(Number(made.user.uid));
    });

    it("lists rows as Drupal's users table holds them, filtered, ordered and paged", async () => {
      const made = await store().createUser!(newUser());
      if (!("user" in made)) throw new Error("not created");
      const [row] = await store().listUsers!({
        fields: [],
        conditions: [{ column: "uid", operator: "IN", values: [made.user.uid] }],
        orderBy: [],
        offset: 0,
        limit: 20,
      });
      expect(Object.keys(row!).slice(0, 4)).toEqual(["uid", "name", "pass", "mail"]);
      expect(row).toMatchObject({ uid: made.user.uid, name: made.user.name, status: "1", created: "1700000000", access: "0", login: "0" });
      const ordered = await store().listUsers!({
        fields: ["uid", "name"],
        conditions: [{ column: "uid", operator: "IN", values: [options.existing.uid, made.user.uid] }],
        orderBy: [{ column: "uid", direction: "DESC" }],
        offset: 0,
        limit: 1,
      });
      expect(ordered.map((item) => item.uid)).toEqual([made.user.uid]);
      const paged = await store().listUsers!({
        fields: ["uid"],
        conditions: [{ column: "uid", operator: "IN", values: [options.existing.uid, made.user.uid] }],
        orderBy: [{ column: "uid", direction: "DESC" }],
        offset: 1,
        limit: 1,
      });
      expect(paged.map((item) => item.uid)).toEqual([options.existing.uid]);
    });

    it("tells roles and their permissions", async () => {
      const roles = await store().roles!();
      expect(roles).toMatchObject({ "2": "authenticated user" });
      expect(roles).toHaveProperty(options.role);
      expect(roles).not.toHaveProperty("1");
      expect(await store().permissions!({ [options.role]: roles[options.role]! })).toContain("administer users");
      expect(await store().permissions!({ "1": "anonymous user" })).not.toContain("administer users");
    });
  });
}
