import type { Response } from "express";
import type { WireResponse } from "../drupal/wire.js";

/**
 * Copies a {@link WireResponse} onto Express's response with `res.end`, so Express adds
 * no `charset` to the Content-Type and no ETag: the bytes are exactly the wire reply.
 */
export function send(res: Response, wire: WireResponse): void {
  if (res.headersSent) return;
  res.statusCode = wire.status;
  if (wire.reason !== undefined) res.statusMessage = wire.reason;
  for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value as string | string[]);
  const body = wire.body ?? "";
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}
