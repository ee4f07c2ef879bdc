import type { FastifyReply } from "fastify";
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
  for (const name in wire.headers) reply.header(name, wire.headers[name] as string | string[]);
  // The same closing as on Express: the 413 reaches a client still uploading, not a reset.
  if (wire.status === 413) closeAfterReply(reply.request.raw, reply.raw);
  // A Buffer, not a string: Fastify appends "; charset=utf-8" to the Content-Type of a string.
  return reply.send(Buffer.from(wire.body ?? ""));
}

/** Adds `Set-Cookie` values to the reply the app's route will send (a guard's, `startSession`'s). */
export function appendCookies(reply: FastifyReply, setCookie: readonly string[]): void {
  for (const cookie of setCookie) reply.header("Set-Cookie", cookie);
}
