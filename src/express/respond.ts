import type { Response } from "express";
import { mergeVary } from "../cors/cors.js";
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
  // Header by header rather than all in one writeHead: Node would then write them without
  // keeping them, and a logger reading res.getHeaders() on finish would see none.
  addHeaders(res, wire.headers);
  const body = wire.body ?? "";
  // A 204 (a preflight's answer) carries no Content-Length (RFC 9110 §8.6), as Node, Fastify and fetch servers send it.
  if (wire.status !== 204) res.setHeader("Content-Length", Buffer.byteLength(body));
  if (wire.status === 413) closeAfterReply(res.req, res);
  res.end(body);
}

/** Adds `Set-Cookie` values to a reply the app itself will send (a guard's, `startSession`'s). */
export function appendCookies(res: Response, setCookie: readonly string[]): void {
  if (setCookie.length > 0) res.append("Set-Cookie", [...setCookie]);
}

/**
 * Sets headers on a reply, keeping what an earlier step already put in `Vary` (CORS's
 * `Origin` and the endpoint's `Accept` both belong there).
 */
export function addHeaders(res: Response, headers: Readonly<Record<string, string | readonly string[]>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (name === "Vary") {
      const had = res.getHeader("Vary");
      if (had !== undefined) {
        res.setHeader("Vary", mergeVary(String(had), String(value)));
        continue;
      }
    }
    res.setHeader(name, value as string | string[]);
  }
}
