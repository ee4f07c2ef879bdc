import { parseForm } from "./form.js";
import { trimSlashes } from "./path.js";

/** `services/session/token`: Services' token call, at the site root whatever the endpoint's path. */
export const TOKEN_PATH = "/services/session/token";

/** A request target as routing sees it: the path, and the query string without its `?` (`""` for none). */
export interface Target {
  readonly path: string;
  readonly query: string;
}

/**
 * A request target in origin-form (`/a/b?c`): a request line's absolute-form
 * (`http://host/a/b?c`, which Node leaves in `req.url`) without its scheme and authority, as
 * the routers of Express and Fastify match it.
 */
export function originForm(target: string): string {
  return target.slice(absoluteFormPrefix(target).length);
}

/** The `scheme://authority` an absolute-form target starts with; `""` for any other. */
export function absoluteFormPrefix(target: string): string {
  return target.charCodeAt(0) === SLASH ? "" : (ABSOLUTE_FORM.exec(target)?.[0] ?? "");
}
// Only an authority Node's url.parse (Express's routing) ends where this does, at the first "/" (it ends a host at `;`, `%`, `'`
// and more): any other absolute-form is not read as a path at all, so the package never serves a path the app's router did not route.
const ABSOLUTE_FORM = /^https?:\/\/(?:[\w.~-]+|\[[\da-f:.]+\])(?::\d{1,5})?(?=\/)/i;

/** Splits a target (origin-form, `/a/b?c`) into path and query, a fragment dropped; no URL is parsed. */
export function splitTarget(target: string): Target {
  const hash = target.indexOf("#");
  const end = hash === -1 ? target.length : hash;
  const mark = target.indexOf("?");
  if (mark === -1 || mark > end) return { path: target.slice(0, end) || "/", query: "" };
  return { path: target.slice(0, mark) || "/", query: target.slice(mark + 1, end) };
}

/** One query-string parameter, the last one if repeated, as in PHP's `$_GET`; linear whatever a client sends. */
export function queryParameter(query: string, name: string): string | undefined {
  return query === "" ? undefined : parseForm(Buffer.from(query))[name];
}

/** Whether a path is `services/session/token`, matched as Express's router matches it: any case, one trailing slash or none. */
export function isTokenPath(path: string): boolean {
  const length = path.length === TOKEN_PATH.length + 1 && path.endsWith("/") ? TOKEN_PATH.length : path.length;
  return length === TOKEN_PATH.length && path.slice(0, length).toLowerCase() === TOKEN_PATH;
}

/** The rest of a path below `prefix` (`"/"` for the prefix itself), or `undefined` when it is not below it. Any case, as Express matches. */
export function pathBelow(path: string, prefix: string): string | undefined {
  if (prefix === "/") return path;
  if (path.length < prefix.length || path.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return undefined;
  if (path.length === prefix.length) return "/";
  return path.charCodeAt(prefix.length) === SLASH ? path.slice(prefix.length) : undefined;
}

/** A target as a router mounted at `prefix` sees it (`/api?q=x` is `/?q=x`), case-sensitively; `undefined` when it is not below it. */
export function belowPrefix(target: string, prefix: string): string | undefined {
  if (!target.startsWith(prefix)) return undefined;
  const rest = target.slice(prefix.length);
  return rest === "" || rest[0] === "?" ? `/${rest}` : rest[0] === "/" ? rest : undefined;
}

/** What `?q=` may route to. */
export interface QueryRouting {
  /** The paths where `q` is read (`["/", "/index.php"]`). */
  readonly queryPaths: readonly string[];
  /** The endpoint's path, with a leading slash: `q` routes to it and below. */
  readonly endpointPath: string;
  /** Further path prefixes `q` may route to (the app's own, listed). */
  readonly queryRoutes: readonly string[];
}

/** Drupal's `request_path()` for `?q=` on the query paths, towards the package's paths and `queryRoutes` only; the new target, or `undefined`. */
export function queryRouter(routing: QueryRouting): (target: string) => string | undefined {
  const honoured = new Set(routing.queryPaths);
  const prefixes = [routing.endpointPath, ...routing.queryRoutes];
  return function drupalQueryTarget(target) {
    const mark = target.indexOf("?");
    if (mark === -1 || !honoured.has(target.slice(0, mark))) return undefined;
    const query = new URLSearchParams(target.slice(mark + 1));
    const q = query.getAll("q").at(-1);
    if (q === undefined) return undefined;
    const segments = trimSlashes(q).split("/");
    if (segments.some((segment) => segment === "." || segment === "..")) return undefined;
    const path = `/${segments.join("/")}`;
    if (!isTokenPath(path) && !prefixes.some((prefix) => pathBelow(path, prefix) !== undefined)) return undefined;
    query.delete("q");
    // Re-encoded segment by segment: q arrives decoded, and a raw "?" or "#" must not start a new URL part.
    const rest = query.toString();
    return `/${segments.map(encodeSegment).join("/")}${rest === "" ? "" : `?${rest}`}`;
  };
}

/** A path segment as a URL carries it: what a segment may hold as it is (RFC 3986's pchar: `:@$&+,;=` among them) stays, as Drupal's own paths show it. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(PCHAR_ESCAPED, (escaped) => String.fromCharCode(Number.parseInt(escaped.slice(1), 16)));
}
const PCHAR_ESCAPED = /%(?:24|26|2B|2C|3A|3B|3D|40)/g;

const SLASH = 0x2f;
