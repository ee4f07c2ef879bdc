import { isSessionAuthError } from "../errors.js";
import { encodeJson } from "./json.js";
import { wireError } from "./status.js";

/** A response as the wire needs it, framework-free: the Express binding only copies it out. */
export interface WireResponse {
  readonly status: number;
  /** The reason phrase of the status line, when Services sends its own (`Unauthorized : …`). */
  readonly reason?: string;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** The body, already encoded; `null` for none. */
  readonly body: string | null;
}

/** The headers on every JSON reply. `no-store` replaces Drupal's `no-cache, must-revalidate`: these replies carry session ids and tokens. */
export function jsonHeaders(extra?: Readonly<Record<string, string | readonly string[]>>): Record<string, string | readonly string[]> {
  return {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    Expires: "Sun, 19 Nov 1978 05:00:00 GMT",
    "X-Content-Type-Options": "nosniff",
    ...extra,
  };
}

/** A 200 JSON reply in Drupal's encoding. */
export function jsonReply(value: unknown, extra?: Readonly<Record<string, string | readonly string[]>>): WireResponse {
  return { status: 200, headers: jsonHeaders(extra), body: encodeJson(value) };
}

/**
 * Any thrown value as a wire reply: a SessionAuthError by the status table, anything else
 * a 500 with no body, as Services answers a non-Services exception. Never a stack trace.
 */
export function errorReply(error: unknown, extra?: Readonly<Record<string, string | readonly string[]>>): WireResponse {
  if (!isSessionAuthError(error)) {
    return { status: 500, reason: "Internal Server Error : An error occurred.", headers: jsonHeaders(extra), body: null };
  }
  const wire = wireError(error);
  // The table's wait for the code, unless the error knows better (a queue's own estimate).
  const retryAfter = error.retryAfter ?? wire.retryAfter;
  const headers = retryAfter === undefined ? jsonHeaders(extra) : jsonHeaders({ "Retry-After": String(retryAfter), ...extra });
  return { status: wire.status, reason: wire.reason, headers, body: wire.body === null ? null : encodeJson(wire.body) };
}
