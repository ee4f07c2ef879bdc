import type { UserRecord } from "../../types.js";
import { jsonReply, type WireResponse } from "../../wire/reply.js";
import type { AccountCall } from "../account-call.js";
import { loadableUid } from "../account-call.js";
import { servicesError } from "../replies.js";
import { endSessionsAfterSave, mailStatusChange } from "./saved.js";

/** `_user_resource_access()` for the admin calls: the account must exist (404), and the caller administer users (403). */
async function adminAccess(call: AccountCall, uid: string): Promise<UserRecord | WireResponse> {
  const account = await call.load(uid);
  if (account === null) return call.noSuchUser(uid);
  return (await call.can("administer users")) ? account : call.accessDenied();
}

/** Deletes an account as `user_delete()`: its row and roles, and every session of it. */
async function deleteAccount(call: AccountCall, account: UserRecord): Promise<void> {
  await call.deps.users.deleteUser!(account.uid);
  await call.deps.sessions.endAll(account.uid, call.request.requestId);
  call.deps.emit({ type: "account.deleted", uid: account.uid, by: call.callerUid, ip: call.request.ip }, call.request.requestId);
}

/** `DELETE user/{uid}` (`_user_resource_delete()`): for admins; never uid 1. */
export async function deleteUser(call: AccountCall, uid: string): Promise<WireResponse> {
  const account = await adminAccess(call, uid);
  if (!("uid" in account)) return account;
  if (loadableUid(uid) === "1") return servicesError(403, "The admin user cannot be deleted.");
  await deleteAccount(call, account);
  return jsonReply([true]);
}

/**
 * `POST user/{uid}/cancel` (`_user_resource_cancel()`): for admins; never uid 1. The site's cancel
 * method: blocked (with or without unpublishing, which is the app's content to handle) or deleted;
 * the notice mail when the account or the site asks for it.
 */
export async function cancelUser(call: AccountCall, uid: string): Promise<WireResponse> {
  const account = await adminAccess(call, uid);
  if (!("uid" in account)) return account;
  if (loadableUid(uid) === "1") return servicesError(403, "The admin user cannot be canceled.");
  const data = account.fields?.data;
  const own = typeof data === "object" && data !== null ? (data as Record<string, unknown>).user_cancel_notify : undefined;
  const notify = own === undefined || own === null ? call.settings.cancelNotify : Boolean(own);
  const method = call.settings.cancelMethod;
  if (method === "user_cancel_reassign" || method === "user_cancel_delete") {
    if (notify) await call.mail("status_canceled", account);
    await deleteAccount(call, account);
    return jsonReply([true]);
  }
  if (notify) await call.mail("status_blocked", account);
  const write = await call.deps.users.updateUser!(account.uid, { active: false, changed: call.context.now, fields: { data: data ?? false } });
  if (write !== null && "user" in write) {
    call.deps.emit(
      { type: "account.updated", uid: account.uid, by: call.callerUid, changed: account.active ? ["status"] : [], ip: call.request.ip },
      call.request.requestId,
    );
    await endSessionsAfterSave(call, account, write.user, false);
    await mailStatusChange(call, account, write.user);
  }
  return jsonReply([true]);
}

/** `POST user/{uid}/resend_welcome_email`: for admins; the welcome mail of the site's registration policy again. */
export async function resendWelcomeEmail(call: AccountCall, uid: string): Promise<WireResponse> {
  const account = await adminAccess(call, uid);
  if (!("uid" in account)) return account;
  const op =
    call.settings.register === "admins"
      ? "register_admin_created"
      : call.settings.register === "visitors"
        ? "register_no_approval_required"
        : "register_pending_approval";
  await call.mail(op, account);
  return jsonReply([true]);
}
