import type { IncomingMessage } from "node:http";
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
// Hono's own path reading (its percent-decoding included): ?q= aside, routes see what they would without getPath.
import { getPath as honoPath } from "hono/utils/url";
import type { NotFoundOptions, SessionAuthBase } from "../engine/engine.js";
import type { Guard } from "../engine/guard.js";
import type { Served } from "../engine/front.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import { mergeVary, NO_HEADERS, writeHeaders, type HeaderRecord, type HeaderSetter } from "../http-output/headers.js";
import type { RequireSessionOptions } from "../options/options.js";
import type { RequestAuth } from "../sessions/session-check.js";
import type { UserRecord } from "../types.js";
import { fn, parseOptions } from "../validate.js";
import { fetchBinding, type FetchSessionAuthOptions } from "../fetch/create-session-auth-handler.js";
import { targetOf, type FetchRequestInfo, type NodeHeaders } from "../fetch/request.js";
import { toResponse, withHeaders } from "../fetch/respond.js";
import { z } from "zod";

/** The variables a guard sets: `c.var.auth`, defined behind `requireSession()`. */
export interface SessionAuthVariables<Auth = RequestAuth> {
  Variables: { auth: Auth };
}

/** The options of {@link honoSessionAuth}: the package's, `trustProxy`, and where the client's address comes from. */
export interface HonoSessionAuthOptions extends FetchSessionAuthOptions {
  /**
   * The peer's address on a runtime this package does not know (Cloudflare: `c.req.header("cf-connecting-ip")`).
   * @default the socket's on Node (@hono/node-server), `requestIP` on Bun, `remoteAddr` on Deno
   */
  clientAddress?: (c: Context) => string | undefined;
}

/** What {@link honoSessionAuth} returns: the Services calls, the guards, and the app's not-found and error handlers, as Hono takes them. */
export interface HonoSessionAuth extends SessionAuthBase {
  /** Hono's `getPath`, so that Drupal's `?q=` paths route the app's own routes too: `new Hono({ getPath: sessionAuth.getPath })`. */
  getPath(request: Request): string;
  /** The Services calls, `?q=` and CORS preflights as middleware: on `/services/*`, or every path for `cors.paths`. */
  services(): MiddlewareHandler;
  /**
   * A guard: a live session, its CSRF token on unsafe methods, one of `roles`; else the wire
   * format's 401, 403 or 503 (with `onDenied: "next"`, the error is thrown to `onError`). Sets `c.var.auth`.
   * @throws TypeError at once for an invalid option.
   */
  requireSession(options?: RequireSessionOptions): MiddlewareHandler<SessionAuthVariables>;
  /** Sets `c.var.auth` when a live session comes, and never refuses for lack of one. */
  optionalSession(options?: Pick<RequireSessionOptions, "onDenied">): MiddlewareHandler<SessionAuthVariables<RequestAuth | undefined>>;
  /** For `app.notFound()`: Services' 404s below the endpoint, Drupal's body-less `404 Not Found` elsewhere. */
  notFound(options?: NotFoundOptions): NotFoundHandler;
  /** For `app.onError()`: errors in the wire format, anything else a body-less 500. */
  onError(): ErrorHandler;
  /** Opens a session for a user the app authenticated itself, its cookie on the context's response; resolves the login reply. */
  startSession(c: Context, user: UserRecord): Promise<LoginReply>;
  /** Ends the request's session as a logout does, deleting its cookie; throws `ERR_STORE_UNAVAILABLE` if it could not be recorded everywhere. */
  endSession(c: Context): Promise<boolean>;
}

const honoSchema = z.object({ clientAddress: fn<(c: Context) => string | undefined>("c => string | undefined").optional() });

/**
 * Whether Node's parsed headers are still `request`'s own: it is the very `Request`
 * @hono/node-server built from `incoming` (not a copy the app made and handed on with the same
 * `env`), and nobody has made its `Headers` yet (once made, the app may have changed them in
 * place). Anything else, or another server, reads the `Request`.
 */
function untouched(request: Request, incoming: IncomingMessage): boolean {
  const own = request as unknown as Record<symbol, unknown>;
  let built = false;
  for (const key of Object.getOwnPropertySymbols(request)) {
    const value = own[key];
    if (value === incoming) built = true;
    else if (value instanceof Headers || value instanceof Request) return false;
  }
  return built;
}

/** What the runtime says of a request beside it: on Node, its socket and the headers Node already parsed. */
class HonoRequestInfo implements FetchRequestInfo {
  readonly #c: Context;
  readonly #incoming: IncomingMessage | undefined;
  readonly #address: ((c: Context) => string | undefined) | undefined;
  #headers: NodeHeaders | undefined | null = null;

  constructor(c: Context, address: ((c: Context) => string | undefined) | undefined) {
    this.#c = c;
    this.#address = address;
    this.#incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  }

  get clientAddress(): string | undefined {
    if (this.#address !== undefined) return this.#address(this.#c);
    if (this.#incoming !== undefined) return this.#incoming.socket?.remoteAddress;
    const env = this.#c.env as { requestIP?: (request: Request) => { address?: string } | null; remoteAddr?: { hostname?: string } } | undefined;
    return env?.requestIP?.(this.#c.req.raw)?.address ?? env?.remoteAddr?.hostname;
  }

  /** Node's parsed headers, when they are this very request's (not an outer one's, for a request of the app's own making). */
  get headers(): NodeHeaders | undefined {
    if (this.#headers === null) this.#headers = this.#ownHeaders();
    return this.#headers;
  }

  #ownHeaders(): NodeHeaders | undefined {
    const incoming = this.#incoming;
    return incoming !== undefined && untouched(this.#c.req.raw, incoming) ? incoming.headers : undefined;
  }

  /** The socket's word, not the URL's: a request line's absolute form could claim HTTPS. */
  get secure(): boolean | undefined {
    return this.#incoming === undefined ? undefined : (this.#incoming.socket as { encrypted?: boolean } | null)?.encrypted === true;
  }
}

/** Hono's setters of the context's reply, for {@link writeHeaders}. */
function setterOf(c: Context): HeaderSetter {
  return {
    // Not read: c.res would make a response before the route's. Vary is appended instead, after what the reply has.
    get: () => undefined,
    set: (name, value) => c.header(name, value, { append: name === "Vary" }),
    append: (name, value) => c.header(name, value, { append: true }),
  };
}

/** Gives headers to Hono before the route answers, so `c.json()` builds its response with them. */
function setHeaders(c: Context, headers: HeaderRecord): void {
  writeHeaders(headers, setterOf(c));
}

/**
 * An error reply with what Hono holds for this request's reply beneath it (a guard's cookies and
 * CORS headers, the app's `c.header()`s), as Hono's own error handler merges them: the reply's
 * headers win, cookies add up, `Vary` merges, and what described another body is dropped.
 * Hono then forgets them, or its setter would copy them back over the reply.
 */
function errorReply(c: Context, reply: Response): Response {
  const held = c.res.headers;
  c.res = undefined;
  const headers = new Headers(reply.headers);
  for (const [name, value] of held) {
    if (name === "vary") headers.set(name, mergeVary(headers.get(name) ?? undefined, value));
    else if (name !== "set-cookie" && !BODY_HEADERS.has(name) && !headers.has(name)) headers.set(name, value);
  }
  const cookies = headers.getSetCookie();
  for (const cookie of held.getSetCookie()) if (!cookies.includes(cookie)) headers.append("set-cookie", cookie);
  return new Response(reply.body, { status: reply.status, statusText: reply.statusText, headers });
}
// What described the body or the outcome the error replaces (a download's name, a redirect's target).
const BODY_HEADERS = new Set([
  "accept-ranges",
  "content-digest",
  "content-disposition",
  "content-encoding",
  "content-language",
  "content-length",
  "content-location",
  "content-md5",
  "content-range",
  "content-type",
  "digest",
  "etag",
  "last-modified",
  "location",
  "repr-digest",
  "transfer-encoding",
]);

/** The package's reply to a request it served, or the app's route with the headers it owes. */
async function answer(c: Context, next: () => Promise<void>, served: Promise<Served>): Promise<Response | void> {
  const decided = await served;
  if (decided.kind === "reply") return toResponse(decided.reply);
  await nextWith(c, next, decided.headers);
}

/** Runs the route with the headers its response owes; with none, the response stays on the fast path (docs/performance.md#the-guarded-request). */
async function nextWith(c: Context, next: () => Promise<void>, headers: HeaderRecord): Promise<void> {
  if (headers === NO_HEADERS) return next();
  setHeaders(c, headers);
  await next();
  const finished = withHeaders(c.res, headers);
  if (finished === c.res) return;
  // Cleared first: Hono's setter would copy the old response's headers back over the new one.
  c.res = undefined;
  c.res = finished;
}

/**
 * Drupal 7 Services' session authentication as Hono 4 middleware, on any runtime Hono runs on:
 * the Services calls, `requireSession()`/`optionalSession()` setting `c.var.auth`, Drupal's `?q=`
 * routing, and not-found and error handlers in the wire format.
 *
 * @example
 * ```ts
 * const sessionAuth = honoSessionAuth({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * const app = new Hono({ getPath: sessionAuth.getPath }).use(sessionAuth.services());
 * ```
 * @throws TypeError when an option is missing or invalid.
 */
export function honoSessionAuth(options: HonoSessionAuthOptions): HonoSessionAuth {
  const { clientAddress, ...fetchOptions } = options ?? ({} as HonoSessionAuthOptions);
  const address = parseOptions(honoSchema, { clientAddress }, "honoSessionAuth").clientAddress;
  const { engine, describe: describeRequest } = fetchBinding(fetchOptions, {
    factory: "honoSessionAuth",
    trustProxyFix: "trust it by hop count: honoSessionAuth({ trustProxy: 1 })",
    addressHint: 'On a runtime other than Node, Bun or Deno, give honoSessionAuth({ clientAddress: (c) => … }) (Cloudflare: c.req.header("cf-connecting-ip")).',
  });
  const describe = (c: Context) => describeRequest(c.req.raw, new HonoRequestInfo(c, address));

  function guard(decide: Guard): MiddlewareHandler {
    return async function sessionGuard(c, next) {
      const decided = await decide(describe(c));
      if (decided.kind === "reply") return toResponse(decided.reply);
      if (decided.kind === "fail") {
        setHeaders(c, decided.headers);
        throw decided.error;
      }
      c.set("auth", decided.auth);
      await nextWith(c, next, decided.headers);
    };
  }

  return {
    ...engine.base,
    getPath(request) {
      const { url } = request;
      if (!url.includes("?")) return honoPath(request);
      const target = targetOf(url);
      const rewritten = engine.route(target);
      return honoPath(rewritten === undefined ? request : ({ url: url.slice(0, url.length - target.length) + rewritten } as Request));
    },
    services() {
      return function servicesSessionAuth(c, next) {
        const served = engine.serve(describe(c));
        // Hono awaits each middleware: handing on next()'s own promise adds none of ours to an app request.
        return served === undefined ? next() : answer(c, next, served);
      };
    },
    requireSession: (guardOptions) => guard(engine.requireSession(guardOptions)) as MiddlewareHandler<SessionAuthVariables>,
    optionalSession: (guardOptions) => guard(engine.optionalSession(guardOptions)) as MiddlewareHandler<SessionAuthVariables<RequestAuth | undefined>>,
    notFound(notFoundOptions) {
      const answer = engine.notFound(notFoundOptions);
      return (c) => {
        const described = describe(c);
        // A Services call where services() is not mounted is never answered here (the app's own middleware may have turned it away): only said, once.
        engine.unserved(
          described.target,
          `a Services call reached Hono's not-found handler: mount services() on ${engine.base.endpointPath}/* and /services/session/token (or on every path)`,
        );
        return toResponse(answer(described));
      };
    },
    // Hono's own HTTPExceptions (basic-auth's 401 and its challenge) answer as Hono's handler has them.
    onError: () => (error, c) => errorReply(c, error instanceof HTTPException ? error.getResponse() : toResponse(engine.fail(error, describe(c)))),
    startSession: (c, user) => engine.startSession(describe(c), user, setterOf(c)),
    endSession: (c) => engine.endSession(describe(c), setterOf(c)),
  };
}
