import type { UserChanges, UserRecord } from "../../types.js";
import { jsonReply, type WireResponse } from "../../wire/reply.js";
import type { AccountCall } from "../account-call.js";
import { validateAccountForm } from "../form/account-form.js";
import { member, phpArray, phpString } from "../form/form-values.js";
import { parsePhpInput } from "../php-input.js";
import { formErrorReply, servicesError } from "../replies.js";
import { formContext, unwrapArgument } from "./register.js";
import { endSessionsAfterSave, mailStatusChange } from "./saved.js";
import { hashedPassword, takenError } from "./taken.js";

/** PHP's `empty()` of a posted value. */
function phpEmpty(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    value === "" ||
    value === "0" ||
    value === 0 ||
    value === false ||
    (typeof value === "object" && Object.keys(value).length === 0)
  );
}

/** `users.data` as the store read it: Drupal's unserialized value (`false` for none). */
function dataOf(account: UserRecord): unknown {
  return account.fields?.data ?? false;
}

/**
 * `PUT user/{uid}` (`_user_resource_update()`): Drupal's account edit form as Services submits it.
 * The owner or an admin may edit; a name change needs its permission; an owner changing the mail
 * or password gives the current one, or the `pass-reset-token` a one-time link gave the session.
 * The reply is what was sent, with `uid` and `roles`, less the password. A new password ends the
 * account's other sessions (the caller's stays), and a blocked account's every session.
 */
export async function updateUser(call: AccountCall, uid: string, data: unknown): Promise<WireResponse> {
  const { users, passResetTokens } = call.deps;
  const { context, request } = call;
  const loaded = await call.load(uid);
  if (loaded === null) return call.noSuchUser(uid);
  const admin = await call.can("administer users");
  if (call.callerUid !== loaded.uid && !admin) return call.accessDenied();

  const account = { ...unwrapArgument(phpArray(data), "data") };
  account.uid = uid;
  let category = "account";
  if (Object.hasOwn(account, "category") && account.category !== null) {
    category = phpString(account.category) ?? "";
    delete account.category;
  }
  // The form's values: everything posted but the password and roles, which Services prepares.
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(account)) if (key !== "pass" && key !== "roles") values[key] = value;
  if (member(account, "roles") === undefined || !admin) account.roles = { ...loaded.roles };
  // Each role given a value PHP does not take as empty, by its key; the form gets none when no role is.
  const roles = account.roles;
  if (typeof roles === "object" && roles !== null) {
    const chosen: Record<string, string> = {};
    for (const [key, value] of Object.entries(roles as Record<string, unknown>)) if (!phpEmpty(value)) chosen[key] = key;
    if (Object.keys(chosen).length > 0) {
      delete chosen["2"];
      values.roles = chosen;
    }
  }
  const pass = member(account, "pass");
  if (pass !== undefined) values.pass = typeof pass === "object" ? pass : { pass1: pass, pass2: pass };

  const name = member(account, "name");
  if (name !== undefined && phpString(name) !== loaded.name && !((await call.can("change own username")) || admin)) {
    return servicesError(406, "You are not allowed to change your username.");
  }

  const changes: { -readonly [K in keyof UserChanges]: UserChanges[K] } = { changed: context.now };
  // user_save() writes the whole row: `data` is serialized again (`b:0;` for none), whatever else changes.
  const stored = dataOf(loaded);
  const fields: Record<string, unknown> = { data: stored };
  let passChanged = false;
  if (category === "account") {
    const live = context.state.kind === "live" ? context.state : undefined;
    const token = phpString(member(parsedQuery(call), "pass-reset-token"));
    const passReset = live !== undefined && (await passResetTokens.valid(live.sessid, loaded.uid, token));
    const form = await validateAccountForm(values, {
      ...(await formContext(call, "update", loaded)),
      passReset,
      accountOverlay: call.settings.overlay && (await accountMayUseOverlay(call, loaded)),
    });
    if (form.errors.length > 0) return formErrorReply(form.errors);
    const v = form.values;
    if (v.name !== loaded.name) changes.name = v.name;
    if (v.mail !== loaded.mail) changes.mail = v.mail;
    if (v.pass !== "") {
      const hash = await hashedPassword(call, v.pass);
      if (typeof hash !== "string") return hash;
      changes.passwordHash = hash;
      passChanged = true;
    }
    if (v.active !== loaded.active) changes.active = v.active;
    if (v.roles !== undefined) {
      const names = (await users.roles?.()) ?? {};
      const next = Object.fromEntries(v.roles.map((rid) => [rid, names[rid] ?? rid]));
      const current = Object.keys(loaded.roles).filter((rid) => rid !== "2");
      if (current.length !== v.roles.length || v.roles.some((rid) => !current.includes(rid))) changes.roles = next;
    }
    if (v.timezone !== undefined && v.timezone !== (loaded.fields?.timezone ?? null)) fields.timezone = v.timezone;
    if (v.overlay !== undefined) fields.data = { ...(typeof stored === "object" && stored !== null ? stored : {}), overlay: v.overlay };
  }
  changes.fields = fields;

  const write = await users.updateUser!(loaded.uid, changes);
  if (write === null) return call.noSuchUser(uid);
  if ("taken" in write) return takenError(call, write.taken, { name: changes.name ?? loaded.name, mail: changes.mail ?? loaded.mail });
  const saved = write.user;
  const changed = [
    ...(changes.name === undefined ? [] : ["name"]),
    ...(changes.mail === undefined ? [] : ["mail"]),
    ...(passChanged ? ["password"] : []),
    ...(changes.active === undefined ? [] : ["status"]),
    ...(changes.roles === undefined ? [] : ["roles"]),
    ...(changes.fields?.timezone === undefined ? [] : ["timezone"]),
  ];
  call.deps.emit({ type: "account.updated", uid: saved.uid, by: call.callerUid, changed, ip: request.ip }, request.requestId);
  await endSessionsAfterSave(call, loaded, saved, passChanged);
  if (passChanged && context.state.kind === "live") await passResetTokens.spend(context.state.sessid, saved.uid);
  await mailStatusChange(call, loaded, saved);

  // services_remove_user_data() on what was sent.
  delete account.pass;
  delete account.current_pass;
  if (!admin && uid !== call.callerUid) delete account.mail;
  if (!admin) delete account.init;
  return jsonReply(account);
}

/** The query of the call as PHP's `$_GET`. */
function parsedQuery(call: AccountCall): Record<string, unknown> {
  return parsePhpInput(call.request.query);
}

/** `user_access('access overlay', $account)` for the account edited (its roles' permissions, uid 1 all). */
async function accountMayUseOverlay(call: AccountCall, account: UserRecord): Promise<boolean> {
  if (account.uid === "1") return true;
  const granted = (await call.deps.users.permissions?.(account.roles)) ?? (call.deps.isAdmin(account) ? ["access overlay"] : []);
  return granted.includes("access overlay");
}
