import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from "fastify";
import { createEngine, sessionAuthBase, type NotFoundOptions, type SessionAuthBase } from "../engine/engine.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import type { RequestAuth } from "../sessions/session-check.js";
import type { UserRecord } from "../types.js";
import { originForm } from "../http-input/target.js";
import { addHeaders, belowPrefix, FastifyHttpRequest, send } from "./request.js";

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

/** What the plugin decorates the instance with (`fastify.sessionAuth`): the guards and handlers for the app's own routes. */
export interface FastifySessionAuth extends SessionAuthBase {
  /**
   * A `preHandler` guard: a live session, its CSRF token on unsafe methods, one of `roles`; else the
   * wire format's 401, 403 or 503 (with `onDenied: "next"`, the error goes to Fastify's error handler). Sets `request.auth`.
   * @throws TypeError at once for an invalid option.
   */
  requireSession(options?: RequireSessionOptions): preHandlerHookHandler;
  /** A `preHandler` that sets `request.auth` when a live session comes, and never refuses for lack of one. */
  optionalSession(options?: Pick<RequireSessionOptions, "onDenied">): preHandlerHookHandler;
  /** For `setNotFoundHandler`: Services' 404s below the endpoint path, Drupal's body-less `404 Not Found` elsewhere. */
  notFound(options?: NotFoundOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  /** For `setErrorHandler`: errors in the wire format, anything else a body-less 500 logged with `request.log.error`. */
  errorHandler(): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  /** Opens a session for a user the app authenticated itself, its cookie on `reply`; resolves the login reply. */
  startSession(request: FastifyRequest, reply: FastifyReply, user: UserRecord): Promise<LoginReply>;
  /** Ends the request's session as a logout does, deleting its cookie on `reply`; throws `ERR_STORE_UNAVAILABLE` if it could not be recorded everywhere. */
  endSession(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
}

/** The plugin's options: the package's own ({@link SessionAuthOptions}), checked when the plugin is registered. */
export type FastifySessionAuthOptions = SessionAuthOptions;

/** A Fastify error as the wire format's: Fastify's own body and URL errors become the endpoint's. */
function fastifyError(error: unknown): unknown {
  if (isSessionAuthError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "FST_ERR_CTP_INVALID_JSON_BODY" || (error instanceof SyntaxError && (error as { statusCode?: unknown }).statusCode === 400))
    return new SessionAuthError("ERR_INVALID_JSON");
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return new SessionAuthError("ERR_BODY_TOO_LARGE");
  if (code === "FST_ERR_BAD_URL") return new SessionAuthError("ERR_MALFORMED_REQUEST");
  return error;
}

/** Whether Fastify reads a Content-Type as a media type (`type/subtype`), as its own check does: else it answers a bodiless 415. */
function isMediaType(value: string): boolean {
  const mediaType = value.split(";", 1)[0]!;
  const slash = mediaType.indexOf("/");
  return slash !== -1 && TOKEN.test(mediaType.slice(0, slash).trimStart()) && TOKEN.test(mediaType.slice(slash + 1).trimEnd());
}
const TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;

async function sessionAuthPlugin(fastify: FastifyInstance, options: FastifySessionAuthOptions): Promise<void> {
  const engine = createEngine(options, "fastifySessionAuth");
  // Fastify keeps a registered "/api/" as it is, and routes "/api/services/…" there all the same.
  const prefix = fastify.prefix.endsWith("/") ? fastify.prefix.slice(0, -1) : fastify.prefix;
  if (/[:*]/.test(prefix)) throw new TypeError(`fastifySessionAuth: the prefix "${prefix}" has a parameter; register the plugin under a fixed prefix`);
  const describe = (request: FastifyRequest) => new FastifyHttpRequest(request, prefix);
  const unrouted = `a ?q= Services call reached Fastify unrouted: create the server with Fastify({ rewriteUrl: drupalRewriteUrl(options${prefix === "" ? "" : `, { prefix: ${JSON.stringify(prefix)} }`}) })`;

  function guard(guardOptions: RequireSessionOptions | undefined, optional: boolean): preHandlerHookHandler {
    const { guard: decide, settings } = engine.guard(guardOptions, optional);
    return function sessionGuard(request, reply, done) {
      decide(describe(request)).then((result) => {
        // A refusal's reply carries its headers already; the route's, or the error handler's, gets them here.
        if (result.reply !== undefined && (result.error === undefined || settings.onDenied !== "next")) return void send(reply, result.reply);
        addHeaders(reply, result.headers);
        if (result.reply === undefined) request.auth = result.auth;
        done(result.error);
      }, done);
    };
  }

  function errorHandler() {
    return function servicesErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const wire = engine.replyToError(fastifyError(error), describe(request));
      if (wire.status >= 500 && !isSessionAuthError(error)) request.log.error({ err: error }, "unhandled error");
      return send(reply, wire);
    };
  }

  // CORS on every path it covers, before routing: a preflight is answered (no route of the app's
  // takes an OPTIONS), and every other reply there gets the headers, Fastify's 404s included.
  if (engine.options.cors.enabled) {
    fastify.addHook("onRequest", function servicesCors(request, reply, done) {
      const decision = engine.cors(describe(request));
      if (decision !== undefined && "preflight" in decision) return void send(reply, decision.preflight);
      if (decision !== undefined) addHeaders(reply, decision.headers);
      done();
    });
  }

  fastify.decorateRequest("auth", undefined);
  fastify.decorate("sessionAuth", {
    ...sessionAuthBase(engine),
    endpointPath: `${prefix}${engine.endpointPath}`,
    requireSession: (guardOptions) => guard(guardOptions, false),
    optionalSession: (guardOptions) => guard(guardOptions, true),
    notFound(notFoundOptions) {
      const answer = engine.notFound(notFoundOptions);
      return async (request, reply) => {
        // A ?q= Services call below the prefix Fastify did not route (no drupalRewriteUrl): only said, never answered past the app's hooks.
        const below = belowPrefix(originForm(request.url), prefix);
        if (request.url === request.originalUrl && below !== undefined && engine.route(below) !== undefined && engine.names(below))
          engine.reportOnce("config.routing", unrouted);
        return send(reply, answer(describe(request)));
      };
    },
    errorHandler,
    async startSession(request, reply, user) {
      const { result, headers } = await engine.startSession(describe(request), user);
      addHeaders(reply, headers);
      return result;
    },
    async endSession(request, reply) {
      const { result, headers, error } = await engine.endSession(describe(request));
      addHeaders(reply, headers);
      if (error !== undefined) throw error;
      return result;
    },
  } satisfies FastifySessionAuth);

  // The Services routes in a context of their own: the endpoint reads its bodies as Services
  // does, so no parser of the app's runs there.
  await fastify.register(async function servicesRoutes(routes) {
    routes.removeAllContentTypeParsers();
    routes.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
    routes.setErrorHandler(errorHandler());
    // Fastify answers a Content-Type it cannot read as a media type with a 415 of its own before
    // later hooks; Services reads it as an unsupported type (406): answered here by the route.
    routes.addHook("onRequest", async function unreadableContentType(request, reply) {
      const type = request.headers["content-type"];
      if (type === undefined || isMediaType(type)) return;
      await request.routeOptions.handler.call(routes, request, reply);
      return reply;
    });
    const services = async (request: FastifyRequest, reply: FastifyReply) => {
      const wire = await engine.serve(describe(request))?.reply;
      // Not one of the calls, and no route of the app's took it: Fastify's not-found handler answers.
      return wire === undefined ? reply.callNotFound() : send(reply, wire);
    };
    routes.all(engine.endpointPath, services);
    routes.all(`${engine.endpointPath}/*`, services);
    routes.all("/services/session/token", services);
    // With a trailing slash too, as Drupal answers it; an app with ignoreTrailingSlash already routes it there.
    try {
      routes.all("/services/session/token/", services);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "FST_ERR_DUPLICATED_ROUTE") throw error;
    }
  });
}

/**
 * Drupal 7 Services' session authentication as a Fastify 5 plugin: the Services routes under
 * the endpoint path (below the prefix it is registered under), CORS for `trustedOrigins`, and
 * `fastify.sessionAuth`. Not encapsulated (the decorators reach the app); its routes are, with a
 * body reader of their own. For Drupal's `?q=` paths, give Fastify {@link drupalRewriteUrl}.
 *
 * @example
 * ```ts
 * const app = Fastify({ rewriteUrl: drupalRewriteUrl(options) });
 * await app.register(fastifySessionAuth, options);
 * app.get("/services/json/me", { preHandler: app.sessionAuth.requireSession() }, async (request) => ({ name: request.auth!.user.name }));
 * ```
 */
export const fastifySessionAuth = Object.assign(sessionAuthPlugin, {
  // What fastify-plugin would set: no encapsulation of its own, a name, and the Fastify it needs.
  [Symbol.for("skip-override")]: true,
  [Symbol.for("fastify.display-name")]: "services-session-auth",
  [Symbol.for("plugin-meta")]: { name: "services-session-auth", fastify: "5.x" },
});
