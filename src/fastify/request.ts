import type { FastifyReply, FastifyRequest } from "fastify";
import { writeHeaders, type HeaderRecord, type HeaderSetter } from "../http-output/headers.js";
import { closeAfterReply } from "../http-input/linger.js";
import { readStream } from "../http-input/read-stream.js";
import type { HttpRequest, RequestBody } from "../http-input/request.js";
import { originForm } from "../http-input/target.js";
import type { WireResponse } from "../wire/reply.js";

/** The target as Fastify's router sees it below `prefix` (`/api?q=x` is `/?q=x`); `undefined` when it is not below it. */
export function belowPrefix(target: string, prefix: string): string | undefined {
  if (!target.startsWith(prefix)) return undefined;
  const rest = target.slice(prefix.length);
  return rest === "" || rest[0] === "?" ? `/${rest}` : rest[0] === "/" ? rest : undefined;
}

/** A Fastify request in the engine's shape, its target relative to the plugin's prefix; `trustProxy` decides `ip`. */
export class FastifyHttpRequest implements HttpRequest {
  readonly #request: FastifyRequest;
  readonly target: string;

  constructor(request: FastifyRequest, prefix: string) {
    this.#request = request;
    const path = originForm(request.url);
    this.target = belowPrefix(path, prefix) ?? path;
  }

  get method(): string {
    return this.#request.method;
  }

  get secure(): boolean {
    return this.#request.protocol === "https";
  }

  header(name: string): string | undefined {
    const value = this.#request.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    // Over HTTP/2 there is no Host: the authority stands for it.
    return first === undefined && name === "host" ? this.header(":authority") : first;
  }

  headerNames(): Iterable<string> {
    return Object.keys(this.#request.headers);
  }

  clientAddress(): string | undefined {
    return this.#request.ip;
  }

  /** Fastify's request id (`req-1`, or the app's `genReqId`): the one its own log lines carry. */
  requestId(): string | undefined {
    return String(this.#request.id).slice(0, 128) || undefined;
  }

  body(limit: number): Promise<RequestBody> {
    return readStream(this.#request.raw, limit, this.header("content-length")).then((raw) => ({ raw }));
  }

  parsedBody(): unknown {
    return this.#request.body;
  }
}

/** Sends a {@link WireResponse} with Services' reason phrase, the body as a Buffer (no charset added), a 413 lingering. */
export function send(reply: FastifyReply, wire: WireResponse): FastifyReply {
  reply.code(wire.status);
  if (wire.reason !== undefined) reply.raw.statusMessage = wire.reason;
  addHeaders(reply, wire.headers);
  if (wire.status === 413) closeAfterReply(reply.request.raw, reply.raw);
  return reply.send(Buffer.from(wire.body ?? ""));
}

/** Fastify's setters of one reply, for {@link writeHeaders}: `reply.header` adds a `Set-Cookie` to those there. */
export function setterOf(reply: FastifyReply): HeaderSetter {
  return {
    get: (name) => {
      const had = reply.getHeader(name);
      return had === undefined ? undefined : String(had);
    },
    set: (name, value) => void reply.header(name, value),
    append: (name, value) => void reply.header(name, value),
  };
}

/** Adds headers to the reply, through the one header writer. */
export function addHeaders(reply: FastifyReply, headers: HeaderRecord): void {
  writeHeaders(headers, setterOf(reply));
}
