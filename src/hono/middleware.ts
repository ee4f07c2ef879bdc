import type { Context, ErrorHandler, MiddlewareHandler, Next, NotFoundHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
// Hono's own path reading (its percent-decoding included): ?q= aside, routes see what they would without getPath.
import { getPath as honoPath } from "hono/utils/url";
import type { SessionAuthContract } from "../engine/contract.js";
import type { NotFoundOptions } from "../engine/engine.js";
import type { Served } from "../engine/front.js";
import type { Decision, Guard } from "../engine/guard.js";
import { NO_HEADERS, writeHeaders, type HeaderRecord, type HeaderSetter } from "../http-output/headers.js";
import type { OptionalSessionOptions, RequireSessionOptions } from "../options/options.js";
import type { RequestAuth } from "../sessions/session-check.js";
import type { UserRecord } from "../types.js";
import { webBinding, type WebSessionAuthOptions } from "../web/binding.js";
import { peerAddress, targetOf, WebHttpRequest } from "../web/request.js";
import { lacking, toResponse } from "../web/respond.js";
import { errorResponse } from "./error-response.js";

/** The variables a guard sets: `c.var.auth`, defined behind `requireSession()`. */
export interface SessionAuthEnv<Auth = RequestAuth> {
  Variables: { auth: Auth };
}

/** The options of {@link createSessionAuthMiddleware}: the package's, `trustProxy`, and `clientAddress` for a runtime that hands no peer. */
export type HonoSessionAuthOptions = WebSessionAuthOptions<(c: Context) => string | undefined>;

/** What {@link createSessionAuthMiddleware} returns: the middleware serving the Services calls, with the guards and handlers for the app's routes (`c.var.auth`). */
export interface SessionAuthMiddleware
  extends
    MiddlewareHandler,
    SessionAuthContract<MiddlewareHandler<SessionAuthEnv>, NotFoundHandler, [c: Context], MiddlewareHandler<SessionAuthEnv<RequestAuth | undefined>>> {
  /** Hono's `getPath`, so that Drupal's `?q=` paths route the app's own routes too: `new Hono({ getPath: sessionAuth.getPath })`. */
  getPath(request: Request): string;
  /** For `app.onError()`: errors in the wire format, Hono's `HTTPException`s as their own response, anything else a body-less 500. */
  onError(): ErrorHandler;
}

/** Hono's setters of the context's reply, for {@link writeHeaders}: before the route, `Vary` goes after what Hono holds; after, it merges with the route's. */
function setterOf(c: Context): HeaderSetter {
  return {
    get: (name) => (c.finalized ? c.res.headers.get(name) : undefined),
    set: (name, value) => c.header(name, value, { append: name === "Vary" && !c.finalized }),
    append: (name, value) => c.header(name, value, { append: true }),
  };
}

/** Runs the route with the headers its response owes: given to Hono before (`c.json()` builds with them), and what a response of the route's own lacks after. */
async function nextWith(c: Context, next: () => Promise<void>, headers: HeaderRecord): Promise<void> {
  // With none, the response stays on Hono's fast path (docs/performance.md#the-guarded-request).
  if (headers === NO_HEADERS) return next();
  const setter = setterOf(c);
  writeHeaders(headers, setter);
  await next();
  const missing = lacking(c.res.headers, headers);
  if (missing === undefined) return;
  // A response of the route's own may hold headers no one may change (fetch()'s): Hono is given a copy with its own first.
  const { body, status, statusText, headers: held } = c.res;
  c.res = new Response(body, { status, statusText, headers: held });
  writeHeaders(missing, setter);
}

/** The package's reply to a request it served, or the app's route with the headers it owes. */
async function answer(c: Context, next: () => Promise<void>, served: Promise<Served>): Promise<Response | void> {
  const decided = await served;
  if (decided.kind === "reply") return toResponse(decided.reply);
  await nextWith(c, next, decided.headers);
}

/**
 * Drupal 7 Services' session authentication as Hono 4 middleware, on any runtime Hono runs on:
 * the Services calls, `requireSession()`/`optionalSession()` setting `c.var.auth`, Drupal's `?q=`
 * routing, and not-found and error handlers in the wire format.
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthMiddleware({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * const app = new Hono({ getPath: sessionAuth.getPath }).use(sessionAuth);
 * ```
 * @throws TypeError when an option is missing or invalid.
 */
export function createSessionAuthMiddleware(options: HonoSessionAuthOptions): SessionAuthMiddleware {
  const { engine, trust, address } = webBinding(options, {
    factory: "createSessionAuthMiddleware",
    trustProxyFix: "trust it by hop count: createSessionAuthMiddleware({ trustProxy: 1 })",
    addressHint:
      'On a runtime other than Node, Bun or Deno, give createSessionAuthMiddleware({ clientAddress: (c) => … }) (Cloudflare: c.req.header("cf-connecting-ip")).',
  });
  const describe = (c: Context) => new WebHttpRequest(c.req.raw, c.env, address === undefined ? () => peerAddress(c.req.raw, c.env) : () => address(c), trust);

  function guard<Auth>(decide: Guard): MiddlewareHandler<SessionAuthEnv<Auth>> {
    function carry(c: Context<SessionAuthEnv<Auth>>, next: Next, decided: Decision): Promise<Response | void> {
      if (decided.kind === "reply") return Promise.resolve(toResponse(decided.reply));
      if (decided.kind === "fail") {
        writeHeaders(decided.headers, setterOf(c));
        return Promise.reject(decided.error);
      }
      c.set("auth", decided.auth as Auth);
      return nextWith(c, next, decided.headers);
    }
    // Hono awaits what a middleware returns: a decision made at once adds no promise of ours.
    return createMiddleware<SessionAuthEnv<Auth>>(function sessionGuard(c, next) {
      const decided = decide(describe(c));
      return decided instanceof Promise ? decided.then((known) => carry(c, next, known)) : carry(c, next, decided);
    });
  }

  // Hono awaits each middleware: handing on next()'s own promise adds none of ours to an app request.
  const middleware = createMiddleware(function servicesSessionAuth(c, next) {
    // Most requests are the app's: told apart by their target alone, before anything is read of them.
    if (!engine.claims(targetOf(c.req.url))) return next();
    const served = engine.serve(describe(c));
    return served === undefined ? next() : answer(c, next, served);
  });

  return Object.assign(middleware, engine.base, {
    getPath(request: Request) {
      const { url } = request;
      if (!url.includes("?")) return honoPath(request);
      const target = targetOf(url);
      const rewritten = engine.route(target);
      return honoPath(rewritten === undefined ? request : ({ url: url.slice(0, url.length - target.length) + rewritten } as Request));
    },
    requireSession: (guardOptions?: RequireSessionOptions) => guard<RequestAuth>(engine.requireSession(guardOptions)),
    optionalSession: (guardOptions?: OptionalSessionOptions) => guard<RequestAuth | undefined>(engine.optionalSession(guardOptions)),
    startSession: (c: Context, user: UserRecord) => engine.startSession(describe(c), user, setterOf(c)),
    endSession: (c: Context) => engine.endSession(describe(c), setterOf(c)),
    notFound(notFoundOptions?: NotFoundOptions): NotFoundHandler {
      const reply = engine.notFound(notFoundOptions);
      const fix = `a Services call reached Hono's not-found handler: mount the middleware on ${engine.base.endpointPath}/* and /services/session/token (or on every path)`;
      return (c) => {
        const described = describe(c);
        // A Services call where the middleware is not mounted is never answered here (the app's own middleware may have turned it away): only said, once.
        engine.unserved(described.target, fix);
        return toResponse(reply(described));
      };
    },
    onError(): ErrorHandler {
      return (error, c) => errorResponse(c, error instanceof HTTPException ? error.getResponse() : toResponse(engine.fail(error, describe(c))));
    },
  });
}
