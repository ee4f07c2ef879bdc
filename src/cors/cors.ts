import { normalizeOrigin } from "../origins/origin.js";
import { isTokenPath, pathBelow } from "../http-input/target.js";
import { mergeVary, NO_HEADERS, type HeaderRecord } from "../http-output/headers.js";
import type { WireResponse } from "../wire/reply.js";
import type { CorsSettings } from "./options.js";

/**
 * CORS for the app origins, framework-free: a request's `Origin` and preflight headers to the
 * headers its reply gets, or the preflight's reply. Not the `cors` package: origins are the
 * normalised `trustedOrigins` (never `null`, never `*`), the Services version headers are a
 * family, and the engine needs {@link WireResponse}s. Behaviour: docs/hybrid-apps.md.
 *
 * @module
 */

/** What CORS reads of a request. */
export interface CorsRequest {
  readonly method: string;
  readonly origin: string | undefined;
  /** `Access-Control-Request-Method`: present on a preflight. */
  readonly requestMethod: string | undefined;
  /** `Access-Control-Request-Headers`: the headers the real request will carry. */
  readonly requestHeaders: string | undefined;
}

/** Answer a preflight with `reply`, or add `headers` to the reply (`Vary: Origin` alone for an unlisted origin, for caches). */
export type CorsDecision = { readonly preflight: WireResponse } | { readonly headers: Readonly<Record<string, string>> };

const VARY_ORIGIN = Object.freeze({ Vary: "Origin" });

/** Decides one request: a listed origin's preflight gets a `204`; another's is answered without CORS, so the browser blocks it. */
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
  // A browser sends a handful; more is not worth reading.
  const names = requested.split(",", 64).map((name) => name.trim().toLowerCase());
  return names.filter((name) => name !== "" && (allowed.has(name) || isServicesVersionHeader(name))).join(", ");
}

/** Whether a lower-cased header name is a `services_<resource>_<method>_version` header (`_` or `-`), as Services reads them. */
export function isServicesVersionHeader(name: string): boolean {
  const separator = (at: number) => name[at] === "_" || name[at] === "-";
  return name.length > 17 && name.startsWith("services") && name.endsWith("version") && separator(8) && separator(name.length - 8);
}

/**
 * CORS at a binding's front door, before any route: the decision for a path CORS covers, else
 * `undefined`. Called for every request, so the cheap tests come first.
 *
 * @param path - The path as routed (after any `?q=` rewriting), relative to where the binding is mounted.
 * @param describe - Reads the request: called only for a covered path.
 */
export function corsAtPath(path: string, endpointPath: string, settings: CorsSettings, describe: () => CorsRequest): CorsDecision | undefined {
  if (!settings.enabled || !corsCovers(path, endpointPath, settings.paths)) return undefined;
  return corsDecision(describe(), settings);
}

/** A wire reply with CORS headers added (`Vary` merged, CORS's `Origin` first), for bindings that return replies as values. */
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
 * Whether CORS covers a path: the endpoint and below, `/services/session/token`, or a
 * {@link CorsSettings.paths} pattern (`*` any characters). Linear in the path.
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
  // Leftmost fit for each middle part leaves the most room for the rest.
  let at = first.length;
  const end = path.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = path.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
