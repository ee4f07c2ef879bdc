import type { HttpRequest, RequestBody } from "../http-input/request.js";
import { readWebBody } from "../http-input/read-web-stream.js";
import { clientAddressOf, type TrustFunction } from "../http-input/trust-proxy.js";

/**
 * What a runtime hands a fetch handler beside the `Request` (Hono's `c.env`), read for the peer's address
 * and the connection's TLS: Node's `{ incoming }` (node:http, @hono/node-server), Bun's server, Deno's handler info.
 */
export interface RuntimeEnv {
  /** Node: the `IncomingMessage` the request came as. */
  readonly incoming?: { readonly socket?: { readonly remoteAddress?: string | undefined; readonly encrypted?: boolean } | null } | undefined;
  /** Bun: `server.requestIP(request)`. */
  requestIP?(request: Request): { readonly address?: string } | null;
  /** Deno: the handler's `info.remoteAddr`. */
  readonly remoteAddr?: { readonly hostname?: string } | undefined;
}

/** The peer's address as the runtime gives it: Node's socket, Bun's `requestIP`, Deno's `remoteAddr`; `undefined` elsewhere. */
export function peerAddress(request: Request, env: RuntimeEnv | undefined): string | undefined {
  if (env === undefined || env === null) return undefined;
  if (env.incoming !== undefined) return env.incoming.socket?.remoteAddress;
  return typeof env.requestIP === "function" ? (env.requestIP(request)?.address ?? undefined) : env.remoteAddr?.hostname;
}

/** The path and query of an absolute URL, without parsing it whole (`new URL` per request costs). */
export function targetOf(url: string): string {
  const scheme = url.indexOf("://");
  const slash = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  return slash === -1 ? "/" : url.slice(slash);
}

/** A Web-standard `Request` in the engine's one shape; the peer and the TLS of the connection from the runtime's env. */
export class WebHttpRequest implements HttpRequest {
  readonly #request: Request;
  readonly #env: RuntimeEnv | undefined;
  readonly #peer: () => string | undefined;
  readonly #trust: TrustFunction | undefined;

  /** @param peer - The peer's address, read only when needed (the app's `clientAddress`, else the runtime's). */
  constructor(request: Request, env: RuntimeEnv | undefined, peer: () => string | undefined, trust: TrustFunction | undefined) {
    this.#request = request;
    this.#env = env;
    this.#peer = peer;
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
    const forwarded = trust !== undefined && trust(this.#peer(), 0) ? this.header("x-forwarded-proto") : undefined;
    if (forwarded !== undefined && forwarded !== "") return forwarded.split(",", 1)[0]!.trim() === "https";
    // The socket's word, not the URL's, where there is one: a request line's absolute form could claim HTTPS.
    const socket = this.#env?.incoming?.socket;
    return socket === undefined || socket === null ? this.#request.url.startsWith("https:") : socket.encrypted === true;
  }

  header(name: string): string | undefined {
    const value = this.#request.headers.get(name) ?? undefined;
    // A Request built by hand may have no Host: its URL says.
    return value === undefined && name === "host" ? new URL(this.#request.url).host : value;
  }

  headerNames(): Iterable<string> {
    return this.#request.headers.keys();
  }

  clientAddress(): string | undefined {
    const trust = this.#trust;
    return trust === undefined ? this.#peer() : clientAddressOf(this.#peer(), this.header("x-forwarded-for"), trust);
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
