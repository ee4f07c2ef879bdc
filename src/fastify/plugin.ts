import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, preHandlerHookHandler } from "fastify";
import { corsAtPath, corsDecision, type CorsDecision } from "../cors/cors.js";
import { createEngine, sessionControls, type NotFoundOptions } from "../engine.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import type { GuardOutcome, RequestAuth } from "../sessions/route-guard.js";
import type { StoredSession, UserRecord } from "../types.js";
import { errorReply } from "../wire/reply.js";
import { corsRequest, endpointRequest, guardRequest, notFoundRequest, routedPath, servicesRequest, sessionRequest } from "./request.js";
import { addHeaders, appendCookies, send } from "./respond.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `requireSession()` on the requests it lets through, and by `optionalSession()` when a session is live; `undefined` elsewhere. */
    auth: RequestAuth | undefined;
  }
  interface FastifyInstance {
    /** The guards and handlers of `services-session-auth`, over the engine the plugin built. */
    sessionAuth: FastifySessionAuth;
  }
}

/**
 * What the plugin decorates the instance with (`fastify.sessionAuth`): the guards and
 * handlers for the app's own routes, over the engine that answers the Services calls.
 */
export interface FastifySessionAuth {
  /** Where the endpoint is served, with a leading slash, the prefix of the context the plugin was registered in included. */
  readonly endpointPath: string;
  /**
   * A `preHandler`: a live session, its `X-CSRF-Token` on unsafe methods (or `services_token`
   * in the query or a form body), and one of `roles`; else a 401, 401 `CSRF validation
   * failed` or 403 in the wire format, and a 503 when a store fails. Sets `request.auth`.
   * With `onDenied: "next"`, a denial is thrown to Fastify's error handler as a
   * `SessionAuthError` with its `statusCode`, for the app to answer. A request from an origin
   * of `trustedOrigins` gets the CORS headers on whatever reply it gets, a denial included,
   * and a preflight that reaches the route is answered (see the `cors` option).
   * @throws TypeError at once for an invalid option.
   */
  requireSession(options?: RequireSessionOptions): preHandlerHookHandler;
  /** A `preHandler` that sets `request.auth` when a live session (with its token on an unsafe method) comes, and never refuses for lack of one. */
  optionalSession(options?: Pick<RequireSessionOptions, "onDenied">): preHandlerHookHandler;
  /**
   * For `setNotFoundHandler`: below the endpoint path, Services' `404 Not found : Could not
   * find resource <name>.` (`… the controller.` below `user`, `system` and the `resources`
   * given); elsewhere Drupal's `404 Not Found`. Empty body.
   * @throws TypeError at once for an invalid option.
   */
  notFound(options?: NotFoundOptions): (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  /**
   * For `setErrorHandler`: errors in the wire format (Fastify's invalid JSON and body-too-large
   * as the endpoint's own, another 4xx kept with no body, a guard's denial as the guard would
   * answer it), anything else a body-less 500 with an `internal.error` event, logged with
   * `request.log.error`. Never a stack trace to the client.
   */
  errorHandler(): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  /**
   * Opens a session for a user the app authenticated itself, setting its cookie on `reply`
   * and `Cache-Control: no-store`; resolves the login reply for the app to send.
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  startSession(request: FastifyRequest, reply: FastifyReply, user: UserRecord): Promise<LoginReply>;
  /**
   * Ends the request's session, if it has a live one, as a logout does, deleting its cookie on `reply`.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the store cannot be read or could not record the end.
   */
  endSession(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  /** A user's live sessions, oldest first. */
  listSessions(uid: string): Promise<StoredSession[]>;
  /** Ends every session of a user ("log out everywhere"); resolves how many ended. */
  endUserSessions(uid: string): Promise<number>;
}

/** The plugin's options: the package's own ({@link SessionAuthOptions}), checked when the plugin is registered. */
export type FastifySessionAuthOptions = SessionAuthOptions;

/** A Fastify error as the wire format's: Fastify's own body errors become the endpoint's. */
function fastifyError(error: unknown): unknown {
  if (isSessionAuthError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "FST_ERR_CTP_INVALID_JSON_BODY" || (error instanceof SyntaxError && (error as { statusCode?: unknown }).statusCode === 400))
    return new SessionAuthError("ERR_INVALID_JSON");
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return new SessionAuthError("ERR_BODY_TOO_LARGE");
  // A path that cannot be percent-decoded, when the app hands Fastify's frameworkErrors to the error handler.
  if (code === "FST_ERR_BAD_URL") return new SessionAuthError("ERR_MALFORMED_REQUEST");
  return error;
}

const TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;

/** Whether Fastify reads a Content-Type as a media type (`type/subtype`, parameters aside), as its own check does. */
function isMediaType(value: string): boolean {
  const end = value.indexOf(";");
  const mediaType = end === -1 ? value : value.slice(0, end);
  const slash = mediaType.indexOf("/");
  return slash !== -1 && TOKEN.test(mediaType.slice(0, slash).trimStart()) && TOKEN.test(mediaType.slice(slash + 1).trimEnd());
}

async function sessionAuthPlugin(fastify: FastifyInstance, options: FastifySessionAuthOptions): Promise<void> {
  const engine = createEngine(options, "fastifySessionAuth");
  const { endpoint } = engine;
  const { endpointPath: ownPath, bodyLimit } = engine.options.endpoint;
  const prefix = fastify.prefix;
  const endpointPath = `${prefix}${ownPath}`;
  const corsSettings = engine.options.cors;

  /** Applies a CORS decision: answers a preflight (then `false`), or adds the headers to the reply the request will get. */
  function cors(decision: CorsDecision, reply: FastifyReply): boolean {
    if ("preflight" in decision) {
      send(reply, decision.preflight);
      return false;
    }
    addHeaders(reply, decision.headers);
    return true;
  }

  function guard(guardOptions: RequireSessionOptions, optional: boolean): preHandlerHookHandler {
    const { check, settings } = engine.guard(guardOptions, optional);
    /** Puts what the guard decided on the request and the reply, and goes on (or refuses). */
    function conclude(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, outcome: GuardOutcome): void {
      try {
        appendCookies(reply, outcome.setCookie);
        if (outcome.error !== undefined) {
          const wire = errorReply(outcome.error);
          if (settings.onDenied === "next") return done(Object.assign(outcome.error, { statusCode: wire.status }));
          send(reply, wire);
          return;
        }
        request.auth = outcome.auth;
      } catch (error) {
        return done(error as Error);
      }
      // Outside the try: the route may now run within this call, and its throw is not the guard's.
      done();
    }
    // A callback hook, not an async one: over the memory stores a protected request is decided without a promise.
    return function sessionGuard(request, reply, done) {
      let outcome: GuardOutcome | Promise<GuardOutcome>;
      try {
        // Its reply, and its denials too, readable by the app origins wherever the route is.
        if (corsSettings.enabled && !cors(corsDecision(corsRequest(request), corsSettings), reply)) return;
        outcome = check(guardRequest(request));
      } catch (error) {
        return done(error as Error);
      }
      if (outcome instanceof Promise) outcome.then((settled) => conclude(request, reply, done, settled), done);
      else conclude(request, reply, done, outcome);
    };
  }

  function errorHandler() {
    return function servicesErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const wire = engine.replyToError(fastifyError(error), sessionRequest(request).requestId);
      if (wire.status >= 500 && !isSessionAuthError(error)) request.log.error({ err: error }, "unhandled error");
      return send(reply, wire);
    };
  }

  // The endpoint, services/session/token and the app's paths of the cors option, relative to
  // the plugin's prefix: a preflight is answered before routing goes on (no route of the app's
  // takes an OPTIONS), and every other reply there gets the headers, Fastify's 404s and errors included.
  if (corsSettings.enabled) {
    fastify.addHook("onRequest", function servicesCors(request, reply, done) {
      const path = routedPath(request);
      const own = path.startsWith(prefix) ? path.slice(prefix.length) : path;
      const decision = corsAtPath(own, ownPath, corsSettings, () => corsRequest(request));
      if (decision === undefined || cors(decision, reply)) done();
    });
  }

  fastify.decorateRequest("auth", undefined);
  fastify.decorate("sessionAuth", {
    endpointPath,
    requireSession: (guardOptions = {}) => guard(guardOptions, false),
    optionalSession: (guardOptions = {}) => guard(guardOptions, true),
    notFound(notFoundOptions = {}) {
      const reply = engine.notFound(notFoundOptions);
      const below = endpointPath.toLowerCase();
      return (request, fastifyReply) => send(fastifyReply, reply(notFoundRequest(request, below)));
    },
    errorHandler,
    ...sessionControls<FastifyRequest, FastifyReply>(engine, servicesRequest, (reply, setCookie, noStore) => {
      appendCookies(reply, setCookie);
      if (noStore) reply.header("Cache-Control", "no-store");
    }),
  } satisfies FastifySessionAuth);

  // The Services routes in a context of their own: the endpoint reads its bodies as Services
  // does, so there no parser of the app's runs and the stream is left for it to read.
  await fastify.register(async function servicesRoutes(routes) {
    routes.removeAllContentTypeParsers();
    routes.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
    routes.setErrorHandler(errorHandler());
    // Fastify answers a Content-Type it cannot read as a media type (`json`, a list, an empty one) with a
    // 415 of its own before any hook after this one: Services reads it as an unsupported type
    // (406 in the wire format), and services/session/token never reads a body. Such a request
    // is answered here, by its route's own handler.
    routes.addHook("onRequest", async function unreadableContentType(request, reply) {
      const type = request.headers["content-type"];
      if (type === undefined || isMediaType(type)) return;
      await request.routeOptions.handler.call(routes, request, reply);
      return reply;
    });

    const sessionToken = async (request: FastifyRequest, reply: FastifyReply) => send(reply, await endpoint.sessionToken(sessionRequest(request)));
    routes.all("/services/session/token", sessionToken);
    // With a trailing slash too, as Drupal and the Express router answer it; an app with
    // Fastify's ignoreTrailingSlash already routes it there, and refuses it as a duplicate.
    try {
      routes.all("/services/session/token/", sessionToken);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "FST_ERR_DUPLICATED_ROUTE") throw error;
    }
    const services = async (request: FastifyRequest, reply: FastifyReply) => {
      const wire = await endpoint.handle(endpointRequest(request, endpointPath, bodyLimit));
      // Not a call of the endpoint, and no route of the app's took it: Fastify's not-found handler answers.
      if (wire === undefined) return reply.callNotFound();
      return send(reply, wire);
    };
    routes.all(ownPath, services);
    routes.all(`${ownPath}/*`, services);
  });
}

/**
 * Drupal 7 Services' session authentication as a Fastify 5 plugin: `user/login`,
 * `system/connect`, `user/logout`, `user/token` and the endpoint root under the endpoint path
 * (`services/json` by default, below the prefix of the context it is registered in),
 * `services/session/token`, and `fastify.sessionAuth` with the `preHandler` guards (typed
 * `request.auth`), Services' 404s and the wire format's error handler; and CORS for the app
 * origins of `trustedOrigins` (an `onRequest` hook: docs/hybrid-apps.md). It is not
 * encapsulated (the decorators reach the app); its routes are, with a body parser of their
 * own. The options are checked at registration: an invalid one fails `register` with a
 * `TypeError` naming it. For Drupal's `?q=` paths, give Fastify {@link drupalRewriteUrl}.
 *
 * @example
 * ```ts
 * const app = Fastify({ rewriteUrl: drupalRewriteUrl() });
 * await app.register(fastifySessionAuth, { userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * app.get("/services/json/me", { preHandler: app.sessionAuth.requireSession() }, async (request) => ({ name: request.auth!.user.name }));
 * app.setNotFoundHandler(app.sessionAuth.notFound({ resources: ["me"] }));
 * app.setErrorHandler(app.sessionAuth.errorHandler());
 * ```
 */
export const fastifySessionAuth = Object.assign(sessionAuthPlugin, {
  // What fastify-plugin would set: no encapsulation of its own (the decorators reach the
  // registering context), a name for Fastify's dependency checks, and the Fastify it needs.
  [Symbol.for("skip-override")]: true,
  [Symbol.for("fastify.display-name")]: "services-session-auth",
  [Symbol.for("plugin-meta")]: { name: "services-session-auth", fastify: "5.x" },
});
