import { hashSessionId, safeEqual } from "../../sessions/session-id.js";
import { placeholder } from "../../wire/html.js";
import { jsonReply, type WireResponse } from "../../wire/reply.js";
import type { UserRecord } from "../../types.js";
import type { AccountCall } from "../account-call.js";
import { loadableUid } from "../account-call.js";
import { phpString, phpTrim } from "../form/form-values.js";
import { userPassRehash } from "../one-time-link.js";
import { openedSessionCookies, servicesError } from "../replies.js";

/** The flood message of Drupal 7.101's password form for one address. */
function ipFloodMessage(call: AccountCall): string {
  return `Sorry, too many password reset attempts from your IP address. This IP address is temporarily blocked. Try again later or <a href="${call.relativeUrl("user/password")}">request a new password</a>.`;
}

/** The flood message of Drupal 7.101's password form for one account (`format_plural()` of its limit). */
function userFloodMessage(call: AccountCall): string {
  const limit = call.settings.passResetUserLimit;
  const attempts = limit === 1 ? "there has been more than one password reset attempt" : `there have been more than ${limit} password reset attempts`;
  return `Sorry, ${attempts} for this account. It is temporarily blocked. Try again later or <a href="${call.relativeUrl("user/login")}">login with your password</a>.`;
}

/**
 * Drupal 7.101's password form's flood control (`user_pass_validate()`): an address is refused past
 * its limit; else it is counted, and a known account past its own limit is refused (`"user"`); else
 * it is counted too. Resolves the flood met, or null.
 */
async function passResetFlood(call: AccountCall, account: UserRecord | undefined): Promise<"ip" | "user" | null> {
  const { flood } = call.deps;
  const { settings, request } = call;
  if (!(await flood.isAllowed("pass_reset_ip", settings.passResetIpLimit, settings.passResetIpWindow, request.ip))) return "ip";
  await flood.register("pass_reset_ip", request.ip, settings.passResetIpWindow);
  if (account === undefined) return null;
  if (!(await flood.isAllowed("pass_reset_user", settings.passResetUserLimit, settings.passResetUserWindow, account.uid))) return "user";
  await flood.register("pass_reset_user", account.uid, settings.passResetUserWindow);
  return null;
}

/**
 * `POST user/request_new_password` (`_user_resource_request_new_password()`): mails an active
 * account, found by mail then by name, its one-time login link. With Drupal 7.101's form's flood
 * control; an unknown name is answered `[true]` and nothing sent (`unknownAccount: "hide"`), or with
 * Services' 406 (`"reveal"`). `[false]` when the mail could not be sent.
 */
export async function requestNewPassword(call: AccountCall, nameArgument: unknown): Promise<WireResponse> {
  const { users, emit } = call.deps;
  const { request } = call;
  const given = phpString(nameArgument);
  if (given === undefined) return servicesError(406, "An illegal value has been detected. Please contact the site administrator.");
  const name = phpTrim(given);
  const byMail = name === "" ? [] : await users.findByMail!(name);
  let account = byMail.find((user) => user.active);
  if (account === undefined && name !== "") {
    const byName = await users.findByName(name);
    account = byName?.active === true ? byName : undefined;
  }
  const flooded = await passResetFlood(call, account);
  emit({ type: "password.reset-requested", uid: account?.uid ?? null, ip: request.ip, flooded }, request.requestId);
  if (flooded === "ip") return servicesError(406, ipFloodMessage(call));
  const reveal = call.deps.unknownAccount === "reveal";
  if (flooded === "user") return reveal ? servicesError(406, userFloodMessage(call)) : jsonReply([true]);
  if (account === undefined) {
    return reveal ? servicesError(406, `Sorry, ${placeholder(name)} is not recognized as a user name or an e-mail address.`) : jsonReply([true]);
  }
  // Services answers the mail's result: `[false]` when it could not be sent, or the site sends none.
  return jsonReply([(await call.mail("password_reset", account)) === true]);
}

/** `POST user/{uid}/password_reset` (`_user_resource_password_reset()`): the account's one-time link, mailed; always `[true]`. Flood-limited as the form is, but for admins. */
export async function passwordReset(call: AccountCall, uid: string): Promise<WireResponse> {
  const account = await call.load(uid);
  if (account === null) return call.noSuchUser(uid);
  if (!(await call.can("administer users")) && (await passResetFlood(call, account)) !== null) return jsonReply([true]);
  await call.mail("password_reset", account);
  return jsonReply([true]);
}

/** A value PHP compares as a number with an integer (`"12"`, 12), as a whole number, else undefined. */
function phpNumber(value: unknown): number | undefined {
  const text = phpString(value);
  if (text === undefined || !/^\s*-?\d{1,15}\s*$/.test(text)) return undefined;
  return Number(text);
}

/**
 * `POST user/user_pass_reset` (`_user_resource_user_pass_reset_login()`): a one-time login link's
 * uid, timestamp and hash. Valid (an active account's, not older than its last login, not expired
 * unless it never logged in, its hash as Drupal makes it), it logs the account in: a new session,
 * `login` moved so the link dies, the account's password requests forgotten, and a
 * `pass_reset_token` to change the password without the current one.
 */
export async function userPassReset(call: AccountCall, uidArgument: unknown, timestampArgument: unknown, hashArgument: unknown): Promise<WireResponse> {
  const { context, request, settings } = call;
  const { flood, passResetTokens, emit } = call.deps;
  if (call.caller !== undefined) {
    if (call.caller.uid === loadableUid(uidArgument)) {
      return servicesError(403, `You are logged in as ${placeholder(call.caller.name)}. Please edit your profile to update your password.`);
    }
    const other = await call.load(uidArgument);
    if (other !== null) {
      return servicesError(
        405,
        `Another user (${placeholder(call.caller.name)}) is already logged into the site on this computer, but you tried to use a one-time link for user ${placeholder(other.name)}. Please logout and try using the link again.`,
      );
    }
    return servicesError(406, "The one-time login link you clicked is invalid.");
  }
  const now = context.now;
  const timestamp = phpNumber(timestampArgument);
  const found = await call.load(uidArgument);
  const account = found?.active === true ? found : undefined;
  if (timestamp === undefined || timestamp > now || account === undefined) return servicesError(403, "Access denied.");
  if (account.login !== 0 && now - timestamp > settings.passwordResetTimeout) {
    return servicesError(406, "You have tried to use a one-time login link that has expired. Please request a new one.");
  }
  const hash = phpString(hashArgument) ?? "";
  // The hash is of the timestamp as sent: a number written another way is another link.
  const expected = userPassRehash(account.passwordHash, phpString(timestampArgument)!, account.login, account.uid, account.mail, call.deps.hashSalt);
  if (!(timestamp >= account.login && safeEqual(hash, expected))) {
    return servicesError(406, "You have tried to use a one-time login link that has either been used or is no longer valid. Please request a new one.");
  }
  const opened = await call.openSession(account);
  // Drupal's own link page forgets the account's password requests and failed logins.
  await flood.clear("pass_reset_user", account.uid);
  await flood.clear("failed_login_attempt_user", settings.failedLoginIdentifierUidOnly ? account.uid : `${account.uid}-${request.ip}`);
  const token = await passResetTokens.issue(opened.sessid, account.uid);
  emit({ type: "password.reset-used", uid: account.uid, session: hashSessionId(opened.sessid), ip: request.ip }, request.requestId);
  return jsonReply(
    {
      pass_reset_token: token,
      message:
        "You have just used your one-time login link. It is no longer necessary to use this link to log in. <strong>Please change your password</strong>.",
    },
    { "Set-Cookie": openedSessionCookies(opened.sessid, context) },
  );
}
