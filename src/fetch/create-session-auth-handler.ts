import { createEngine, type BindingProfile, type Engine, type NotFoundOptions, type SessionAuthBase } from "../engine/engine.js";
import type { Guard } from "../engine/guard.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import { isSessionAuthError, SessionAuthError } from "../errors.js";
import type { HeaderRecord } from "../http-output/headers.js";
import { splitTarget } from "../http-input/target.js";
import type { RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import type { RequestAuth } from "../sessions/session-check.js";
import type { UserRecord } from "../types.js";
import { FetchHttpRequest, type FetchRequestInfo } from "./request.js";
import { recordOf, toResponse, withHeaders } from "./respond.js";
import { trustProxyOption, type TrustProxy } from "../http-input/trust-proxy.js";

/** The options of {@link createSessionAuthHandler}: the package's, and which proxies in front to believe. */
export interface FetchSessionAuthOptions extends SessionAuthOptions {
  /**
   * The proxies in front, as Express's `trust proxy` ({@link TrustProxy}): behind them the scheme and client
   * come from `X-Forwarded-*`. Without it every client behind a proxy is the proxy, locking each other out.
   * @default false
   */
  trustProxy?: TrustProxy;
}

/** A guard's result: go on with `auth` (add `headers` with `withGuard`), or `response` answers; narrows on `response`. */
export type GuardResult<Auth = RequestAuth> =
  | { readonly auth: Auth; readonly headers: HeaderRecord; readonly response?: undefined; readonly error?: undefined }
  | { readonly response: Response; readonly error: SessionAuthError | undefined; readonly auth?: undefined; readonly headers?: undefined };

/** A guard for an app's own routes: resolves what to do with one request. */
export type FetchGuard<Auth = RequestAuth> = (request: Request, info?: FetchRequestInfo) => Promise<GuardResult<Auth>>;

/** What {@link createSessionAuthHandler} returns: the Services calls, and the guards and answers for the app's own routes, over one engine. */
export interface SessionAuthHandler extends SessionAuthBase {
  /** The Services calls (and their `?q=` spellings) and the CORS preflights of the paths CORS covers; `undefined` for the app's requests. Call it before anything reads the body. */
  handle(request: Request, info?: FetchRequestInfo): Promise<Response | undefined>;
  /**
   * A guard: a live session, its CSRF token on unsafe methods, one of `roles`; else `response` is the wire format's 401, 403 or 503.
   * @throws TypeError at once for an invalid option.
   */
  requireSession(options?: Omit<RequireSessionOptions, "onDenied">): FetchGuard;
  /** A guard that never refuses for lack of a session: `auth` is the live session or `undefined`. */
  optionalSession(): FetchGuard<RequestAuth | undefined>;
  /** The answer to a request no route answered: Services' 404s below the endpoint, Drupal's body-less `404 Not Found` elsewhere. */
  notFound(options?: NotFoundOptions): (request: Request, info?: FetchRequestInfo) => Response;
  /** The response to an error thrown while answering a request: the wire format's, anything else a body-less 500. */
  errorResponse(error: unknown, request?: Request, info?: FetchRequestInfo): Response;
  /** The path the app routes by: `?q=`'s on Drupal's query paths, else the URL's. */
  routedPath(request: Request): string;
  /** The app's response with a guard's `headers` added (see {@link SessionAuthHandler.withHeaders}). */
  withGuard(response: Response, result: { readonly headers: HeaderRecord }): Response;
  /** The app's response with `headers` added (`Vary` merged, cookies appended), on a copy; itself when it lacks nothing. */
  withHeaders(response: Response, headers: HeaderRecord): Response;
  /** The app's own response to a request on a path CORS covers, with CORS's headers added; itself elsewhere. */
  withCors(request: Request, response: Response, info?: FetchRequestInfo): Response;
  /** Opens a session for a user the app authenticated itself: the login reply, and the `headers` (its cookie, `no-store`) for the response. */
  startSession(request: Request, user: UserRecord, info?: FetchRequestInfo): Promise<{ reply: LoginReply; headers: HeaderRecord }>;
  /** Ends the request's session, if live: whether there was one, the `headers` deleting its cookie, and `error` when it could not be recorded everywhere. */
  endSession(request: Request, info?: FetchRequestInfo): Promise<{ ended: boolean; headers: HeaderRecord; error?: SessionAuthError | undefined }>;
}

/** A URI no route could decode (a router's `decodeURIComponent`) as the wire format's; `undefined` for any other error. */
export function undecodable(error: unknown): SessionAuthError | undefined {
  return error instanceof URIError ? new SessionAuthError("ERR_MALFORMED_REQUEST") : undefined;
}

/** The engine for a fetch-based binding, and its translation of a `Request` (with `trustProxy` applied). */
export function fetchBinding(options: FetchSessionAuthOptions, profile: BindingProfile) {
  const { trustProxy, ...engineOptions } = options ?? ({} as FetchSessionAuthOptions);
  const trust = trustProxyOption(trustProxy, profile.factory);
  const engine: Engine = createEngine(engineOptions, { foreignError: undecodable, ...profile });
  return { engine, describe: (request: Request, info?: FetchRequestInfo) => new FetchHttpRequest(request, info, trust) };
}

/**
 * Drupal 7 Services' session authentication for runtimes that speak Web `Request`/`Response` (Next.js,
 * Bun, Deno, Workers): the Express router's calls and wire format over the same engine.
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthHandler({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * Deno.serve(async (request, info) => (await sessionAuth.handle(request, { clientAddress: info.remoteAddr.hostname })) ?? new Response(null, { status: 404 }));
 * ```
 * @throws TypeError when an option is missing or invalid.
 */
export function createSessionAuthHandler(options: FetchSessionAuthOptions): SessionAuthHandler {
  const { engine, describe } = fetchBinding(options, {
    factory: "createSessionAuthHandler",
    trustProxyFix: "trust it by hop count: createSessionAuthHandler({ trustProxy: 1 })",
    addressHint:
      "Pass the peer's address as the second argument: handle(request, { clientAddress }) and each guard's (Deno: info.remoteAddr.hostname; Bun: server.requestIP(request)?.address).",
  });

  function guard<Auth>(decide: Guard): FetchGuard<Auth> {
    return async (request, info) => {
      const decided = await decide(describe(request, info));
      if (decided.kind === "continue") return { auth: decided.auth as Auth, headers: decided.headers };
      if (decided.kind === "fail") throw decided.error;
      return { response: toResponse(decided.reply), error: decided.error };
    };
  }

  return {
    ...engine.base,
    async handle(request, info) {
      const decided = await engine.serve(describe(request, info));
      return decided?.kind === "reply" ? toResponse(decided.reply) : undefined;
    },
    requireSession: (guardOptions) => guard<RequestAuth>(engine.requireSession({ ...guardOptions, onDenied: "reply" })),
    optionalSession: () => guard<RequestAuth | undefined>(engine.optionalSession(undefined)),
    notFound(notFoundOptions) {
      const answer = engine.notFound(notFoundOptions);
      return (request, info) => toResponse(answer(describe(request, info)));
    },
    errorResponse: (error, request, info) => toResponse(engine.fail(error, request === undefined ? undefined : describe(request, info))),
    routedPath(request) {
      const { target } = describe(request);
      return splitTarget(engine.route(target) ?? target).path;
    },
    withGuard: (response, result) => withHeaders(response, result.headers),
    withHeaders,
    withCors(request, response, info) {
      const decision = engine.cors?.(describe(request, info));
      return decision === undefined || "preflight" in decision ? response : withHeaders(response, decision.headers);
    },
    async startSession(request, user, info) {
      const headers = new Headers();
      const reply = await engine.startSession(describe(request, info), user, headers);
      return { reply, headers: recordOf(headers) };
    },
    async endSession(request, info) {
      const headers = new Headers();
      try {
        return { ended: await engine.endSession(describe(request, info), headers), headers: recordOf(headers) };
      } catch (error) {
        if (!isSessionAuthError(error)) throw error;
        return { ended: true, headers: recordOf(headers), error };
      }
    },
  };
}
