import type { IncomingMessage } from "node:http";
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, preHandlerHookHandler } from "fastify";
import type { SessionAuthContract } from "../engine/contract.js";
import { createEngine, type SessionAuthBase } from "../engine/engine.js";
import type { Decision, Guard } from "../engine/guard.js";
import { SessionAuthError } from "../errors.js";
import type { SessionAuthOptions } from "../options/options.js";
import type { RequestAuth } from "../sessions/session-check.js";
import { isMediaType } from "../http-input/body.js";
import { belowPrefix, originForm } from "../http-input/target.js";
import { NO_HEADERS, writeHeaders } from "../http-output/headers.js";
import { FastifyHttpRequest, send, setterOf } from "./request.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `requireSession()` on the requests it lets through, and by `optionalSession()` when a session is live; `undefined` elsewhere. */
    auth: RequestAuth | undefined;
  }
}

/** A Fastify request and its reply, as `startSession` and `endSession` take them. */
export type FastifyExchange = [request: FastifyRequest, reply: FastifyReply];
/** What {@link createSessionAuthPlugin} returns: the plugin to register, with the guards and handlers for the app's own routes. */
export interface SessionAuthPlugin
  extends FastifyPluginAsync, SessionAuthContract<preHandlerHookHandler, (...exchange: FastifyExchange) => Promise<FastifyReply>, FastifyExchange> {
  /** Fastify's `rewriteUrl` for Drupal's `?q=` paths (Fastify takes it only at creation): `Fastify({ rewriteUrl: sessionAuth.rewriteUrl })`. */
  rewriteUrl(request: IncomingMessage): string;
  /** For `setErrorHandler`: errors in the wire format, anything else a body-less 500 logged with `request.log.error`. */
  errorHandler(): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

/** Fastify's own body and URL errors as the endpoint's (for the engine); `undefined` for any other. */
function fastifyError(error: unknown): SessionAuthError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "FST_ERR_CTP_INVALID_JSON_BODY" || (error instanceof SyntaxError && (error as { statusCode?: unknown }).statusCode === 400))
    return new SessionAuthError("ERR_INVALID_JSON");
  if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return new SessionAuthError("ERR_BODY_TOO_LARGE");
  if (code === "FST_ERR_BAD_URL") return new SessionAuthError("ERR_MALFORMED_REQUEST");
  return undefined;
}

/** Carries out a guard's decision: its reply, or the route with `request.auth` (or the error handler, `onDenied: "next"`). */
function carry(decided: Decision, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  if (decided.kind === "reply") return void send(reply, decided.reply);
  if (decided.headers !== NO_HEADERS) writeHeaders(decided.headers, setterOf(reply));
  if (decided.kind === "fail") return done(decided.error);
  request.auth = decided.auth;
  done();
}

/**
 * Drupal 7 Services' session authentication as a Fastify 5 plugin: register it (under a prefix or
 * none) for the Services routes below the endpoint path and CORS for `trustedOrigins`; its guards
 * and handlers are on it. Not encapsulated (`request.auth` reaches the app); its routes are, with a
 * body reader of their own. For Drupal's `?q=` paths, give Fastify its `rewriteUrl`.
 *
 * @example
 * ```ts
 * const sessionAuth = createSessionAuthPlugin({ userStore, sessionStore: memorySessionStore(), secret: process.env.SESSION_SECRET! });
 * const app = Fastify({ rewriteUrl: sessionAuth.rewriteUrl });
 * await app.register(sessionAuth);
 * app.get("/services/json/me", { preHandler: sessionAuth.requireSession() }, async (request) => ({ name: request.auth!.user.name }));
 * ```
 * @throws TypeError when an option is missing or invalid.
 */
export function createSessionAuthPlugin(options: SessionAuthOptions): SessionAuthPlugin {
  const engine = createEngine(options, {
    factory: "createSessionAuthPlugin",
    trustProxyFix: "trust it by hop count: Fastify({ trustProxy: (address, hop) => hop < 1 }) (Fastify 5 refuses a bare number)",
    foreignError: fastifyError,
  });
  const { endpointPath } = engine.base;
  // The prefix the plugin is registered under: known at registration, before any request.
  let prefix: string | undefined;
  const describe = (request: FastifyRequest) => new FastifyHttpRequest(request, prefix ?? "");
  const unrouted = "a ?q= Services call reached Fastify unrouted: create the server with Fastify({ rewriteUrl: sessionAuth.rewriteUrl })";

  const guard = (decide: Guard): preHandlerHookHandler =>
    function sessionGuard(request, reply, done) {
      const decision = decide(describe(request));
      if (decision instanceof Promise) decision.then((decided) => carry(decided, request, reply, done)).catch(done);
      else carry(decision, request, reply, done);
    };

  function errorHandler() {
    return function servicesErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const answer = engine.fail(error, describe(request), (err) => request.log.error({ err }, "unhandled error"));
      return send(reply, answer);
    };
  }

  async function sessionAuthPlugin(fastify: FastifyInstance): Promise<void> {
    // Fastify keeps a registered "/api/" as it is, and routes "/api/services/…" there all the same.
    const at = fastify.prefix.endsWith("/") ? fastify.prefix.slice(0, -1) : fastify.prefix;
    if (/[:*]/.test(at)) throw new TypeError(`createSessionAuthPlugin: the prefix "${at}" has a parameter; register the plugin under a fixed prefix`);
    if (prefix !== undefined) throw new TypeError("createSessionAuthPlugin: the plugin is registered already; register each one once");
    prefix = at;
    // CORS on every path it covers, before routing: a preflight is answered (no route of the app's
    // takes an OPTIONS), and every other reply there gets the headers, Fastify's 404s included.
    const { cors } = engine;
    if (cors !== undefined) {
      fastify.addHook("onRequest", function servicesCors(request, reply, done) {
        const decision = cors(describe(request));
        if (decision !== undefined && "preflight" in decision) return void send(reply, decision.preflight);
        if (decision !== undefined) writeHeaders(decision.headers, setterOf(reply));
        done();
      });
    }
    fastify.decorateRequest("auth", undefined);
    // The Services routes in a context of their own: the endpoint reads its bodies as Services does, so no parser of the app's runs there.
    await fastify.register(async function servicesRoutes(routes) {
      routes.removeAllContentTypeParsers();
      routes.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
      routes.setErrorHandler(errorHandler());
      // Fastify answers a Content-Type it cannot read as a media type (its check is isMediaType's) with a 415 of its own before
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

  const pieces: Omit<SessionAuthPlugin, keyof FastifyPluginAsync | keyof SessionAuthBase> = {
    rewriteUrl(request) {
      const url = request.url ?? "/";
      // Below the prefix only, as Fastify's router strips it: `/apix/?q=` is not the prefix's.
      const below = belowPrefix(originForm(url), prefix ?? "");
      const routed = below === undefined ? undefined : engine.route(below);
      return routed === undefined ? url : `${prefix ?? ""}${routed}`;
    },
    requireSession: (guardOptions) => guard(engine.requireSession(guardOptions)),
    optionalSession: (guardOptions) => guard(engine.optionalSession(guardOptions)),
    startSession: (request, reply, user) => engine.startSession(describe(request), user, setterOf(reply)),
    endSession: (request, reply) => engine.endSession(describe(request), setterOf(reply)),
    notFound(notFoundOptions) {
      const answer = engine.notFound(notFoundOptions);
      return async (request, reply) => {
        // A ?q= Services call below the prefix Fastify did not route (no rewriteUrl): only said, never answered past the app's hooks.
        const below = belowPrefix(originForm(request.url), prefix ?? "");
        if (request.url === request.originalUrl && below !== undefined) engine.unserved(below, unrouted, true);
        return send(reply, answer(describe(request)));
      };
    },
    errorHandler,
  };
  // What fastify-plugin would set: no encapsulation of its own, a name, and the Fastify it needs.
  const meta = { [Symbol.for("skip-override")]: true, [Symbol.for("fastify.display-name")]: "services-session-auth" };
  Object.assign(sessionAuthPlugin, meta, { [Symbol.for("plugin-meta")]: { name: "services-session-auth", fastify: "5.x" } }, engine.base, pieces);
  // Below the prefix it is registered under, once it is.
  return Object.defineProperty(sessionAuthPlugin, "endpointPath", { get: () => `${prefix ?? ""}${endpointPath}` }) as unknown as SessionAuthPlugin;
}
