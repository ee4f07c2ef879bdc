import { normalizeOrigin } from "../origins/origin.js";
import { isTokenPath, pathBelow } from "../http-input/target.js";
import { mergeVary, NO_HEADERS, type HeaderRecord } from "../http-input/headers.js";
import type { WireResponse } from "../wire/reply.js";
import type { CorsSettings } from "./options.js";

/**
 * CORS for the app origins, framework-free: from what a request says of itself (`Origin`,
 * its method, `Access-Control-Request-*`) to the headers its reply gets, or the whole reply
 * to a preflight. Written here rather than taken from the `cors` package: the origins are
 * the ones `trustedOrigins` already normalises (`capacitor://localhost`; never `null`), a
 * credentialed reply must echo one origin and never `*`, the Services version headers are a
 * family no fixed list names, and the engine needs replies as {@link WireResponse}s, not as
 * Express middleware.
 *
 * @module
 */

/** What CORS reads of a request. */
export interface CorsRequest {
  /** The real HTTP method. */
  readonly method: string;
  /** The `Origin` header, if sent. */
  readonly origin: string | undefined;
  /** `Access-Control-Request-Method`: present on a preflight. */
  readonly requestMethod: string | undefined;
  /** `Access-Control-Request-Headers`: the headers the real request will carry. */
  readonly requestHeaders: string | undefined;
}

/**
 * What to do with a request: answer a preflight with `reply`; or go on, adding `headers` to
 * whatever reply the request gets (`Vary: Origin` alone for an origin that is not listed, so
 * that a cache never hands one origin's reply to another).
 */
export type CorsDecision = { readonly preflight: WireResponse } | { readonly headers: Readonly<Record<string, string>> };

const VARY_ORIGIN = Object.freeze({ Vary: "Origin" });

/**
 * Decides one request. A preflight (an OPTIONS with `Origin` and
 * `Access-Control-Request-Method`) from a listed origin is answered `204` with the methods,
 * the requested headers that are allowed, and the max-age; one from an origin not listed is
 * left alone (the app, or the endpoint as Services did, answers it without CORS headers, and
 * the browser blocks the call).
 *
 * @example
 * ```ts
 * const decision = corsDecision({ method: "OPTIONS", origin: "capacitor://localhost", requestMethod: "POST", requestHeaders: "x-csrf-token" }, settings);
 * if ("preflight" in decision) console.log(decision.preflight.status); // 204, from a listed origin
 * else console.log(decision.headers.Vary); // "Origin": what any other request adds to its reply
 * ```
 */
export function corsDecision(request: CorsRequest, settings: CorsSettings): CorsDecision {
  const origin = request.origin === undefined ? undefined : normalizeOrigin(request.origin);
  // null is any sandboxed frame's or data: document's: never answered, whatever the list holds.
  if (origin === undefined || origin === "null" || !settings.origins.has(origin)) return { headers: VARY_ORIGIN };
  // The origin as the browser sent it: it compares the echo byte for byte.
  const allowOrigin = request.origin!.trim();
  const common: Record<string, string> = { "Access-Control-Allow-Origin": allowOrigin, Vary: "Origin" };
  if (settings.credentials) common["Access-Control-Allow-Credentials"] = "true";
  if (request.method !== "OPTIONS" || request.requestMethod === undefined) {
    return { headers: settings.exposedHeaders === undefined ? common : { ...common, "Access-Control-Expose-Headers": settings.exposedHeaders } };
  }
  const headers: Record<string, string> = {
    ...common,
    Vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    "Access-Control-Allow-Methods": settings.methods,
    "Access-Control-Max-Age": String(settings.maxAge),
    "Cache-Control": "no-store",
  };
  const allowed = allowedRequestHeaders(request.requestHeaders, settings.allowedHeaders);
  if (allowed !== "") headers["Access-Control-Allow-Headers"] = allowed;
  return { preflight: { status: 204, headers, body: null } };
}

/** The requested headers that are allowed, in the request's order; one the list does not allow is left out, and the browser then refuses the call. */
function allowedRequestHeaders(requested: string | undefined, allowed: ReadonlySet<string>): string {
  if (requested === undefined) return "";
  // At most 64 names: a browser sends a handful, and more is not worth reading.
  const names = requested.split(",", 64).map((name) => name.trim().toLowerCase());
  return names.filter((name) => name !== "" && (allowed.has(name) || isServicesVersionHeader(name))).join(", ");
}

/**
 * Whether a (lower-cased) header name is a `services_<resource>_<method>_version` header,
 * with `_` or `-` between the words, as Services reads them.
 */
export function isServicesVersionHeader(name: string): boolean {
  const separator = (at: number) => name[at] === "_" || name[at] === "-";
  return name.length > 17 && name.startsWith("services") && name.endsWith("version") && separator(8) && separator(name.length - 8);
}

/**
 * CORS at a binding's front door, before any route: the decision for a request on a path CORS
 * covers ({@link corsCovers}), or `undefined` when CORS is off or does not cover the path (a
 * guard still adds the headers to its route's replies, wherever the route is). What the
 * bindings without a router of their own in front (Fastify's `onRequest` hook, the fetch
 * handler) call for every request, so the cheap tests come first.
 *
 * @param path - The path as routed (after any `?q=` rewriting), relative to where the binding is mounted.
 * @param describe - Reads the request: called only for a covered path.
 * @example
 * ```ts
 * const preflight = { method: "OPTIONS", origin: "capacitor://localhost", requestMethod: "POST", requestHeaders: undefined };
 * const decision = corsAtPath("/services/json/user/login.json", "/services/json", settings, () => preflight);
 * if (decision !== undefined && "preflight" in decision) console.log(decision.preflight.status); // 204, before any route
 * ```
 */
export function corsAtPath(path: string, endpointPath: string, settings: CorsSettings, describe: () => CorsRequest): CorsDecision | undefined {
  if (!settings.enabled || !corsCovers(path, endpointPath, settings.paths)) return undefined;
  return corsDecision(describe(), settings);
}

/**
 * A wire reply with CORS headers added (`Vary` merged with its own, CORS's `Origin` first, as
 * where the headers are set on the reply before it is made): for a binding that turns
 * replies into values of its framework's rather than writing them onto a response object.
 */
export function withCorsHeaders(wire: WireResponse, headers: HeaderRecord | undefined): WireResponse {
  if (headers === undefined || headers === NO_HEADERS) return wire;
  const merged: Record<string, string | readonly string[]> = { ...wire.headers };
  for (const name in headers) {
    const value = headers[name]!;
    const had = merged[name];
    merged[name] = name === "Vary" && typeof had === "string" && typeof value === "string" ? mergeVary(value, had) : value;
  }
  return { ...wire, headers: merged };
}

/**
 * Whether CORS covers a path: the endpoint path and below it, `/services/session/token`
 * (with a trailing slash too, as it is answered), or one of the {@link CorsSettings.paths}
 * patterns (`*` any characters). Linear in the path.
 *
 * @param endpointPath - With a leading slash and none at the end (`/services/json`).
 */
export function corsCovers(path: string, endpointPath: string, patterns: readonly string[]): boolean {
  if (pathBelow(path, endpointPath) !== undefined || isTokenPath(path)) return true;
  return patterns.some((pattern) => matchesPattern(path, pattern));
}

/** Drupal's `drupal_match_path` for one pattern: `*` matches any run of characters, everything else itself. */
function matchesPattern(path: string, pattern: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return path === pattern;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (path.length < first.length + last.length || !path.startsWith(first) || !path.endsWith(last)) return false;
  // Each middle part at its leftmost place after the one before: the leftmost fit leaves the most room for the rest.
  let at = first.length;
  const end = path.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = path.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
