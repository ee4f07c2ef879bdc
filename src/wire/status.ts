import type { SessionAuthError, SessionAuthErrorCode } from "../errors.js";
import { checkPlain, placeholder, stripTags } from "./html.js";

/** How one error code goes on the wire: the status, Drupal's message, and whether the body carries it. */
interface ErrorWire {
  readonly message: (detail: string) => string;
  /** Routing and format errors have an empty body in Services (thrown before its `try`). */
  readonly emptyBody?: boolean;
  /** Seconds for a `Retry-After` header, on a refusal that passes by itself. */
  readonly retryAfter?: number;
  /** A reason phrase of Drupal's own, where the reply does not come from Services. */
  readonly reason?: string;
}

/** The one table from {@link SessionAuthErrorCode} to Services' reply (`user_resource.inc`, `RESTServer.inc`). */
const ERROR_WIRE: Readonly<Record<SessionAuthErrorCode, ErrorWire>> = {
  ERR_INVALID_CREDENTIALS: { message: () => "Wrong username or password." },
  ERR_MISSING_ARGUMENT: { message: (name) => `Missing required argument ${name}` },
  ERR_CSRF: { message: () => "CSRF validation failed" },
  ERR_ALREADY_LOGGED_IN: { message: (name) => `Already logged in as ${checkPlain(name)}.` },
  ERR_NOT_LOGGED_IN: { message: () => "User is not logged in." },
  ERR_ACCOUNT_BLOCKED: { message: (name) => `The username ${placeholder(name)} has not been activated or is blocked.` },
  ERR_USER_THROTTLED: { message: () => "Account is temporarily blocked." },
  ERR_IP_THROTTLED: { message: () => "This IP address is temporarily blocked." },
  ERR_INVALID_JSON: { message: () => "Invalid JSON." },
  ERR_UNSUPPORTED_CONTENT_TYPE: { message: (mime) => `Unsupported request content type ${mime}` },
  ERR_BODY_TOO_LARGE: { message: () => "Request body too large." },
  // Services' access check (services_access_menu callers) words it this way for anonymous and logged-in users.
  ERR_UNAUTHENTICATED: { message: () => "Access denied for user anonymous" },
  ERR_FORBIDDEN: { message: (name) => `Access denied for user ${checkPlain(name)}` },
  ERR_NO_CONTROLLER: { message: () => "Could not find the controller.", emptyBody: true },
  ERR_NO_RESOURCE: { message: (name) => `Could not find resource ${name}.`, emptyBody: true },
  // Outside the endpoint, Drupal's drupal_not_found(): its status line, and no HTML page.
  ERR_PAGE_NOT_FOUND: { message: () => "Page not found", emptyBody: true, reason: "Not Found" },
  // A path that cannot be decoded fails before any Services code runs, so no message body either.
  ERR_MALFORMED_REQUEST: { message: () => "Malformed request.", emptyBody: true },
  ERR_STORE_UNAVAILABLE: { message: () => "Service temporarily unavailable.", retryAfter: 5 },
  // Not Drupal's: a store at its capacity refuses a new session rather than end someone else's.
  ERR_STORE_FULL: { message: () => "Too many open sessions: try again later.", retryAfter: 60 },
  // Not Drupal's: a login posted from another site's page (login CSRF). Worded as Services'
  // own access errors are, and giving nothing away about the account.
  ERR_CROSS_SITE_LOGIN: { message: () => "Access denied: cross-site login refused." },
  // Not Drupal's: more logins waiting for a password check than can be checked in time. The
  // wait depends on the queue, so the error carries its own Retry-After.
  ERR_LOGIN_BUSY: { message: () => "Too many logins at once: try again shortly." },
  // Response-format negotiation fails before Services' try block, so no body (RESTServer::getResponseFormatter).
  // Also an Accept that Mimeparse could not read, where Services answered a 500 (see negotiateFormat).
  ERR_NOT_ACCEPTABLE: { message: () => "Unknown or unsupported response format.", emptyBody: true },
};

/** The reason-phrase texts Services knows (`RESTServer.inc` handleException); other codes go out as the bare number. */
const CODE_TEXT: Readonly<Record<number, string>> = {
  200: "",
  204: "No Content",
  304: "Not Modified",
  401: "Unauthorized",
  404: "Not found",
  406: "Not Acceptable",
  // handleException's wording for an exception that is not a ServicesException.
  500: "Internal Server Error",
};

/** The most characters of a client's value an error repeats: Drupal names fit in 60, a 16 KB header is not echoed. */
const MAX_ECHOED = 128;

/** The most characters of a message that go into a status line, which some clients cap at a few KB with the headers. */
const MAX_REASON_MESSAGE = 256;

/**
 * A status line's reason phrase as Services builds it, `"<code text> : <message>"`, made safe in one
 * pass: CR/LF removed, tags stripped, 256 characters at most, non-Latin-1 and controls as `?`.
 *
 * @example
 * ```ts
 * reasonPhrase(401, "Wrong username or password."); // "Unauthorized : Wrong username or password."
 * res.statusMessage = reasonPhrase(404, `Could not find player ${req.params.id}.`); // no CR/LF can get through
 * ```
 */
export function reasonPhrase(status: number, message: string): string {
  const text = CODE_TEXT[status] ?? "";
  const plain = clip(stripTags(message.replace(/[\r\n]/g, "")), MAX_REASON_MESSAGE);
  // Node refuses control and non-Latin-1 characters in a status line; replace, don't throw.
  const safe = plain.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?");
  return text === "" ? `: ${safe}` : `${text} : ${safe}`;
}

/** The first `max` UTF-16 units of a text, never ending on half a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** An error as it goes on the wire: status, reason phrase, and the JSON body (or none). */
export interface WireError {
  readonly status: number;
  readonly reason: string;
  readonly body: readonly [string] | null;
  /** Seconds for a `Retry-After` header, if the refusal passes by itself. */
  readonly retryAfter: number | undefined;
}

/** Maps a {@link SessionAuthError} to its Drupal status line and body. */
export function wireError(error: SessionAuthError): WireError {
  const wire = ERROR_WIRE[error.code];
  const message = wire.message(clip(error.detail ?? "", MAX_ECHOED));
  const reason = wire.reason ?? reasonPhrase(error.status, message);
  return { status: error.status, reason, body: wire.emptyBody === true ? null : [message], retryAfter: wire.retryAfter };
}
