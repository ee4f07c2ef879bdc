import type { FastifyReply } from "fastify";
import type { WireResponse } from "../wire/reply.js";

/**
 * Sends a {@link WireResponse} with Fastify's reply: the status, Services' reason phrase on
 * the status line, the headers (each `Set-Cookie` its own), and the body's bytes as they are. A 413 closes the connection:
 * the rest of the upload is never read.
 */
export function send(reply: FastifyReply, wire: WireResponse): FastifyReply {
  reply.code(wire.status);
  if (wire.reason !== undefined) reply.raw.statusMessage = wire.reason;
  for (const name in wire.headers) reply.header(name, wire.headers[name] as string | string[]);
  if (wire.status === 413) reply.header("Connection", "close");
  // A Buffer, not a string: Fastify appends "; charset=utf-8" to the Content-Type of a string.
  return reply.send(Buffer.from(wire.body ?? ""));
}

/** Adds `Set-Cookie` values to the reply the app's route will send (a guard's, `startSession`'s). */
export function appendCookies(reply: FastifyReply, setCookie: readonly string[]): void {
  for (const cookie of setCookie) reply.header("Set-Cookie", cookie);
}
