import type { ServerResponse } from "node:http";
import { closeAfterReply } from "../http-input/linger.js";
import { writeHeaders, type HeaderRecord, type HeaderSetter } from "../http-output/headers.js";
import type { WireResponse } from "../wire/reply.js";

/** Node's setters of one response, for {@link writeHeaders}. */
export function setterOf(res: ServerResponse): HeaderSetter {
  return {
    get: (name) => {
      const had = res.getHeader(name);
      return had === undefined ? undefined : String(had);
    },
    set: (name, value) => void res.setHeader(name, value),
    append: (name, value) => void res.appendHeader(name, value),
  };
}

/** Adds headers to a reply, through the one header writer. */
export function addHeaders(res: ServerResponse, headers: HeaderRecord): void {
  writeHeaders(headers, setterOf(res));
}

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
