import type { UserRecord } from "../../types.js";
import { jsonReply, type WireResponse } from "../../wire/reply.js";
import type { AccountCall } from "../account-call.js";
import { validateAccountForm, type AccountFormContext } from "../form/account-form.js";
import { member, phpArray } from "../form/form-values.js";
import { userPassword } from "../one-time-link.js";
import { formErrorReply, openedSessionCookies } from "../replies.js";
import { TIME_ZONES } from "../time-zones.js";
import { hashedPassword, takenError } from "./taken.js";

/** `_services_arg_value()`: `{"account": {…}}` alone is the account itself (a regression Services kept working). */
export function unwrapArgument(data: Record<string, unknown>, field: string): Record<string, unknown> {
  const keys = Object.keys(data);
  const inner = data[field];
  return keys.length === 1 && keys[0] === field && typeof inner === "object" && inner !== null ? phpArray(inner) : data;
}

/** The form context every account form shares, from the call. */
export async function formContext(call: AccountCall, mode: "register" | "update", account?: UserRecord): Promise<AccountFormContext> {
  const { users } = call.deps;
  return {
    mode,
    ...(account === undefined ? {} : { account }),
    callerUid: call.callerUid,
    admin: await call.can("administer users"),
    assignRoles: await call.can("administer permissions"),
    changeOwnName: await call.can("change own username"),
    passReset: false,
    accountOverlay: false,
    settings: call.settings,
    roles: (await users.roles?.()) ?? { "2": "authenticated user" },
    timeZones: TIME_ZONES,
    users,
    checkPassword: async (password) => account !== undefined && call.deps.hasher.verify(account.passwordHash, password),
    passwordPath: call.relativeUrl("user/password"),
  };
}

/**
 * `POST user` and `POST user/register` (`_user_resource_create()`): Drupal's registration form as
 * Services submits it. A visitor may register unless only admins may; an admin may always. Then,
 * as `user_register_submit()`: the password chosen (or a random one, mailed as a link, under
 * e-mail verification), the welcome mail for the site's policy, and for a visitor who may log in at
 * once, a session.
 */
export async function registerUser(call: AccountCall, data: unknown): Promise<WireResponse> {
  const { users } = call.deps;
  const { settings, context, request } = call;
  // _user_resource_access('create').
  const admin = await call.can("administer users");
  if (!(call.caller === undefined && settings.register !== "admins") && !admin) return call.accessDenied();

  const account = unwrapArgument(phpArray(data), "account");
  // Services posts the password as the form's two fields: a string is both.
  const pass = member(account, "pass");
  const values: Record<string, unknown> = { ...account };
  if (typeof pass === "object" && pass !== null) {
    const pair = pass as Record<string, unknown>;
    values.pass = { pass1: member(pair, "pass1") ?? null, pass2: member(pair, "pass2") ?? null };
  } else {
    values.pass = { pass1: pass ?? "", pass2: pass ?? "" };
  }
  const form = await validateAccountForm(values, await formContext(call, "register"));
  if (form.errors.length > 0) return formErrorReply(form.errors);

  const chosen = !settings.emailVerification || admin ? form.values.pass : userPassword();
  const passwordHash = await hashedPassword(call, chosen);
  if (typeof passwordHash !== "string") return passwordHash;
  const roleNames = (await users.roles?.()) ?? {};
  const roles = Object.fromEntries((form.values.roles ?? []).map((rid) => [rid, roleNames[rid] ?? rid]));
  const write = await users.createUser!({
    name: form.values.name,
    mail: form.values.mail,
    init: form.values.mail,
    passwordHash,
    active: form.values.active,
    roles,
    created: context.now,
    fields: {
      theme: "",
      signature: "",
      signature_format: settings.signatureFormat,
      timezone: form.values.timezone ?? null,
      language: "",
      picture: "0",
    },
  });
  if ("taken" in write) return takenError(call, write.taken, form.values);
  const created = write.user;
  call.deps.emit({ type: "account.created", uid: created.uid, by: admin ? call.callerUid : null, ip: request.ip }, request.requestId);

  const reply = { uid: created.uid, uri: call.uri(created.uid) };
  // user_register_submit(), in its order.
  if (admin && !form.values.notify) return jsonReply(reply);
  if (!admin && !settings.emailVerification && created.active) {
    await call.mail("register_no_approval_required", created);
    const opened = await call.openSession(created);
    return jsonReply(reply, { "Set-Cookie": openedSessionCookies(opened.sessid, context) });
  }
  if (created.active || form.values.notify) await call.mail(form.values.notify ? "register_admin_created" : "register_no_approval_required", created);
  else await call.mail("register_pending_approval", created);
  return jsonReply(reply);
}
