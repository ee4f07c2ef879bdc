import type { FastifyReply, FastifyRequest } from "fastify";
import { writeHeaders, type HeaderSetter } from "../http-output/headers.js";
import { closeAfterReply } from "../http-input/linger.js";
import { IncomingHttpRequest } from "../http-input/incoming-request.js";
import { belowPrefix, originForm } from "../http-input/target.js";
import type { WireResponse } from "../wire/reply.js";

/** A Fastify request in the engine's shape, its target relative to the plugin's prefix; Fastify's `trustProxy` decides `protocol` and `ip`. */
export class FastifyHttpRequest extends IncomingHttpRequest {
  readonly #request: FastifyRequest;

  constructor(request: FastifyRequest, prefix: string) {
    const path = originForm(request.url);
    super(request.raw, belowPrefix(path, prefix) ?? path, request.headers);
    this.#request = request;
  }

  get secure(): boolean {
    return this.#request.protocol === "https";
  }

  clientAddress(): string | undefined {
    return this.#request.ip;
  }

  /** Fastify's request id (`req-1`, or the app's `genReqId`): the one its own log lines carry. */
  requestId(): string | undefined {
    return String(this.#request.id).slice(0, 128) || undefined;
  }

  parsedBody(): unknown {
    return this.#request.body;
  }
}

/** Sends a {@link WireResponse} with Services' reason phrase, the body as a Buffer (no charset added), a 413 lingering. */
export function send(reply: FastifyReply, wire: WireResponse): FastifyReply {
  reply.code(wire.status);
  if (wire.reason !== undefined) reply.raw.statusMessage = wire.reason;
  writeHeaders(wire.headers, setterOf(reply));
  if (wire.status === 413) closeAfterReply(reply.request.raw, reply.raw);
  return reply.send(Buffer.from(wire.body ?? ""));
}

/** Fastify's setters of one reply, for {@link writeHeaders}: `reply.header` adds a `Set-Cookie` to those there. */
export function setterOf(reply: FastifyReply): HeaderSetter {
  return {
    get: (name) => reply.getHeader(name)?.toString(),
    set: (name, value) => void reply.header(name, value),
    append: (name, value) => void reply.header(name, value),
  };
}
