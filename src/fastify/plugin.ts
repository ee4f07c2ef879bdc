import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from "fastify";
import { createEngine, type NotFoundOptions, type SessionAuthBase } from "../engine/engine.js";
import type { Guard } from "../engine/guard.js";
import type { LoginReply } from "../endpoint/endpoint.js";
import { SessionAuthError } from "../errors.js";
import type { OptionalSessionOptions, RequireSessionOptions, SessionAuthOptions } from "../options/options.js";
import type { RequestAuth } from "../sessions/session-check.js";
import type { UserRecord } from "../types.js";
import { originForm } from "../http-input/target.js";
import { addHeaders, belowPrefix, FastifyHttpRequest, send, setterOf } from "./request.js";

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
  optionalSession(options?: OptionalSessionOptions): preHandlerHookHandler;
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

/** Fastify's own body and URL errors as the endpoint's (for the engine); `undefined` for any other. */
function fastifyError(error: unknown): SessionAuthError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "FST_ERR_CTP_INVALID_JSON_BODY" || (error instanceof SyntaxError && (error as { statusCode?: unknown }).statusCode === 400))
    return new SessionAuthError("ERR_INVALID_JSON");
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return new SessionAuthError("ERR_BODY_TOO_LARGE");
  if (code === "FST_ERR_BAD_URL") return new SessionAuthError("ERR_MALFORMED_REQUEST");
  return undefined;
}

/** Whether Fastify reads a Content-Type as a media type (`type/subtype`), as its own check does: else it answers a bodiless 415. */
function isMediaType(value: string): boolean {
  const mediaType = value.split(";", 1)[0]!;
  const slash = mediaType.indexOf("/");
  return slash !== -1 && TOKEN.test(mediaType.slice(0, slash).trimStart()) && TOKEN.test(mediaType.slice(slash + 1).trimEnd());
}
const TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;

async function sessionAuthPlugin(fastify: FastifyInstance, options: FastifySessionAuthOptions): Promise<void> {
  const engine = createEngine(options, {
    factory: "fastifySessionAuth",
    trustProxyFix: "trust it by hop count: Fastify({ trustProxy: (address, hop) => hop < 1 }) (Fastify 5 refuses a bare number)",
    foreignError: fastifyError,
  });
  const { endpointPath } = engine.base;
  // Fastify keeps a registered "/api/" as it is, and routes "/api/services/…" there all the same.
  const prefix = fastify.prefix.endsWith("/") ? fastify.prefix.slice(0, -1) : fastify.prefix;
  if (/[:*]/.test(prefix)) throw new TypeError(`fastifySessionAuth: the prefix "${prefix}" has a parameter; register the plugin under a fixed prefix`);
  const describe = (request: FastifyRequest) => new FastifyHttpRequest(request, prefix);
  const unrouted = `a ?q= Services call reached Fastify unrouted: create the server with Fastify({ rewriteUrl: drupalRewriteUrl(options${prefix === "" ? "" : `, { prefix: ${JSON.stringify(prefix)} }`}) })`;

  function guard(decide: Guard): preHandlerHookHandler {
    return function sessionGuard(request, reply, done) {
      decide(describe(request)).then((decided) => {
        if (decided.kind === "reply") return void send(reply, decided.reply);
        addHeaders(reply, decided.headers);
        if (decided.kind === "fail") return done(decided.error);
        request.auth = decided.auth;
        done();
      }, done);
    };
  }

  function errorHandler() {
    return function servicesErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      return send(
        reply,
        engine.fail(error, describe(request), (err) => request.log.error({ err }, "unhandled error")),
      );
    };
  }

  // CORS on every path it covers, before routing: a preflight is answered (no route of the app's
  // takes an OPTIONS), and every other reply there gets the headers, Fastify's 404s included.
  const { cors } = engine;
  if (cors !== undefined) {
    fastify.addHook("onRequest", function servicesCors(request, reply, done) {
      const decision = cors(describe(request));
      if (decision !== undefined && "preflight" in decision) return void send(reply, decision.preflight);
      if (decision !== undefined) addHeaders(reply, decision.headers);
      done();
    });
  }

  fastify.decorateRequest("auth", undefined);
  fastify.decorate("sessionAuth", {
    ...engine.base,
    endpointPath: `${prefix}${endpointPath}`,
    requireSession: (guardOptions) => guard(engine.requireSession(guardOptions)),
    optionalSession: (guardOptions) => guard(engine.optionalSession(guardOptions)),
    notFound(notFoundOptions) {
      const answer = engine.notFound(notFoundOptions);
      return async (request, reply) => {
        // A ?q= Services call below the prefix Fastify did not route (no drupalRewriteUrl): only said, never answered past the app's hooks.
        const below = belowPrefix(originForm(request.url), prefix);
        if (request.url === request.originalUrl && below !== undefined) engine.unserved(below, unrouted, true);
        return send(reply, answer(describe(request)));
      };
    },
    errorHandler,
    startSession: (request, reply, user) => engine.startSession(describe(request), user, setterOf(reply)),
    endSession: (request, reply) => engine.endSession(describe(request), setterOf(reply)),
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
      const decided = await engine.serve(describe(request));
      // Not one of the calls, and no route of the app's took it: Fastify's not-found handler answers.
      return decided?.kind === "reply" ? send(reply, decided.reply) : reply.callNotFound();
    };
    routes.all(endpointPath, services);
    routes.all(`${endpointPath}/*`, services);
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
