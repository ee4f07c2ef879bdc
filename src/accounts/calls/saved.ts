import type { UserRecord } from "../../types.js";
import type { AccountCall } from "../account-call.js";

/**
 * What `user_save()` does to sessions after a save: a blocked account loses them all; a new
 * password ends every other session of the account, the caller's own staying (Drupal regenerates it).
 */
export async function endSessionsAfterSave(call: AccountCall, before: UserRecord, after: UserRecord, passwordChanged: boolean): Promise<void> {
  const { sessions } = call.deps;
  if (before.active && !after.active) {
    await sessions.endAll(after.uid, call.request.requestId);
    return;
  }
  if (!passwordChanged) return;
  const { state } = call.context;
  const keep = state.kind === "live" && state.user.uid === after.uid ? state.session.handle : undefined;
  await sessions.endOthers(after.uid, keep, call.request.requestId);
}

/** `user_save()`'s mail when an account's status changes: `status_activated` or `status_blocked` (off by default). */
export async function mailStatusChange(call: AccountCall, before: UserRecord, after: UserRecord): Promise<void> {
  if (before.active === after.active) return;
  await call.mail(after.active ? "status_activated" : "status_blocked", after);
}
