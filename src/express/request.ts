import type { Request } from "express";
import type { CorsRequest } from "../cors/cors.js";
import { plainAddress } from "../login/client-address.js";
import { csrfTokenOf } from "../sessions/csrf-token-of.js";
import type { GuardRequest } from "../sessions/route-guard.js";
import type { SessionRequest } from "../sessions/sessions.js";
import { parseForm } from "../http-input/form.js";
import { readStream } from "../http-input/read-stream.js";
import { sentRequestId } from "../http-input/request-id.js";
import type { EndpointRequest, RequestBody, ServicesRequest } from "../endpoint/endpoint.js";
import type { NotFoundRequest } from "../endpoint/not-found.js";
import { servicesVersionHeader } from "../endpoint/routing.js";

/**
 * How an Express request is described to the engine: the translation, and nothing else.
 *
 * @module
 */

/** One request header's value (the first, if repeated). */
function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * One query-string parameter, read without Express's query parser (whose shape differs
 * between Express 4 and 5). Repeated, the last one counts, as in PHP's `$_GET`.
 */
function queryParameter(req: Request, name: string): string | undefined {
  const url = req.originalUrl ?? req.url;
  const mark = url.indexOf("?");
  if (mark === -1) return undefined;
  // parseForm, not URLSearchParams: linear on a query of many short pairs, and PHP's $_GET cap of 1,000 pairs.
  return parseForm(Buffer.from(url.slice(mark + 1)))[name];
}

/** The client's address, as Express reports it (honouring `trust proxy`), an IPv4 one as Drupal shows it (no `::ffff:`). */
function clientIp(req: Request): string {
  return plainAddress(req.ip ?? req.socket.remoteAddress ?? "");
}

/** What finding a request's session needs: its `Host`, whether it came over HTTPS (`trust proxy` decides), its cookies; and its id, for the events. */
export function sessionRequest(req: Request): SessionRequest {
  return { host: header(req, "host") ?? "", secure: req.secure, cookieHeader: header(req, "cookie"), requestId: requestId(req) };
}

/**
 * The request's id: `req.id`, as pino-http and most request-id middleware set it (the app's
 * own, cut to 128 characters), else the `X-Request-Id` header when it looks like an id.
 */
export function requestId(req: Request): string | undefined {
  const own = (req as Request & { id?: unknown }).id;
  if (typeof own === "string" || (typeof own === "number" && Number.isFinite(own))) return String(own).slice(0, 128) || undefined;
  return sentRequestId(header(req, "x-request-id"));
}

/** What every request the engine decides carries: where it went, its cookies, its id and its method. */
function requestOf(req: Request): SessionRequest & { readonly method: string } {
  return { host: header(req, "host") ?? "", secure: req.secure, cookieHeader: header(req, "cookie"), requestId: requestId(req), method: req.method };
}

/** A request to one of the Services calls. */
export function servicesRequest(req: Request): ServicesRequest {
  // Filled in place rather than spread into a new object: this runs on every call of the endpoint.
  return Object.assign(requestOf(req), {
    ip: clientIp(req),
    userAgent: header(req, "user-agent") ?? "",
    contentType: header(req, "content-type"),
    csrfHeader: header(req, "x-csrf-token"),
    queryToken: queryParameter(req, "services_token"),
    versionHeader: servicesVersionHeader(req.headers),
    accept: header(req, "accept"),
    origin: header(req, "origin"),
    fetchSite: header(req, "sec-fetch-site"),
  });
}

/** What CORS reads of a request. */
export function corsRequest(req: Request): CorsRequest {
  return {
    method: req.method,
    origin: header(req, "origin"),
    requestMethod: header(req, "access-control-request-method"),
    requestHeaders: header(req, "access-control-request-headers"),
  };
}

/** A request no route answered, as far as routing goes; `below`, its path below the endpoint when Express did not mount it there. */
export function notFoundRequest(req: Request, below?: string): NotFoundRequest {
  return {
    path: below ?? req.path,
    // Express strips the mount path into baseUrl: none means the site root, outside any endpoint.
    mounted: below !== undefined || req.baseUrl !== "",
    method: req.method,
    methodOverride: header(req, "x-http-method-override"),
    methodParam: queryParameter(req, "_method"),
  };
}

/**
 * A request that reached the endpoint, with its body read only once routing asks for it.
 * `below` is its path below the endpoint when the router did not mount it there (see the
 * router's entry); else Express's mount gives it.
 */
export function endpointRequest(req: Request, bodyLimit: number, below?: string): EndpointRequest {
  // One object, filled in place: copying into a third cost a visible share of a login.
  return Object.assign(servicesRequest(req), notFoundRequest(req, below), { body: () => readBody(req, bodyLimit) });
}

/**
 * A request to an app's own route behind a guard: what every check reads, at once; its id, its
 * address and its token only when used (an event, an unsafe method). One object of one class,
 * with nothing made per request beyond it: this runs on every protected request.
 */
class GuardedRequest implements GuardRequest {
  readonly host: string;
  readonly secure: boolean;
  readonly cookieHeader: string | undefined;
  readonly method: string;
  readonly #req: Request;

  constructor(req: Request) {
    this.#req = req;
    this.host = header(req, "host") ?? "";
    this.secure = req.secure;
    this.cookieHeader = header(req, "cookie");
    this.method = req.method;
  }

  get requestId(): string | undefined {
    return requestId(this.#req);
  }

  ip(): string {
    return clientIp(this.#req);
  }

  csrfToken(): string | undefined {
    const req = this.#req;
    return csrfTokenOf({
      csrfHeader: header(req, "x-csrf-token"),
      queryToken: queryParameter(req, "services_token"),
      contentType: header(req, "content-type"),
      body: req.body,
    });
  }
}

/** A request to an app's own route behind a guard; its id, address and token are read only when used. */
export function guardRequest(req: Request): GuardRequest {
  return new GuardedRequest(req);
}

/**
 * Reads a request body up to `limit` bytes. A body an earlier parser (express.json(), …)
 * already consumed is taken as parsed. Over the limit (declared, or counted as a chunked
 * upload arrives): `ERR_BODY_TOO_LARGE` at once, with nothing more buffered; the 413 reply
 * then reads and discards the rest so that the client gets it (`closeAfterReply`).
 */
function readBody(req: Request, limit: number): Promise<RequestBody> {
  const consumed = (req as Request & { _body?: boolean })._body === true || req.readableEnded;
  if (consumed) return Promise.resolve({ parsed: req.body === undefined ? "" : req.body });
  return readStream(req, limit, header(req, "content-length")).then((raw) => ({ raw }));
}
