import type { ServerResponse } from "node:http";
import type { WireResponse } from "../wire/reply.js";
import { writeHeaders, type HeaderSetter } from "./headers.js";

/** Node's setters of one response, for {@link writeHeaders}. */
export function nodeSetter(res: ServerResponse): HeaderSetter {
  return {
    get: (name) => res.getHeader(name)?.toString(),
    set: (name, value) => void res.setHeader(name, value),
    append: (name, value) => void res.appendHeader(name, value),
  };
}

/** Writes a {@link WireResponse} to Node's response with `res.end` (no charset or ETag added), unless a reply has started. */
export function writeReply(res: ServerResponse, wire: WireResponse): void {
  if (res.headersSent) return;
  res.statusCode = wire.status;
  if (wire.reason !== undefined) res.statusMessage = wire.reason;
  // Header by header rather than all in one writeHead: a logger reading res.getHeaders() on finish sees them.
  writeHeaders(wire.headers, nodeSetter(res));
  const body = wire.body ?? "";
  // A 204 (a preflight's answer) carries no Content-Length (RFC 9110 §8.6).
  if (wire.status !== 204) res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}
