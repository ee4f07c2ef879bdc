import type { Response } from "express";
import type { WireResponse } from "../wire/reply.js";
import { closeAfterReply } from "../http-input/linger.js";

/**
 * Copies a {@link WireResponse} onto Express's response with `res.end`, so Express adds
 * no `charset` to the Content-Type and no ETag: the bytes are exactly the wire reply. A
 * 413 closes the connection without losing itself to a reset (see {@link closeAfterReply}),
 * whichever path refused the body: the router, or an app's parser through the error handler.
 */
export function send(res: Response, wire: WireResponse): void {
  if (res.headersSent) return;
  res.statusCode = wire.status;
  if (wire.reason !== undefined) res.statusMessage = wire.reason;
  for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value as string | string[]);
  const body = wire.body ?? "";
  res.setHeader("Content-Length", Buffer.byteLength(body));
  if (wire.status === 413) closeAfterReply(res.req, res);
  res.end(body);
}

/** Adds `Set-Cookie` values to a reply the app itself will send (a guard's, `startSession`'s). */
export function appendCookies(res: Response, setCookie: readonly string[]): void {
  if (setCookie.length > 0) res.append("Set-Cookie", [...setCookie]);
}
