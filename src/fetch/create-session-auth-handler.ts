import type { SessionAuthContract } from "../engine/contract.js";
import type { Guard } from "../engine/guard.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import type { SessionAuthError } from "../errors.js";
import { splitTarget } from "../http-input/target.js";
import type { HeaderRecord } from "../http-output/headers.js";
import type { RequestAuth } from "../sessions/session-check.js";
import type { UserRecord } from "../types.js";
import { webBinding, type WebSessionAuthOptions } from "../web/binding.js";
import { peerAddress, targetOf, WebHttpRequest, type RuntimeEnv } from "../web/request.js";
import { toResponse, withHeaders } from "../web/respond.js";

/** The options of {@link createSessionAuthHandler}: the package's, `trustProxy`, and `clientAddress` for a runtime that hands no peer. */
export type FetchSessionAuthOptions = WebSessionAuthOptions<(request: Request, env: RuntimeEnv | undefined) => string | undefined>;

/** A fetch guard's decision: go on with `auth` (and `headers` for the app's response, see `withHeaders`), or answer `response`. */
export type FetchGuardResult<Auth = RequestAuth> =
  | { readonly auth: Auth; readonly headers: HeaderRecord; readonly response?: undefined; readonly error?: undefined }
  | { readonly response: Response; readonly error: SessionAuthError | undefined; readonly auth?: undefined; readonly headers?: undefined };

/** A guard for an app's own routes; with `onDenied: "next"`, a refusal rejects with its `SessionAuthError` instead. */
export type FetchGuard<Auth = RequestAuth> = (request: Request, env?: RuntimeEnv) => Promise<FetchGuardResult<Auth>>;

/** What {@link createSessionAuthHandler} returns: the Services calls, and the guards and answers for the app's own routes (the result's `auth`). */
export interface SessionAuthHandler extends Omit<
  SessionAuthContract<
    FetchGuard,
    (request: Request, env?: RuntimeEnv) => Response,
    [request: Request, headers: Headers, env?: RuntimeEnv],
    FetchGuard<RequestAuth | undefined>
  >,
  "startSession"
> {
  /**
   * The Services calls (and their `?q=` spellings) and the CORS preflights of the paths CORS covers; `undefined` for the app's requests.
   * Call it before anything reads the body. `env`: what the runtime hands beside the request (Node `{ incoming }`, Bun's server, Deno's info).
   */
  handle(request: Request, env?: RuntimeEnv): Promise<Response | undefined>;
  /**
   * Opens a session for a user the app authenticated itself, its cookie (and `no-store`) written into `headers` for the app's response; resolves the login reply.
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  startSession(request: Request, headers: Headers, user: UserRecord, env?: RuntimeEnv): Promise<LoginReply>;
  /** The response to an error thrown while answering a request: the wire format's, anything else a body-less 500 (reported). */
  errorResponse(error: unknown, request?: Request, env?: RuntimeEnv): Response;
  /** The path the app routes by: `?q=`'s on Drupal's query paths, else the URL's. */
  routedPath(request: Request): string;
  /** The app's response with `headers` added (a guard's; `Vary` merged, cookies appended), on a copy; itself when it lacks nothing. */
  withHeaders(response: Response, headers: HeaderRecord): Response;
  /** The app's own response to a request on a path CORS covers, with CORS's headers added; itself elsewhere. */
  withCors(request: Request, response: Response, env?: RuntimeEnv): Response;
}

/**
 * Drupal 7 Services' session authentication for runtimes that speak Web `Request`/`Response` (Node's
 * `http`, Next.js, Bun, Deno, Workers): the calls and wire format of every binding, over the same engine.
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthHandler({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * Deno.serve(async (request, info) => (await sessionAuth.handle(request, info)) ?? new Response(null, { status: 404 }));
 * ```
 * @throws TypeError when an option is missing or invalid.
 */
export function createSessionAuthHandler(options: FetchSessionAuthOptions): SessionAuthHandler {
  const { engine, trust, address } = webBinding(options, {
    factory: "createSessionAuthHandler",
    trustProxyFix: "trust it by hop count: createSessionAuthHandler({ trustProxy: 1 })",
    addressHint:
      "Hand the runtime's env beside each request: handle(request, env) and each guard's (node:http: { incoming: req }; Deno: the handler's info; Bun: the server), or give createSessionAuthHandler({ clientAddress: (request, env) => … }).",
  });
  const describe = (request: Request, env?: RuntimeEnv) =>
    new WebHttpRequest(request, env, address === undefined ? () => peerAddress(request, env) : () => address(request, env), trust);

  function guard<Auth>(decide: Guard): FetchGuard<Auth> {
    return async (request, env) => {
      const decision = decide(describe(request, env));
      const decided = decision instanceof Promise ? await decision : decision;
      if (decided.kind === "fail") throw decided.error;
      if (decided.kind === "reply") return { response: toResponse(decided.reply), error: decided.error };
      return { auth: decided.auth as Auth, headers: decided.headers };
    };
  }

  return {
    ...engine.base,
    async handle(request, env) {
      const decided = await engine.serve(describe(request, env));
      return decided?.kind === "reply" ? toResponse(decided.reply) : undefined;
    },
    requireSession: (guardOptions) => guard<RequestAuth>(engine.requireSession(guardOptions)),
    optionalSession: (guardOptions) => guard<RequestAuth | undefined>(engine.optionalSession(guardOptions)),
    startSession: (request, headers, user, env) => engine.startSession(describe(request, env), user, headers),
    endSession: (request, headers, env) => engine.endSession(describe(request, env), headers),
    notFound(notFoundOptions) {
      const answer = engine.notFound(notFoundOptions);
      return (request, env) => toResponse(answer(describe(request, env)));
    },
    errorResponse: (error, request, env) => toResponse(engine.fail(error, request === undefined ? undefined : describe(request, env))),
    routedPath(request) {
      const target = targetOf(request.url);
      return splitTarget(engine.route(target) ?? target).path;
    },
    withHeaders,
    withCors(request, response, env) {
      const decision = engine.cors?.(describe(request, env));
      return decision === undefined || "preflight" in decision ? response : withHeaders(response, decision.headers);
    },
  };
}
