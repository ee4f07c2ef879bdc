import { STATUS_CODES } from "node:http";
import { SessionAuthError } from "../errors.js";
import { errorReply, htmlHeaders, type WireResponse } from "./reply.js";

/** The parts of an HTTP error from Express, its router or body-parser (`http-errors`) that matter here. */
interface HttpErrorLike {
  readonly status?: unknown;
  readonly statusCode?: unknown;
  readonly type?: unknown;
}

/** The wire reply for a framework's or middleware's client error before the app's routes; `undefined` for anything else (a 500). */
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
