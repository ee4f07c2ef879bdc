import type { FastifyRequest } from "fastify";
import type { CorsRequest } from "../cors/cors.js";
import { csrfTokenOf } from "../sessions/csrf-token-of.js";
import type { EndpointRequest, RequestBody, ServicesRequest } from "../endpoint/endpoint.js";
import type { NotFoundRequest } from "../endpoint/not-found.js";
import { servicesVersionHeader } from "../endpoint/routing.js";
import { parseForm } from "../http-input/form.js";
import { readStream } from "../http-input/read-stream.js";
import { plainAddress } from "../login/client-address.js";
import type { GuardRequest } from "../sessions/route-guard.js";
import type { SessionRequest } from "../sessions/sessions.js";

/**
 * How a Fastify request is described to the engine: the translation, and nothing else.
 * Fastify's `trustProxy` decides `request.ip` and `request.protocol`, as Express's `trust proxy` does.
 *
 * @module
 */

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The path and query string of the URL the client sent (before any `rewriteUrl`): `services_token` may sit beside a `?q=`. */
function originalQuery(request: FastifyRequest): string {
  const url = request.originalUrl;
  const mark = url.indexOf("?");
  return mark === -1 ? "" : url.slice(mark + 1);
}

/** One query-string parameter, the last one if repeated, as in PHP's `$_GET`. */
function queryParameter(request: FastifyRequest, name: string): string | undefined {
  const query = originalQuery(request);
  return query === "" ? undefined : parseForm(Buffer.from(query))[name];
}

/** Fastify's request id (`req-1`, or the app's `genReqId`): the one its own log lines carry. */
function requestId(request: FastifyRequest): string | undefined {
  return String(request.id).slice(0, 128) || undefined;
}

/** The host the client asked for: `Host`, or over HTTP/2 (where there is none) `:authority`. */
function hostOf(request: FastifyRequest): string {
  return header(request, "host") ?? header(request, ":authority") ?? "";
}

/** What finding a request's session needs. */
export function sessionRequest(request: FastifyRequest): SessionRequest {
  return { host: hostOf(request), secure: request.protocol === "https", cookieHeader: header(request, "cookie"), requestId: requestId(request) };
}

/** A request to one of the Services calls. */
export function servicesRequest(request: FastifyRequest): ServicesRequest {
  return {
    ...sessionRequest(request),
    method: request.method,
    ip: plainAddress(request.ip ?? ""),
    userAgent: header(request, "user-agent") ?? "",
    contentType: header(request, "content-type"),
    csrfHeader: header(request, "x-csrf-token"),
    queryToken: queryParameter(request, "services_token"),
    versionHeader: servicesVersionHeader(request.headers),
    accept: header(request, "accept"),
    origin: header(request, "origin"),
    fetchSite: header(request, "sec-fetch-site"),
  };
}

/** What CORS reads of a request. */
export function corsRequest(request: FastifyRequest): CorsRequest {
  return {
    method: request.method,
    origin: header(request, "origin"),
    requestMethod: header(request, "access-control-request-method"),
    requestHeaders: header(request, "access-control-request-headers"),
  };
}

/** The request's path as routed (after `rewriteUrl`), without the query string. */
export function routedPath(request: FastifyRequest): string {
  const mark = request.url.indexOf("?");
  return mark === -1 ? request.url : request.url.slice(0, mark);
}

/**
 * A request no route answered. `endpointPath` is the endpoint's full path (the plugin's
 * prefix included): below it, Services' 404s; elsewhere, Drupal's page-not-found.
 */
export function notFoundRequest(request: FastifyRequest, endpointPath: string): NotFoundRequest {
  const path = routedPath(request);
  const lower = path.toLowerCase();
  const below = lower === endpointPath || lower.startsWith(`${endpointPath}/`);
  return {
    path: below ? path.slice(endpointPath.length) || "/" : path,
    mounted: below,
    method: request.method,
    methodOverride: header(request, "x-http-method-override"),
    methodParam: queryParameter(request, "_method"),
  };
}

/**
 * A request to the endpoint's routes (`<endpoint>` and `<endpoint>/*`): the path below it
 * taken from the URL as sent (not the decoded wildcard: `user%2Flogin` is no call, as on
 * Express), its body read from the raw stream only once routing asks for it.
 */
export function endpointRequest(request: FastifyRequest, mountedAt: string, bodyLimit: number): EndpointRequest {
  return Object.assign(servicesRequest(request), {
    path: routedPath(request).slice(mountedAt.length) || "/",
    mounted: true,
    methodOverride: header(request, "x-http-method-override"),
    methodParam: queryParameter(request, "_method"),
    body: (): Promise<RequestBody> => readStream(request.raw, bodyLimit, header(request, "content-length")).then((raw) => ({ raw })),
  });
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
  readonly #request: FastifyRequest;

  constructor(request: FastifyRequest) {
    this.#request = request;
    this.host = hostOf(request);
    this.secure = request.protocol === "https";
    this.cookieHeader = header(request, "cookie");
    this.method = request.method;
  }

  get requestId(): string | undefined {
    return requestId(this.#request);
  }

  ip(): string {
    return plainAddress(this.#request.ip ?? "");
  }

  csrfToken(): string | undefined {
    const request = this.#request;
    return csrfTokenOf({
      csrfHeader: header(request, "x-csrf-token"),
      queryToken: queryParameter(request, "services_token"),
      contentType: header(request, "content-type"),
      body: request.body,
    });
  }
}

/** A request to an app's own route behind a guard; its id, address and token are read only when used. */
export function guardRequest(request: FastifyRequest): GuardRequest {
  return new GuardedRequest(request);
}
