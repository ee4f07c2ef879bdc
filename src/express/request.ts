import type { IncomingMessage } from "node:http";
import type { HttpRequest, RequestBody } from "../http-input/request.js";
import { originForm } from "../http-input/target.js";
import { readStream } from "../http-input/read-stream.js";

/** What the binding reads of an Express request, written out so no app needs Express's types. */
export interface ExpressRequest extends IncomingMessage {
  readonly secure: boolean;
  readonly ip?: string | undefined;
  readonly baseUrl?: string;
  readonly body?: unknown;
  /** The app's request id (pino-http and most request-id middleware set it). */
  readonly id?: unknown;
}

/** An Express request in the engine's one shape: the translation, and nothing else. */
export class ExpressHttpRequest implements HttpRequest {
  readonly #req: ExpressRequest;
  readonly target: string;

  /** @param target - The target relative to where the router is mounted: `req.url` unless given. */
  constructor(req: ExpressRequest, target: string = req.url ?? "/") {
    this.#req = req;
    this.target = originForm(target);
  }

  get method(): string {
    return this.#req.method ?? "GET";
  }

  get secure(): boolean {
    return this.#req.secure;
  }

  header(name: string): string | undefined {
    const value = this.#req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }

  headerNames(): Iterable<string> {
    return Object.keys(this.#req.headers);
  }

  clientAddress(): string | undefined {
    return this.#req.ip ?? this.#req.socket.remoteAddress;
  }

  /** `req.id`, as pino-http and most request-id middleware set it (cut to 128 characters). */
  requestId(): string | undefined {
    const own = this.#req.id;
    return typeof own === "string" || (typeof own === "number" && Number.isFinite(own)) ? String(own).slice(0, 128) || undefined : undefined;
  }

  /** The body from the stream; one a parser in front (`express.json()`, …) already consumed, as it parsed it. */
  body(limit: number): Promise<RequestBody> {
    const req = this.#req;
    const consumed = (req as { _body?: boolean })._body === true || req.readableEnded;
    if (consumed) return Promise.resolve({ parsed: req.body === undefined ? "" : req.body });
    return readStream(req, limit, this.header("content-length")).then((raw) => ({ raw }));
  }

  parsedBody(): unknown {
    return this.#req.body;
  }
}
