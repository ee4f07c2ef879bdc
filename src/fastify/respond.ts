import type { FastifyReply } from "fastify";
import { mergeVary } from "../cors/cors.js";
import { closeAfterReply } from "../http-input/linger.js";
import type { WireResponse } from "../wire/reply.js";

/**
 * Sends a {@link WireResponse} with Fastify's reply: the status, Services' reason phrase on
 * the status line, the headers (each `Set-Cookie` its own), and the body's bytes as they
 * are. A 413 closes the connection without losing itself to a reset (see {@link closeAfterReply}).
 */
export function send(reply: FastifyReply, wire: WireResponse): FastifyReply {
  reply.code(wire.status);
  if (wire.reason !== undefined) reply.raw.statusMessage = wire.reason;
  addHeaders(reply, wire.headers);
  // The same closing as on Express: the 413 reaches a client still uploading, not a reset.
  if (wire.status === 413) closeAfterReply(reply.request.raw, reply.raw);
  // A Buffer, not a string: Fastify appends "; charset=utf-8" to the Content-Type of a string.
  return reply.send(Buffer.from(wire.body ?? ""));
}

/** Adds `Set-Cookie` values to the reply the app's route will send (a guard's, `startSession`'s). */
export function appendCookies(reply: FastifyReply, setCookie: readonly string[]): void {
  for (const cookie of setCookie) reply.header("Set-Cookie", cookie);
}

/**
 * Sets headers on a reply (each `Set-Cookie` its own), keeping what an earlier step already
 * put in `Vary`: CORS's `Origin`, set by the `onRequest` hook, and the endpoint's `Accept`
 * both belong there.
 */
export function addHeaders(reply: FastifyReply, headers: Readonly<Record<string, string | readonly string[]>>): void {
  for (const name in headers) {
    const value = headers[name]!;
    const had = name === "Vary" ? reply.getHeader("vary") : undefined;
    reply.header(name, typeof had === "string" ? mergeVary(had, value as string) : (value as string | string[]));
  }
}
