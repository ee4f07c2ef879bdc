import { z } from "zod";
import { corsAtPath, corsDecision, withCorsHeaders } from "../cors/cors.js";
import { createEngine, type NotFoundOptions } from "../engine.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import type { SessionAuthError } from "../errors.js";
import { drupalQueryTarget } from "../http-input/query-path.js";
import type { RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import type { GuardOutcome, RequestAuth } from "../sessions/route-guard.js";
import type { StoredSession, UserRecord } from "../types.js";
import { fn, parseOptions } from "../validate.js";
import { errorReply } from "../wire/reply.js";
import {
  belowEndpoint,
  corsRequest,
  endpointRequest,
  guardRequest,
  notFoundRequest,
  servicesRequest,
  sessionRequest,
  targetOf,
  type FetchRequestInfo,
  type Target,
} from "./request.js";
import { toResponse, withCookies, withHeaders } from "./respond.js";
import { compileTrust, type TrustFunction, type TrustProxy } from "./trust-proxy.js";

/**
 * The options of {@link createSessionAuthHandler}: the package's options, and how to read
 * what a `Request` leaves to the server in front of it.
 */
export interface FetchSessionAuthOptions extends SessionAuthOptions {
  /**
   * The proxies in front, as Express's `trust proxy` takes them (see {@link TrustProxy}): a
   * hop count (`1`, also for a proxy on a Unix socket), addresses and subnets
   * (`"loopback"`, `["10.0.0.0/8"]`), a function, or `true` for every hop. When the peer
   * (`FetchRequestInfo.clientAddress`) is one of them, the scheme is `X-Forwarded-Proto`'s
   * first value (whether the session cookie is `SSESS…` and `Secure`), and the client is the
   * last address of `X-Forwarded-For` that is not one of them: the address the login throttle
   * and the hashing queue count, and the events show. Without it every client behind a proxy
   * is the proxy, and one client's failed logins would lock the others out.
   * @default false
   */
  trustProxy?: TrustProxy;
}

const bindingSchema = z.strictObject({
  trustProxy: z
    .union([z.boolean(), z.number().int().nonnegative(), z.string(), z.array(z.string()).readonly(), fn<TrustFunction>("(address, hop) => boolean")])
    .optional(),
});

const TOKEN_PATH = "/services/session/token";

/** The answer to a request that is none of the Services calls, shared: no promise made per request. */
const NOT_SERVICES: Promise<undefined> = Promise.resolve(undefined);

/** `services/session/token`, matched as Express's router matches it: any case, one trailing slash or none. */
function isTokenPath(path: string): boolean {
  const length = path.length === TOKEN_PATH.length + 1 && path.endsWith("/") ? TOKEN_PATH.length : path.length;
  return length === TOKEN_PATH.length && path.slice(0, length).toLowerCase() === TOKEN_PATH;
}

/** No header to add: what a guard's result carries while CORS is off. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * What a guard resolves: the request may go on (with the session, if any, and cookies and
 * headers for the app's response), or here is the answer.
 */
export type GuardResult =
  | {
      /** The session; `undefined` only from an optional guard, for a request without a live one. */
      readonly auth: RequestAuth | undefined;
      /** `Set-Cookie` values for the app's response (see {@link SessionAuthHandler.withGuard}); most often none. */
      readonly setCookie: readonly string[];
      /**
       * Headers for the app's response (see {@link SessionAuthHandler.withGuard}): the CORS
       * ones for a request from an origin of `trustedOrigins`, `Vary: Origin` for any other;
       * none while CORS is off (the `cors` option).
       */
      readonly headers: Readonly<Record<string, string>>;
      readonly response?: undefined;
      readonly error?: undefined;
    }
  | {
      /** The refusal, in the wire format (401, 401 `CSRF validation failed`, 403, 503), CORS headers included: return it as it is. */
      readonly response: Response;
      /** The reason, for an app that answers in its own way (a redirect, problem+json). */
      readonly error: SessionAuthError;
      readonly auth?: undefined;
    };

/** A guard for an app's own routes: resolves what to do with one request. */
export type FetchGuard = (request: Request, info?: FetchRequestInfo) => Promise<GuardResult>;

/**
 * What {@link createSessionAuthHandler} returns: `handle` for the Services calls, and the
 * guards and answers for the app's own routes, over one engine (one set of options, one
 * session owner, one login throttle and hashing queue).
 */
export interface SessionAuthHandler {
  /** Where the endpoint is served, with a leading slash: `"/services/json"` unless the `endpoint` option says otherwise. */
  readonly endpointPath: string;
  /**
   * Answers the Services calls: `user/login`, `system/connect`, `user/logout`, `user/token` and
   * the endpoint root under the endpoint path, `services/session/token`, and their `?q=`
   * spellings, with the CORS headers for the origins of `trustedOrigins`; and a CORS preflight
   * from one of them on those paths and on `cors.paths` (a `204`). Resolves `undefined` for
   * any other request: the app routes it. Call it before anything reads the body: it reads
   * bodies as Services does (JSON, form, multipart, none).
   */
  handle(request: Request, info?: FetchRequestInfo): Promise<Response | undefined>;
  /**
   * A guard for a route: a live session, its `X-CSRF-Token` on unsafe methods (or
   * `services_token` in the query), and one of `roles`; else `{ response }`, the 401, 401
   * `CSRF validation failed` or 403 in the wire format, or a 503 when a store fails.
   * `onDenied` does not apply: the result carries both the response and the error. A request
   * from an origin of `trustedOrigins` gets the CORS headers on the refusal, and in `headers`
   * for the app's response. A preflight is refused like any request without a session (a
   * `response` always comes with its `error`): `handle` answers the preflights of the paths
   * CORS covers, so list the app's own in `cors.paths`.
   * @throws TypeError at once for an invalid option.
   */
  requireSession(options?: Omit<RequireSessionOptions, "onDenied">): FetchGuard;
  /**
   * A guard that never refuses for lack of a session: `auth` is the live session or
   * `undefined`. On an unsafe method a session counts only with its CSRF token. A failing
   * store still resolves a 503 `response`.
   */
  optionalSession(): FetchGuard;
  /**
   * The answer to a request no route answered: below the endpoint path, Services' `404 Not
   * found : Could not find resource <name>.` (`… the controller.` below `user`, `system` and
   * the `resources` given); elsewhere Drupal's `404 Not Found`. Empty body.
   * @throws TypeError at once for an invalid option.
   */
  notFound(options?: NotFoundOptions): (request: Request) => Response;
  /**
   * The response to an error thrown while answering a request: the package's own errors by
   * the status table, a client error (a 4xx `status`) kept, and anything else a body-less 500
   * with an `internal.error` event. Never a stack trace.
   */
  errorResponse(error: unknown, request?: Request): Response;
  /**
   * The path Drupal routes a request by (`request_path()`): on the `queryPaths`, `?q=`'s value
   * (`/?q=services/json/players` is `/services/json/players`); else the URL's path. Give it to
   * a router that takes one (Hono's `getPath`) so the app's own routes answer `?q=` too.
   */
  routedPath(request: Request): string;
  /** The app's response with `Set-Cookie` values (a guard's, `startSession`'s) added: a copy, as {@link SessionAuthHandler.withGuard} makes. */
  withCookies(response: Response, setCookie: readonly string[]): Response;
  /**
   * Adds what a guard let through leaves for the app's response: its `setCookie` and its CORS
   * `headers` (`Vary` merged), on a copy of it (its body, status and a copy of its headers, as
   * Hono's `c.header()` copies a finished response): a change made in place can be lost where
   * a server's `Response` is rebuilt from how it was made (@hono/node-server's, under `etag()`,
   * `compress()` or a HEAD). Put the copy in the response's place. The response itself is
   * returned when it already carries them all (a framework built it with them: the Hono recipe
   * hands them to `c.header()` before the route answers) or there is nothing to add.
   */
  withGuard(response: Response, result: { readonly setCookie: readonly string[]; readonly headers: Readonly<Record<string, string>> }): Response;
  /**
   * Adds the CORS headers to the app's own response to a request on a path CORS covers (below
   * the endpoint path, `cors.paths`): an unguarded route's reply, `notFound`'s 404, an
   * `errorResponse`. For an origin of `trustedOrigins` as `handle` adds them to the Services
   * calls, on a copy as {@link SessionAuthHandler.withGuard} makes; returns the response
   * unchanged when CORS is off or does not cover the path.
   */
  withCors(request: Request, response: Response): Response;
  /**
   * Opens a session for a user the app authenticated itself, as `startSession` on Express:
   * resolves the login reply and the `Set-Cookie` values for the app's response (send it with
   * `Cache-Control: no-store`).
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  startSession(request: Request, user: UserRecord, info?: FetchRequestInfo): Promise<{ reply: LoginReply; setCookie: readonly string[] }>;
  /**
   * Ends the request's session, if it has a live one, as a logout does: resolves whether there
   * was one and the `Set-Cookie` values that delete its cookie.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the store cannot be read, or could not record the end (the cookie deletions are on the error's `setCookie`).
   */
  endSession(request: Request, info?: FetchRequestInfo): Promise<{ ended: boolean; setCookie: readonly string[] }>;
  /** A user's live sessions, oldest first. */
  listSessions(uid: string): Promise<StoredSession[]>;
  /** Ends every session of a user ("log out everywhere"); resolves how many ended. */
  endUserSessions(uid: string): Promise<number>;
}

/**
 * Drupal 7 Services' session authentication for any runtime that speaks Web-standard
 * `Request` and `Response` (Hono, Next.js route handlers, Bun, Deno, Cloudflare Workers):
 * the same calls, cookies, tokens and wire format as the Express router, over the same
 * engine. No framework dependency.
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthHandler({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * const requireSession = sessionAuth.requireSession();
 * Deno.serve(async (request, info) => {
 *   const client = { clientAddress: info.remoteAddr.hostname };
 *   const services = await sessionAuth.handle(request, client);
 *   if (services) return services;
 *   const result = await requireSession(request, client);
 *   if (result.response) return result.response;
 *   return sessionAuth.withGuard(Response.json({ name: result.auth!.user.name }), result);
 * });
 * ```
 * @throws TypeError when an option is missing or invalid.
 */
export function createSessionAuthHandler(options: FetchSessionAuthOptions): SessionAuthHandler {
  const { trustProxy: setting, ...engineOptions } = options ?? ({} as FetchSessionAuthOptions);
  const trustProxy = parseOptions(bindingSchema, { trustProxy: setting }, "createSessionAuthHandler").trustProxy ?? false;
  let trust: TrustFunction | undefined;
  try {
    trust = compileTrust(trustProxy);
  } catch (error) {
    throw new TypeError(`createSessionAuthHandler: invalid options: trustProxy: ${(error as Error).message}`);
  }
  const engine = createEngine(engineOptions, "createSessionAuthHandler");
  const { endpoint, sessions } = engine;
  const { endpointPath, queryPaths, bodyLimit } = engine.options.endpoint;
  const honoured = new Set(queryPaths);
  const translation = { trust, bodyLimit };
  const corsSettings = engine.options.cors;
  // Patterns of the app's own paths: any request may then be a preflight to answer.
  const corsEverywhere = corsSettings.enabled && corsSettings.paths.length > 0;

  /** The target routing sees: `?q=`'s path on the honoured paths, the original query string kept for the parameters beside it. */
  function routed(request: Request): { routed: Target; query: string } {
    const original = targetOf(request.url);
    if (original.query === "" || !honoured.has(original.path)) return { routed: original, query: original.query };
    const rewritten = drupalQueryTarget(`${original.path}?${original.query}`, honoured);
    return { routed: rewritten === undefined ? original : targetOf(rewritten), query: original.query };
  }

  // Anchored where the URL's path starts (sticky), any case, as Express's router matches.
  const endpointAt = new RegExp(`${endpointPath.replaceAll(".", "\\.")}(?:[/?#]|$)`, "iy");
  const tokenAt = /\/services\/session\/token\/?(?:[?#]|$)/iy;

  /** Whether a URL may be one of the Services calls: below the endpoint, the token call, or a `?q=` path. */
  function mayBeServices(url: string): boolean {
    const scheme = url.indexOf("://");
    const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
    if (start === -1) return false;
    endpointAt.lastIndex = start;
    if (endpointAt.test(url)) return true;
    tokenAt.lastIndex = start;
    if (tokenAt.test(url)) return true;
    const mark = url.indexOf("?", start);
    return mark !== -1 && honoured.has(url.slice(start, mark));
  }

  async function services(request: Request, info: FetchRequestInfo | undefined): Promise<Response | undefined> {
    const { routed: target, query } = routed(request);
    // A preflight never reaches a route of the app's: answered here, before any of them.
    const cors = corsAtPath(target.path, endpointPath, corsSettings, () => corsRequest(request));
    if (cors !== undefined && "preflight" in cors) return toResponse(cors.preflight);
    const headers = cors?.headers;
    if (isTokenPath(target.path)) return toResponse(withCorsHeaders(await endpoint.sessionToken(sessionRequest(request, trust, info)), headers));
    const below = belowEndpoint(target.path, endpointPath);
    if (below === undefined) return undefined;
    const reply = await endpoint.handle(endpointRequest(request, info, translation, below, query));
    return reply === undefined ? undefined : toResponse(withCorsHeaders(reply, headers));
  }

  function guard(guardOptions: RequireSessionOptions, optional: boolean): FetchGuard {
    const { check } = engine.guard(guardOptions, optional);
    function result(outcome: GuardOutcome, headers: Readonly<Record<string, string>>): GuardResult {
      if (outcome.error === undefined) return { auth: outcome.auth, setCookie: outcome.setCookie, headers };
      const extra = outcome.setCookie.length === 0 ? headers : { ...headers, "Set-Cookie": outcome.setCookie };
      const reply = errorReply(outcome.error, extra === NO_HEADERS ? undefined : extra);
      return { response: toResponse(reply), error: outcome.error };
    }
    // Not an async function: over the memory stores a request is decided at once, and its
    // result is then settled without waiting on a promise of the check's own.
    return (request, info) => {
      try {
        // Its route's reply, and its denials too, readable by the app origins wherever the route is.
        // A preflight is not answered here: the app decides on the result, and one that reads
        // `error` alone would take a 204 without a session for a pass. It is refused as any
        // request without a session is, without the CORS headers, so the browser stops (fail
        // closed); `handle` answers the preflights of the paths CORS covers (`cors.paths`).
        let headers = NO_HEADERS;
        if (corsSettings.enabled) {
          const cors = corsDecision(corsRequest(request, info), corsSettings);
          if (!("preflight" in cors)) headers = cors.headers;
        }
        const outcome = check(guardRequest(request, info, trust));
        return outcome instanceof Promise ? outcome.then((settled) => result(settled, headers)) : Promise.resolve(result(outcome, headers));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }

  return {
    endpointPath,
    handle(request, info) {
      // Most requests are the app's: tell them apart without a copy of the URL or a promise of their own.
      if (!corsEverywhere && !mayBeServices(request.url)) return NOT_SERVICES;
      return services(request, info);
    },
    requireSession: (guardOptions = {}) => guard(guardOptions, false),
    optionalSession: () => guard({}, true),
    notFound(notFoundOptions = {}) {
      const reply = engine.notFound(notFoundOptions);
      return (request) => toResponse(reply(notFoundRequest(request, routed(request).routed, endpointPath)));
    },
    errorResponse(error, request) {
      const id = request === undefined ? undefined : sessionRequest(request, trust).requestId;
      return toResponse(engine.replyToError(error, id));
    },
    routedPath: (request) => routed(request).routed.path,
    withCookies,
    withGuard: (response, result) => withHeaders(response, result.setCookie, result.headers),
    withCors(request, response) {
      if (!corsSettings.enabled) return response;
      const cors = corsAtPath(routed(request).routed.path, endpointPath, corsSettings, () => corsRequest(request));
      return cors === undefined || "preflight" in cors ? response : withHeaders(response, [], cors.headers);
    },
    async startSession(request, user, info) {
      const { result, setCookie } = await endpoint.start(servicesRequest(request, info, trust, ""), user);
      return { reply: result, setCookie };
    },
    async endSession(request, info) {
      const { result, setCookie, error } = await endpoint.end(servicesRequest(request, info, trust, ""));
      if (error !== undefined) throw Object.assign(error, { setCookie });
      return { ended: result, setCookie };
    },
    listSessions: (uid) => sessions.list(uid),
    endUserSessions: (uid) => sessions.endAll(uid),
  };
}
