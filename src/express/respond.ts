import type { ServerResponse } from "node:http";
import { mergeVary, type HeaderRecord } from "../http-input/headers.js";
import { closeAfterReply } from "../http-input/linger.js";
import type { WireResponse } from "../wire/reply.js";

/** Writes a {@link WireResponse} with `res.end`, so Express adds no charset or ETag; a 413 lingers ({@link closeAfterReply}). */
export function send(res: ServerResponse, wire: WireResponse): void {
  if (res.headersSent) return;
  res.statusCode = wire.status;
  if (wire.reason !== undefined) res.statusMessage = wire.reason;
  // Header by header rather than all in one writeHead: a logger reading res.getHeaders() on finish sees them.
  addHeaders(res, wire.headers);
  const body = wire.body ?? "";
  // A 204 (a preflight's answer) carries no Content-Length (RFC 9110 §8.6).
  if (wire.status !== 204) res.setHeader("Content-Length", Buffer.byteLength(body));
  if (wire.status === 413) closeAfterReply(res.req, res);
  res.end(body);
}

/** Adds headers to a reply, `Set-Cookie` values appended and `Vary` merged with what an earlier step put there. */
export function addHeaders(res: ServerResponse, headers: HeaderRecord): void {
  for (const name in headers) {
    const value = headers[name]!;
    const had = name === "Vary" || name === "Set-Cookie" ? res.getHeader(name) : undefined;
    if (had === undefined) res.setHeader(name, value);
    else if (name === "Vary") res.setHeader(name, mergeVary(String(had), String(value)));
    else res.setHeader(name, [...(Array.isArray(had) ? had : [String(had)]), ...(typeof value === "string" ? [value] : value)]);
  }
}
