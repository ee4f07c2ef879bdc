import { STATUS_CODES } from "node:http";
import { SessionAuthError } from "../errors.js";
import { htmlHeaders, type WireResponse } from "../wire/reply.js";

/** An Express, router or body-parser client error as the wire format's (for the engine); `undefined` for anything else (a 500). */
export function expressError(error: unknown): SessionAuthError | WireResponse | undefined {
  if (error instanceof URIError) return new SessionAuthError("ERR_MALFORMED_REQUEST");
  if (typeof error !== "object" || error === null) return undefined;
  // What matters of an HTTP error from Express, its router or body-parser (`http-errors`).
  const { status, statusCode, type } = error as { status?: unknown; statusCode?: unknown; type?: unknown };
  const code = typeof status === "number" ? status : typeof statusCode === "number" ? statusCode : undefined;
  if (type === "entity.parse.failed") return new SessionAuthError("ERR_INVALID_JSON");
  if (type === "entity.too.large" || code === 413) return new SessionAuthError("ERR_BODY_TOO_LARGE");
  if (code === undefined || !Number.isInteger(code) || code < 400 || code >= 500) return undefined;
  return { status: code, reason: STATUS_CODES[code], headers: htmlHeaders(), body: null };
}
