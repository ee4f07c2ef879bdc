import { corsAtPath, withCorsHeaders } from "../cors/cors.js";
import type { CorsSettings } from "../cors/options.js";
import type { ServicesEndpoint } from "../endpoint/endpoint.js";
import { NO_HEADERS, type HeaderRecord } from "../http-output/headers.js";
import type { HttpRequest } from "../http-input/request.js";
import { isTokenPath, pathBelow, splitTarget, TOKEN_PATH } from "../http-input/target.js";
import { trimSlashes } from "../http-input/path.js";
import type { WireResponse } from "../wire/reply.js";
import { RequestView, type ViewSettings } from "./request-view.js";

/**
 * What the package decided of a request on one of its paths, before the app's routes (see {@link Front.serve}):
 * its own `reply`, or the app's route goes on, routed by `target` (`?q=`'s path and the rest of the query,
 * else the request's own) with `headers` for its reply (CORS's, on the paths it covers).
 */
export type Served =
  { readonly kind: "reply"; readonly reply: WireResponse } | { readonly kind: "continue"; readonly target: string; readonly headers: HeaderRecord };

/** The front door every binding puts before the app's routes. */
export interface Front {
  /**
   * Serves what is the package's (Services calls, the token, `?q=`, CORS preflights); `undefined`, at
   * once and without a promise, for a request that is none of its business.
   */
  serve(http: HttpRequest): Promise<Served> | undefined;
  /**
   * Whether a request to `target` (origin-form, as the binding hands it) may be the package's: where
   * it is not, {@link serve} answers `undefined` too, so a binding need not describe the request at all.
   */
  claims(target: string): boolean;
  /**
   * Whether a target names one of the Services calls (an action below the endpoint, the token
   * call), matched case-sensitively, as a router that missed it would have matched it: for a
   * binding to say where it is not mounted, never to answer it there.
   */
  names(target: string): boolean;
}

/** Targets whose claim is remembered; past it the cache starts over, so no client can grow it. */
const KNOWN_TARGETS = 512;
/** Longest target remembered (an app's routes are far shorter): at most 64 KiB of keys, whatever clients send. */
const KNOWN_TARGET_LENGTH = 128;

/** The front door over one endpoint and one set of CORS settings. */
export function front(endpoint: ServicesEndpoint, cors: CorsSettings, settings: ViewSettings, queryPaths: readonly string[]): Front {
  const { endpointPath } = settings;
  // Whether a path below the endpoint is one the endpoint answers (its root, or a call), as `ServicesEndpoint.handle` does.
  const isCall = (below: string): boolean => endpoint.answers(below);
  const honoured = new Set(queryPaths);
  // With patterns of the app's own paths, any request may be a preflight to answer.
  const everywhere = cors.enabled && cors.paths.length > 0;

  // An app's targets repeat (its routes, its assets): each is worked out once, in a bounded cache.
  const known = new Map<string, boolean>();

  function claims(target: string): boolean {
    if (everywhere) return true;
    // A long target is worked out each time: the cache holds at most KNOWN_TARGETS short strings.
    if (target.length > KNOWN_TARGET_LENGTH) return claimsPath(target);
    let claimed = known.get(target);
    if (claimed === undefined) {
      claimed = claimsPath(target);
      if (known.size >= KNOWN_TARGETS) known.clear();
      known.set(target, claimed);
    }
    return claimed;
  }

  function claimsPath(target: string): boolean {
    const { path, query } = splitTarget(target);
    if (isTokenPath(path) || (query !== "" && honoured.has(path))) return true;
    const below = pathBelow(path, endpointPath);
    // An app route below the endpoint is the package's only for CORS's headers: without CORS, it is passed on at once.
    return below !== undefined && (cors.enabled || isCall(below));
  }

  return {
    claims,
    names(target) {
      const { path } = splitTarget(settings.route(target) ?? target);
      const below = path.startsWith(`${endpointPath}/`) ? path.slice(endpointPath.length) : undefined;
      return path.startsWith(TOKEN_PATH) ? isTokenPath(path) : below !== undefined && trimSlashes(below) !== "" && isCall(below);
    },
    serve(http) {
      if (!claims(http.target)) return undefined;
      const rewritten = settings.route(http.target);
      const view = new RequestView(http, settings, rewritten ?? null);
      const { path } = view.routed;
      // The token call first: an endpoint named `services` holds its path too.
      const token = isTokenPath(path);
      const below = !token && pathBelow(path, endpointPath) !== undefined;
      const decision = corsAtPath(path, endpointPath, cors, () => view);
      // Nothing of the package's here after all (a ?q= the app keeps, a path CORS does not cover).
      if (!below && !token && decision === undefined && rewritten === undefined) return undefined;
      // A preflight never reaches a route of the app's: answered here, before any of them.
      if (decision !== undefined && "preflight" in decision) return Promise.resolve({ kind: "reply", reply: decision.preflight });
      const headers = decision?.headers ?? NO_HEADERS;
      const pass: Served = { kind: "continue", target: rewritten ?? http.target, headers };
      const decide = (reply: WireResponse | undefined): Served => (reply === undefined ? pass : { kind: "reply", reply: withCorsHeaders(reply, headers) });
      if (token) return endpoint.sessionToken(view).then(decide);
      return below ? endpoint.handle(view).then(decide) : Promise.resolve(pass);
    },
  };
}
