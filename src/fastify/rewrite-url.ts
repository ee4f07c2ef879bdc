import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { ENDPOINT_DEFAULTS } from "../endpoint/options.js";
import { drupalQueryTarget } from "../http-input/query-path.js";
import { parseOptions } from "../validate.js";

const schema = z.array(z.string().startsWith("/")).readonly();

/**
 * Fastify's `rewriteUrl` for Drupal's `?q=` paths (`/?q=services/json/user/login.json`, as
 * jDrupal and DrupalGap call): on the given paths, `q` becomes the path Fastify routes by,
 * the Services calls' and the app's own routes' alike, and the rest of the query string
 * stays. Elsewhere `q` is the app's. Fastify takes it only when the server is made, so it is
 * a function of its own rather than part of the plugin; give it the plugin's `queryPaths`.
 *
 * @param queryPaths - The paths where `q` routes, as the plugin's `queryPaths` option (`["/", "/index.php"]` unless given).
 * @example
 * ```ts
 * const app = Fastify({ rewriteUrl: drupalRewriteUrl() });
 * ```
 * @throws TypeError for a path that does not start with `/`.
 */
export function drupalRewriteUrl(queryPaths: readonly string[] = ENDPOINT_DEFAULTS.queryPaths): (request: IncomingMessage) => string {
  const honoured = new Set(parseOptions(schema, queryPaths, "drupalRewriteUrl"));
  return function rewriteUrl(request) {
    const url = request.url ?? "/";
    return drupalQueryTarget(url, honoured) ?? url;
  };
}
