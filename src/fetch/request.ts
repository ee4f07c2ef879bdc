import type { CorsRequest } from "../cors/cors.js";
import type { EndpointRequest, RequestBody, ServicesRequest } from "../endpoint/endpoint.js";
import { csrfTokenOf } from "../sessions/csrf-token-of.js";
import type { NotFoundRequest } from "../endpoint/not-found.js";
import { servicesVersionHeader } from "../endpoint/routing.js";
import { SessionAuthError } from "../errors.js";
import { parseForm } from "../http-input/form.js";
import { LINGER_BYTES, LINGER_IDLE_MS, LINGER_MS } from "../http-input/linger-limits.js";
import { sentRequestId } from "../http-input/request-id.js";
import { plainAddress } from "../login/client-address.js";
import type { GuardRequest } from "../sessions/route-guard.js";
import type { SessionRequest } from "../sessions/sessions.js";
import { clientAddressOf, type TrustFunction } from "./trust-proxy.js";

/**
 * How a Web-standard `Request` is described to the engine: the translation, and nothing else.
 *
 * @module
 */

/**
 * What a `Request` does not carry: where it came from. Runtimes know it beside the request
 * (Deno's `info.remoteAddr`, Bun's `server.requestIP(req)`, Hono's `getConnInfo(c)`).
 */
export interface FetchRequestInfo {
  /**
   * The peer's IP address, as the runtime reports it: the client's, unless the handler's
   * `trustProxy` names it as a proxy (then the client is read from `X-Forwarded-For`). The
   * client's address keys the login throttle and the hashing queue and goes into the events.
   * Without one a request has no address: it gets no per-address login limit (the
   * per-account one still holds), is a client of its own in the hashing queue, and the first
   * such request raises `address.unknown`.
   */
  readonly clientAddress?: string | undefined;
  /**
   * The request's headers as the server already parsed them, lower-case names (Node's
   * `IncomingMessage.headers`: on @hono/node-server, `c.env.incoming.headers`). The guards read
   * these instead of `request.headers`, which @hono/node-server builds as a Web `Headers` on first
   * touch, validating every header: a quarter of a small protected request. They must be the
   * headers of this same request: not those of an outer request whose `env` a request of the
   * app's own making reuses (the Hono recipe passes them only when method and URL agree).
   * Only the guards read them; the Services calls read the `Request`.
   */
  readonly headers?: NodeHeaders | undefined;
  /**
   * Whether the connection itself is TLS, as the server knows it (Node: `incoming.socket.encrypted`).
   * When given, it is the scheme (unless a trusted proxy's `X-Forwarded-Proto` says otherwise)
   * rather than the URL's, which a server may build from what the client wrote: @hono/node-server
   * takes an absolute-form request line (`POST https://host/… HTTP/1.1`) as the URL, so a
   * plain-HTTP request could claim HTTPS.
   * @default the URL's scheme
   */
  readonly secure?: boolean | undefined;
}

/** Headers as Node's HTTP server parses them: lower-case names, a repeated one as an array or joined. */
export type NodeHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The request target as routing sees it: its path, and its query string without the `?` (`""` for none). */
export interface Target {
  readonly path: string;
  readonly query: string;
}

/** The path and query of a request's absolute URL, without parsing the whole URL (`new URL` on every request costs). */
export function targetOf(url: string): Target {
  const scheme = url.indexOf("://");
  const slash = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  if (slash === -1) return { path: "/", query: "" };
  const mark = url.indexOf("?", slash);
  const hash = url.indexOf("#", slash);
  const end = hash === -1 ? url.length : hash;
  return mark === -1 || mark > end ? { path: url.slice(slash, end), query: "" } : { path: url.slice(slash, mark), query: url.slice(mark + 1, end) };
}

/** One query-string parameter, the last one if repeated, as in PHP's `$_GET`; parseForm is linear whatever a client sends. */
export function queryParameter(query: string, name: string): string | undefined {
  return query === "" ? undefined : parseForm(Buffer.from(query))[name];
}

/** How a binding reads what the URL does not say: whether the request came over HTTPS, and from where. */
export interface Translation {
  /** The proxies to believe about the scheme and the client (`undefined`: none). */
  readonly trust: TrustFunction | undefined;
  readonly bodyLimit: number;
}

function isSecure(request: Request, trust: TrustFunction | undefined, info?: FetchRequestInfo): boolean {
  // X-Forwarded-Proto counts only when the peer itself is a proxy to believe, and then its
  // first value, exactly (an empty one: the URL's scheme), as Express's req.protocol reads it.
  const forwarded = trust !== undefined && trust(info?.clientAddress, 0) ? headerOf(request, info, "x-forwarded-proto") : undefined;
  if (forwarded !== undefined && forwarded !== "") return forwarded.split(",", 1)[0]!.trim() === "https";
  return info?.secure ?? request.url.startsWith("https:");
}

function hostOf(request: Request, info?: FetchRequestInfo): string {
  // A Request built by a server carries its Host header; one built by hand may not: its URL says.
  return headerOf(request, info, "host") ?? new URL(request.url).host;
}

function header(request: Request, name: string): string | undefined {
  return headerOf(request, undefined, name);
}

/** The client's address as the package shows and counts it: the peer's, or the one the proxies believed name. */
function clientIp(request: Request, info: FetchRequestInfo | undefined, trust: TrustFunction | undefined): string {
  const peer = info?.clientAddress;
  const forwardedFor = trust === undefined ? undefined : headerOf(request, info, "x-forwarded-for");
  return plainAddress(clientAddressOf(peer, forwardedFor, trust) ?? "");
}

/** What finding a request's session needs. */
export function sessionRequest(request: Request, trust: TrustFunction | undefined, info?: FetchRequestInfo): SessionRequest {
  return {
    host: hostOf(request),
    secure: isSecure(request, trust, info),
    cookieHeader: header(request, "cookie"),
    requestId: sentRequestId(request.headers.get("x-request-id")),
  };
}

/** A request to one of the Services calls. `query` is the original one: `services_token` may sit beside a `?q=`. */
export function servicesRequest(request: Request, info: FetchRequestInfo | undefined, trust: TrustFunction | undefined, query: string): ServicesRequest {
  return {
    ...sessionRequest(request, trust, info),
    method: request.method,
    ip: clientIp(request, info, trust),
    userAgent: header(request, "user-agent") ?? "",
    contentType: header(request, "content-type"),
    csrfHeader: header(request, "x-csrf-token"),
    queryToken: queryParameter(query, "services_token"),
    versionHeader: versionHeader(request.headers),
    accept: header(request, "accept"),
    origin: header(request, "origin"),
    fetchSite: header(request, "sec-fetch-site"),
  };
}

/** The `services_<resource>_<method>_version` headers, handed to the same reading the Express binding uses. */
function versionHeader(headers: Headers): string | undefined {
  let found: Record<string, string> | undefined;
  for (const [name, value] of headers) if (name.startsWith("services")) (found ??= {})[name] = value;
  return found === undefined ? undefined : servicesVersionHeader(found);
}

/** Where a path sits relative to the endpoint: below it (the rest of the path), or not (`undefined`). Case-insensitive, as Express's router matches it. */
export function belowEndpoint(path: string, endpointPath: string): string | undefined {
  if (path.length < endpointPath.length || path.slice(0, endpointPath.length).toLowerCase() !== endpointPath.toLowerCase()) return undefined;
  if (path.length === endpointPath.length) return "/";
  return path.charCodeAt(endpointPath.length) === 0x2f ? path.slice(endpointPath.length) : undefined;
}

/** What CORS reads of a request (from the server's parsed headers when `info` gives them). */
export function corsRequest(request: Request, info?: FetchRequestInfo): CorsRequest {
  return {
    method: request.method,
    origin: headerOf(request, info, "origin"),
    requestMethod: headerOf(request, info, "access-control-request-method"),
    requestHeaders: headerOf(request, info, "access-control-request-headers"),
  };
}

/** One header of a request: from the server's parsed headers when `info` gives them, else from the `Request`. */
function headerOf(request: Request, info: FetchRequestInfo | undefined, name: string): string | undefined {
  const parsed = info?.headers;
  if (parsed === undefined) return request.headers.get(name) ?? undefined;
  const value = parsed[name];
  // Node joins a repeated Cookie with "; " and keeps an array only for Set-Cookie; a hand-made record may hold one.
  return typeof value === "string" ? value : value?.join(name === "cookie" ? "; " : ", ");
}

/** A request no route answered, as far as routing goes: below the endpoint or at the site root. */
export function notFoundRequest(request: Request, target: Target, endpointPath: string): NotFoundRequest {
  const below = belowEndpoint(target.path, endpointPath);
  return {
    path: below ?? target.path,
    mounted: below !== undefined,
    method: request.method,
    methodOverride: header(request, "x-http-method-override"),
    methodParam: queryParameter(target.query, "_method"),
  };
}

/** A request below the endpoint's path (`path` is the rest of it), its body read only once routing asks for it. */
export function endpointRequest(request: Request, info: FetchRequestInfo | undefined, translation: Translation, path: string, query: string): EndpointRequest {
  return Object.assign(servicesRequest(request, info, translation.trust, query), {
    path,
    mounted: true,
    methodOverride: header(request, "x-http-method-override"),
    methodParam: queryParameter(query, "_method"),
    body: () => readBody(request, translation.bodyLimit),
  });
}

/**
 * A request to an app's own route behind a guard: what every check reads, at once (from the
 * server's parsed headers when `info` gives them); its id, its address and its token only when
 * used (an event, an unsafe method). One object of one class: this runs on every protected request.
 */
class GuardedRequest implements GuardRequest {
  readonly host: string;
  readonly secure: boolean;
  readonly cookieHeader: string | undefined;
  readonly method: string;
  readonly #request: Request;
  readonly #info: FetchRequestInfo | undefined;
  readonly #trust: TrustFunction | undefined;

  constructor(request: Request, info: FetchRequestInfo | undefined, trust: TrustFunction | undefined) {
    this.#request = request;
    this.#info = info;
    this.#trust = trust;
    this.host = hostOf(request, info);
    this.secure = isSecure(request, trust, info);
    this.cookieHeader = this.#header("cookie");
    this.method = request.method;
  }

  #header(name: string): string | undefined {
    return headerOf(this.#request, this.#info, name);
  }

  get requestId(): string | undefined {
    return sentRequestId(this.#header("x-request-id") ?? null);
  }

  ip(): string {
    return clientIp(this.#request, this.#info, this.#trust);
  }

  // A form body is the app's to read: the guard never consumes it, so only the header and the query count.
  csrfToken(): string | undefined {
    return csrfTokenOf({
      csrfHeader: this.#header("x-csrf-token"),
      queryToken: queryParameter(targetOf(this.#request.url).query, "services_token"),
      contentType: undefined,
      body: undefined,
    });
  }
}

/** A request to an app's own route behind a guard; its id, address and token are read only when used. */
export function guardRequest(request: Request, info: FetchRequestInfo | undefined, trust: TrustFunction | undefined): GuardRequest {
  return new GuardedRequest(request, info, trust);
}

/**
 * Reads a request body up to `limit` bytes: over it (declared, or counted as the stream
 * arrives), `ERR_BODY_TOO_LARGE` at once, nothing of it kept. A body something else
 * already read cannot be read again: that is a mistake in the app's order of handlers.
 */
async function readBody(request: Request, limit: number): Promise<RequestBody> {
  if (request.bodyUsed) throw new TypeError("services-session-auth/fetch: the request body was already read; let the session handler see the request first");
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    // A stream something else holds (and has not read) is left to it.
    if (request.body !== null && !request.body.locked) discardRest(request.body.getReader());
    throw new SessionAuthError("ERR_BODY_TOO_LARGE");
  }
  if (request.body === null) return { raw: Buffer.alloc(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let empty = 0;
  for (let read = 1; ; read++) {
    const { done, value } = await reader.read();
    if (done) return { raw: Buffer.concat(chunks, size) };
    size += value.byteLength;
    // Empty chunks are bounded too (more of them than the limit in bytes is no body anyone
    // sends), or an endless stream of them, one the app built, would be read forever.
    if (size > limit || (value.byteLength === 0 && ++empty > limit)) {
      discardRest(reader);
      throw new SessionAuthError("ERR_BODY_TOO_LARGE");
    }
    chunks.push(value);
    if (read % CHUNKS_PER_TURN === 0) await nextTurn();
  }
}

/**
 * Chunks read between two turns of the event loop. A stream that answers every read at once
 * (one the app or a framework built, a body held in memory) resolves each read as a
 * microtask, and would otherwise hold the event loop, timers included, until it ends; a
 * socket's stream waits for I/O long before.
 */
const CHUNKS_PER_TURN = 64;

/** A turn of the event loop: `setTimeout` is the one timer every runtime has. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Reads and throws away the rest of a refused upload while the 413 goes out, as the Express
 * router lingers: a client that writes its whole body before it reads (a raw socket, a
 * hybrid app's XHR) must get the reply, not a reset. A stream left unread stalls on Node
 * (@hono/node-server's adapter stops the socket when the stream's queue is full, then closes
 * the connection under the client), and cancelling it at once tears the connection down
 * before the reply is written. Bounded as the Express router's lingering is (bytes, time,
 * silence); past those, or when the connection fails, it stops.
 *
 * A stream that answers every read at once gets a turn of the event loop every
 * {@link CHUNKS_PER_TURN} chunks, and the time bound is also checked on the (monotonic) clock,
 * since no timer can fire while such reads resolve.
 */
function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  let discarded = 0;
  let chunks = 0;
  const deadline = performance.now() + LINGER_MS;
  const stop = () => void reader.cancel().catch(() => undefined);
  // Plain timers, armed anew: Deno's and Workers' setTimeout return a number, with no refresh() or unref().
  const timer = (ms: number) => {
    const made = setTimeout(stop, ms);
    (made as { unref?: () => void }).unref?.();
    return made;
  };
  const overall = timer(LINGER_MS);
  let idle = timer(LINGER_IDLE_MS);
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // A stream of the app's own making may carry chunks other than bytes: counted as one byte each at least.
        discarded += Math.max(1, Number(value?.byteLength) || 0);
        if (discarded > LINGER_BYTES || performance.now() > deadline) return stop();
        clearTimeout(idle);
        idle = timer(LINGER_IDLE_MS);
        if (++chunks % CHUNKS_PER_TURN === 0) await nextTurn();
      }
    } catch {
      // The connection went away, or a timer cancelled the stream: nothing is left to read.
    } finally {
      clearTimeout(overall);
      clearTimeout(idle);
    }
  })();
}
