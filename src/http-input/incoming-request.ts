import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { readStream } from "./read-stream.js";
import type { HttpRequest, RequestBody } from "./request.js";

/**
 * A request Node's HTTP server parsed (an `IncomingMessage`), in the engine's one shape: what Node
 * itself knows; a binding adds what its framework decides (the scheme, the client, the request id).
 */
export abstract class IncomingHttpRequest implements HttpRequest {
  protected readonly raw: IncomingMessage;
  readonly #headers: IncomingHttpHeaders;
  readonly target: string;

  /**
   * @param target - The target relative to where the binding is mounted, in origin-form.
   * @param headers - The headers as the framework shows them: `raw.headers` unless it says otherwise.
   */
  constructor(raw: IncomingMessage, target: string, headers: IncomingHttpHeaders = raw.headers) {
    this.raw = raw;
    this.target = target;
    this.#headers = headers;
  }

  get method(): string {
    return this.raw.method ?? "GET";
  }

  abstract get secure(): boolean;
  abstract clientAddress(): string | undefined;
  abstract requestId(): string | undefined;
  abstract parsedBody(): unknown;

  header(name: string): string | undefined {
    const value = this.#headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    // Over HTTP/2 there is no Host: the authority stands for it.
    return first === undefined && name === "host" ? this.header(":authority") : first;
  }

  headerNames(): Iterable<string> {
    return Object.keys(this.#headers);
  }

  /** The body from the stream, refused past `limit` bytes. */
  body(limit: number): Promise<RequestBody> {
    return readStream(this.raw, limit, this.header("content-length")).then((raw) => ({ raw }));
  }
}
