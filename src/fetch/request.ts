import type { HttpRequest, RequestBody } from "../http-input/request.js";
import { readWebBody } from "../http-input/read-web-stream.js";
import { clientAddressOf, type TrustFunction } from "../http-input/trust-proxy.js";

/** What a `Request` does not carry, as the runtime knows it beside the request (Deno's `info.remoteAddr`, Bun's `server.requestIP(req)`). */
export interface FetchRequestInfo {
  /** The peer's IP address, the client's unless `trustProxy` names a proxy; without it logins get no per-address limit. */
  readonly clientAddress?: string | undefined;
  /** This very request's headers as the server already parsed them (Node's `IncomingMessage.headers`), read instead of the `Request`'s. */
  readonly headers?: NodeHeaders | undefined;
  /** Whether the connection itself is TLS (Node: `socket.encrypted`). @default the URL's scheme */
  readonly secure?: boolean | undefined;
}

/** Headers as Node's HTTP server parses them: lower-case names, a repeated one as an array or joined. */
export type NodeHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The path and query of an absolute URL, without parsing it whole (`new URL` per request costs). */
export function targetOf(url: string): string {
  const scheme = url.indexOf("://");
  const slash = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  return slash === -1 ? "/" : url.slice(slash);
}

/** A Web-standard `Request` in the engine's one shape, with what the runtime says of it beside. */
export class FetchHttpRequest implements HttpRequest {
  readonly #request: Request;
  readonly #info: FetchRequestInfo | undefined;
  readonly #trust: TrustFunction | undefined;

  constructor(request: Request, info: FetchRequestInfo | undefined, trust: TrustFunction | undefined) {
    this.#request = request;
    this.#info = info;
    this.#trust = trust;
  }

  get method(): string {
    return this.#request.method;
  }

  get target(): string {
    return targetOf(this.#request.url);
  }

  get secure(): boolean {
    // X-Forwarded-Proto counts only when the peer itself is a proxy to believe, and then its
    // first value (an empty one: the URL's scheme), as Express's req.protocol reads it.
    const trust = this.#trust;
    const forwarded = trust !== undefined && trust(this.#info?.clientAddress, 0) ? this.header("x-forwarded-proto") : undefined;
    if (forwarded !== undefined && forwarded !== "") return forwarded.split(",", 1)[0]!.trim() === "https";
    return this.#info?.secure ?? this.#request.url.startsWith("https:");
  }

  header(name: string): string | undefined {
    const parsed = this.#info?.headers;
    let value: string | undefined;
    if (parsed === undefined) value = this.#request.headers.get(name) ?? undefined;
    else {
      const raw = parsed[name];
      // Node joins a repeated Cookie with "; " and keeps an array only for Set-Cookie; a hand-made record may hold one.
      value = typeof raw === "string" ? raw : raw?.join(name === "cookie" ? "; " : ", ");
    }
    // A Request built by hand may have no Host: its URL says.
    return value === undefined && name === "host" ? new URL(this.#request.url).host : value;
  }

  headerNames(): Iterable<string> {
    const parsed = this.#info?.headers;
    return parsed === undefined ? this.#request.headers.keys() : Object.keys(parsed);
  }

  clientAddress(): string | undefined {
    const peer = this.#info?.clientAddress;
    const trust = this.#trust;
    return trust === undefined ? peer : clientAddressOf(peer, this.header("x-forwarded-for"), trust);
  }

  requestId(): string | undefined {
    return undefined;
  }

  body(limit: number): Promise<RequestBody> {
    return readWebBody(this.#request, limit);
  }

  /** A form body is the app's to read: the guard never consumes it. */
  parsedBody(): unknown {
    return undefined;
  }
}
