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

/** The headers every reply carries. `no-store` replaces Drupal's `no-cache, must-revalidate`: these replies carry session ids and tokens. */
function commonHeaders(contentType: string, extra?: Readonly<Record<string, string | readonly string[]>>): Record<string, string | readonly string[]> {
  return {
    "Content-Type": contentType,
    "Cache-Control": "no-store",
    Expires: "Sun, 19 Nov 1978 05:00:00 GMT",
    "X-Content-Type-Options": "nosniff",
    ...extra,
  };
}

/** The headers on every JSON reply: `application/json` exactly, as Services' JSON formatter sets it. */
function jsonHeaders(extra?: Readonly<Record<string, string | readonly string[]>>): Record<string, string | readonly string[]> {
  return commonHeaders("application/json", extra);
}

/** Headers of a reply Services gave no Content-Type (routing and format errors, HEAD, OPTIONS, the root): PHP's `text/html; charset=UTF-8`. */
export function htmlHeaders(extra?: Readonly<Record<string, string | readonly string[]>>): Record<string, string | readonly string[]> {
  return commonHeaders("text/html; charset=UTF-8", extra);
}

/** The headers of `services/session/token`: Drupal's `text/plain` as PHP's default charset writes it, without a space. */
export function textHeaders(extra?: Readonly<Record<string, string | readonly string[]>>): Record<string, string | readonly string[]> {
  return commonHeaders("text/plain;charset=UTF-8", extra);
}

/** A 200 JSON reply in Drupal's encoding. */
export function jsonReply(value: unknown, extra?: Readonly<Record<string, string | readonly string[]>>): WireResponse {
  return { status: 200, headers: jsonHeaders(extra), body: encodeJson(value) };
}

/** Any thrown value as a wire reply: a SessionAuthError by the status table, else a body-less 500; never a stack. */
export function errorReply(error: unknown, extra?: Readonly<Record<string, string | readonly string[]>>): WireResponse {
  if (!isSessionAuthError(error)) {
    return { status: 500, reason: "Internal Server Error : An error occurred.", headers: htmlHeaders(extra), body: null };
  }
  const wire = wireError(error);
  // The table's wait for the code, unless the error knows better (a queue's own estimate).
  const retryAfter = error.retryAfter ?? wire.retryAfter;
  const headers = retryAfter === undefined ? extra : { "Retry-After": String(retryAfter), ...extra };
  if (wire.body === null) return { status: wire.status, reason: wire.reason, headers: htmlHeaders(headers), body: null };
  return { status: wire.status, reason: wire.reason, headers: jsonHeaders(headers), body: encodeJson(wire.body) };
}
