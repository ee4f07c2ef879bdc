import type { SessionAuthError, SessionAuthErrorCode } from "../errors.js";
import { checkPlain, placeholder } from "./html.js";

/** How one error code goes on the wire: the status, Drupal's message, and whether the body carries it. */
interface ErrorWire {
  readonly status: number;
  readonly message: (detail: string) => string;
  /** Routing and format errors have an empty body in Services (thrown before its `try`). */
  readonly emptyBody?: boolean;
}

/**
 * The single table from {@link SessionAuthErrorCode} to the Drupal 7 Services reply
 * (services 7.x-3.x `resources/user_resource.inc`, `RESTServer.inc`; reference §3).
 */
const ERROR_WIRE: Readonly<Record<SessionAuthErrorCode, ErrorWire>> = {
  ERR_INVALID_CREDENTIALS: { status: 401, message: () => "Wrong username or password." },
  ERR_MISSING_ARGUMENT: { status: 401, message: (name) => `Missing required argument ${name}` },
  ERR_CSRF: { status: 401, message: () => "CSRF validation failed" },
  ERR_ALREADY_LOGGED_IN: { status: 406, message: (name) => `Already logged in as ${checkPlain(name)}.` },
  ERR_NOT_LOGGED_IN: { status: 406, message: () => "User is not logged in." },
  ERR_ACCOUNT_BLOCKED: { status: 403, message: (name) => `The username ${placeholder(name)} has not been activated or is blocked.` },
  ERR_USER_THROTTLED: { status: 406, message: () => "Account is temporarily blocked." },
  ERR_IP_THROTTLED: { status: 406, message: () => "This IP address is temporarily blocked." },
  ERR_INVALID_JSON: { status: 400, message: () => "Invalid JSON." },
  ERR_UNSUPPORTED_CONTENT_TYPE: { status: 406, message: (mime) => `Unsupported request content type ${mime}` },
  ERR_BODY_TOO_LARGE: { status: 413, message: () => "Request body too large." },
  // Services' access check (services_access_menu callers) words it this way for anonymous and logged-in users.
  ERR_UNAUTHENTICATED: { status: 401, message: () => "Access denied for user anonymous" },
  ERR_FORBIDDEN: { status: 403, message: (name) => `Access denied for user ${checkPlain(name)}` },
  ERR_NO_CONTROLLER: { status: 404, message: () => "Could not find the controller.", emptyBody: true },
  ERR_NO_RESOURCE: { status: 404, message: (name) => `Could not find resource ${name}.`, emptyBody: true },
  // A path that cannot be decoded fails before any Services code runs, so no message body either.
  ERR_MALFORMED_REQUEST: { status: 400, message: () => "Malformed request.", emptyBody: true },
  ERR_STORE_UNAVAILABLE: { status: 503, message: () => "Service temporarily unavailable." },
  // Response-format negotiation fails before Services' try block, so neither has a body (RESTServer::getResponseFormatter).
  ERR_NOT_ACCEPTABLE: { status: 406, message: () => "Unknown or unsupported response format.", emptyBody: true },
  // Mimeparse throws a plain Exception (code 0) on a media range without a subtype; handleException makes it a 500.
  ERR_MALFORMED_ACCEPT: { status: 500, message: () => "An error occurred (0): malformed mime type", emptyBody: true },
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

/** A status line's reason phrase as Services builds it: `"<code text> : <message>"`, tags stripped, CR/LF removed. */
export function reasonPhrase(status: number, message: string): string {
  const text = CODE_TEXT[status] ?? "";
  const plain = message.replace(/[\r\n]/g, "").replace(/<[^>]*>/g, "");
  // Node refuses control and non-Latin-1 characters in a status line; replace, don't throw.
  const safe = plain.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?");
  return text === "" ? `: ${safe}` : `${text} : ${safe}`;
}

/** An error as it goes on the wire: status, reason phrase, and the JSON body (or none). */
export interface WireError {
  readonly status: number;
  readonly reason: string;
  readonly body: readonly [string] | null;
}

/** Maps a {@link SessionAuthError} to its Drupal status line and body. */
export function wireError(error: SessionAuthError): WireError {
  const wire = ERROR_WIRE[error.code];
  const message = wire.message(error.detail ?? "");
  return { status: wire.status, reason: reasonPhrase(wire.status, message), body: wire.emptyBody === true ? null : [message] };
}
