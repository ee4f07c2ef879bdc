import { setCookieHeader } from "../cookie/cookie-headers.js";
import { settingOver, type SessionContext } from "../sessions/sessions.js";
import { variantDeletionHeaders } from "../cookie/cookie-headers.js";
import { reasonPhrase } from "../wire/status.js";
import { jsonReply, type WireResponse } from "../wire/reply.js";

/**
 * A `services_error($message, $status, $data)` a callback throws, as the REST server answers it:
 * the status line `<code text> : <message>` (tags stripped; PHP drops the spaces that end it) and
 * the JSON body `[message]`, or `data` when given (`{"form_errors": …}`).
 */
export function servicesError(status: number, message: string, data?: unknown): WireResponse {
  const reply = jsonReply(data === undefined ? [message] : data);
  return { ...reply, status, reason: reasonPhrase(status, message).trimEnd() };
}

/** Drupal's 406 for a form that did not validate: every message in the status line, the messages by element in `form_errors`. */
export function formErrorReply(errors: ReadonlyArray<readonly [string, string]>): WireResponse {
  return servicesError(406, errors.map(([, message]) => message).join(" "), { form_errors: Object.fromEntries(errors) });
}

/** The `Set-Cookie` values of a session just opened: its cookie, and over cookies the request carried, their other places deleted. */
export function openedSessionCookies(sessid: string, context: Pick<SessionContext, "cookie" | "now" | "sent">): string[] {
  const { cookie, now, sent } = context;
  const set = setCookieHeader(cookie.name, sessid, cookie.attributes, now);
  return sent > 0 ? settingOver(set, variantDeletionHeaders(cookie)) : [set];
}
