import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { endpointSettings, endpointShape } from "../endpoint/options.js";
import { originForm, queryRouter } from "../http-input/target.js";
import type { SessionAuthOptions } from "../options/options.js";
import { parseOptions } from "../validate.js";
import { belowPrefix } from "./request.js";

const routingSchema = z.looseObject({ endpoint: endpointShape.endpoint, queryPaths: endpointShape.queryPaths, queryRoutes: endpointShape.queryRoutes });

/** Where the plugin is registered, for {@link drupalRewriteUrl}. */
export interface RewriteMount {
  /** The plugin's prefix (`"/api"`): `?q=` is then read below it (`/api?q=…`, `/api/index.php?q=…`), as a Drupal in that directory answered. @default "" (the site root) */
  prefix?: string;
}

const PREFIX = z.string().regex(/^(?:\/[^/?#]+)*$/, 'a path such as "/api": a leading slash, no trailing one');
const mountSchema = z.strictObject({ prefix: PREFIX.optional() });

/**
 * Fastify's `rewriteUrl` for Drupal's `?q=` paths by the plugin's rule (towards the endpoint, the token
 * and `queryRoutes`); Fastify takes it only at creation, so give it the plugin's options and the prefix it is under.
 * @throws TypeError for an invalid `endpoint`, `queryPaths`, `queryRoutes` or `prefix`.
 */
export function drupalRewriteUrl(options: Partial<SessionAuthOptions> = {}, mount: RewriteMount = {}): (request: IncomingMessage) => string {
  const settings = endpointSettings(parseOptions(routingSchema, options, "drupalRewriteUrl"));
  const prefix = parseOptions(mountSchema, mount, "drupalRewriteUrl").prefix ?? "";
  const route = queryRouter(settings);
  return function rewriteUrl(request) {
    const url = request.url ?? "/";
    // Below the prefix only, as Fastify's router strips it: `/apix/?q=` is not the prefix's.
    const below = belowPrefix(originForm(url), prefix);
    const routed = below === undefined ? undefined : route(below);
    return routed === undefined ? url : `${prefix}${routed}`;
  };
}
