import { STATUS_CODES } from "node:http";
import { SessionAuthError } from "../errors.js";
import { errorReply, htmlHeaders, type WireResponse } from "./reply.js";

/** The parts of an HTTP error from Express, its router or body-parser (`http-errors`) that matter here. */
interface HttpErrorLike {
  readonly status?: unknown;
  readonly statusCode?: unknown;
  readonly type?: unknown;
}

/**
 * The wire reply for an error thrown in front of the app's routes by the framework or
 * another middleware: a path that cannot be percent-decoded is `ERR_MALFORMED_REQUEST`, a
 * body parser's invalid JSON or oversized upload the router's own `ERR_INVALID_JSON` /
 * `ERR_BODY_TOO_LARGE`, and any other client error (a `4xx` `status` or `statusCode`)
 * keeps its status, with Node's reason phrase and no body. Anything else is `undefined`:
 * not the client's mistake, so the caller answers and reports it as an internal error.
 */
export function foreignErrorReply(error: unknown): WireResponse | undefined {
  if (error instanceof URIError) return errorReply(new SessionAuthError("ERR_MALFORMED_REQUEST"));
  if (typeof error !== "object" || error === null) return undefined;
  const { status, statusCode, type } = error as HttpErrorLike;
  const code = typeof status === "number" ? status : typeof statusCode === "number" ? statusCode : undefined;
  if (type === "entity.parse.failed") return errorReply(new SessionAuthError("ERR_INVALID_JSON"));
  if (type === "entity.too.large" || code === 413) return errorReply(new SessionAuthError("ERR_BODY_TOO_LARGE"));
  if (code === undefined || !Number.isInteger(code) || code < 400 || code >= 500) return undefined;
  return { status: code, reason: STATUS_CODES[code], headers: htmlHeaders(), body: null };
}
