import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { endpointSettings, endpointShape } from "../endpoint/options.js";
import { queryRouter } from "../http-input/target.js";
import type { SessionAuthOptions } from "../options/options.js";
import { parseOptions } from "../validate.js";

const routingSchema = z.looseObject({ endpoint: endpointShape.endpoint, queryPaths: endpointShape.queryPaths, queryRoutes: endpointShape.queryRoutes });

/**
 * Fastify's `rewriteUrl` for Drupal's `?q=` paths by the plugin's rule (towards the endpoint, the token
 * and `queryRoutes`); Fastify takes it only at creation, so give it the plugin's options.
 * @throws TypeError for an invalid `endpoint`, `queryPaths` or `queryRoutes`.
 */
export function drupalRewriteUrl(options: Partial<SessionAuthOptions> = {}): (request: IncomingMessage) => string {
  const settings = endpointSettings(parseOptions(routingSchema, options, "drupalRewriteUrl"));
  const route = queryRouter(settings);
  return function rewriteUrl(request) {
    const url = request.url ?? "/";
    return route(url) ?? url;
  };
}
