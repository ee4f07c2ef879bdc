import { resolveDocumentedOptions, type DocumentedSettings } from "../options/schema.js";
import { parseOptions } from "../validate.js";
import { requestNewPassword } from "./accounts/request-new-password.js";
import { user } from "./accounts/user.js";
import { userPassReset } from "./accounts/user-pass-reset.js";
import { userRegister } from "./accounts/user-register.js";
import { userUid } from "./accounts/user-uid.js";
import { userUidActions } from "./accounts/user-uid-actions.js";
import { components } from "./components.js";
import { guardedRoutePaths } from "./guarded-routes.js";
import { optionsSchema, routesSchema } from "./options-schema.js";
import type { PathBuilder, PathContext, Paths } from "./path-builder.js";
import { endpointRoot } from "./services/endpoint-root.js";
import { sessionToken } from "./services/session-token.js";
import { systemConnect } from "./services/system-connect.js";
import { userLogin } from "./services/user-login.js";
import { userLogout } from "./services/user-logout.js";
import { userToken } from "./services/user-token.js";
import type { OpenApiObject, OpenApiOptions, OpenApiRoutes } from "./types.js";

/**
 * The OpenAPI 3.1 document of a set-up: each path's operations from a builder of its own
 * (`services/`, `accounts/`), the app's guarded routes, and the components they refer to.
 *
 * @module
 */

export type { GuardedMethod, GuardedRoute, Json, OpenApiObject, OpenApiOptions, OpenApiRoutes } from "./types.js";

/** Every path the endpoint serves, one builder each, in the document's order: Services' calls, then the account calls. */
const PATHS: readonly PathBuilder[] = [
  userLogin,
  systemConnect,
  userLogout,
  userToken,
  sessionToken,
  endpointRoot,
  user,
  userRegister,
  userUid,
  requestNewPassword,
  userPassReset,
  userUidActions,
];

/** Paths merged: a later path's operations join an earlier one's. */
function merged(all: readonly Paths[]): Paths {
  const paths: Paths = {};
  for (const some of all) for (const [path, operations] of Object.entries(some)) paths[path] = { ...paths[path], ...operations };
  return paths;
}

/**
 * The Services calls and the app's `requireSession` routes as an OpenAPI 3.1 document: the login
 * schema is the one requests are checked with, and every status comes from the one status table.
 *
 * @example
 * ```ts
 * const document = openApiDocument({
 *   auth: options, // the object given to createSessionAuthRouter
 *   routes: [{ method: "get", path: "/services/json/players", summary: "All players" }],
 * });
 * app.get("/openapi.json", (_req, res) => res.json(document));
 * ```
 * @throws TypeError when an option is invalid.
 */
export function openApiDocument(options: OpenApiOptions = {}): OpenApiObject {
  const { auth, ...routes } = parseOptions(optionsSchema, options, "openApiDocument");
  return openApiFromSettings(resolveDocumentedOptions(auth ?? {}, "openApiDocument"), routes);
}

/** The document of a set-up from its resolved options: the same settings that shape the wire shape the document. */
export function openApiFromSettings(settings: DocumentedSettings, options: OpenApiRoutes = {}): OpenApiObject {
  const parsed = parseOptions(routesSchema, options, "openApi");
  const { endpoint } = settings;
  const context: PathContext = {
    base: parsed.endpointPath ?? endpoint.endpointPath,
    settings,
    bodyTypes: (schema) => Object.fromEntries([...endpoint.parsers].map((type) => [type, { schema }])),
  };
  const accounts = (settings.accounts?.calls.size ?? 0) > 0;
  return {
    openapi: "3.1.0",
    info: {
      title: parsed.info?.title ?? "Drupal 7 Services session API",
      version: parsed.info?.version ?? "1.0.0",
      description:
        parsed.info?.description ??
        "Session authentication as Drupal 7's Services module answers it. Errors are a JSON array holding Drupal's message, with the message in the status line too (`401 Unauthorized : Wrong username or password.`); routing and format errors have no body and PHP's default `text/html; charset=UTF-8`. Replies carry `Cache-Control: no-store`.",
    },
    ...(parsed.servers === undefined ? {} : { servers: parsed.servers.map((server) => ({ ...server })) }),
    tags: [
      { name: "Services session", description: "The calls of Drupal 7 Services' user and system resources, and the session token call." },
      ...(accounts
        ? [
            {
              name: "Services user resource",
              description: "The account calls served (docs/accounts.md): registration, forgot password, one-time links, accounts.",
            },
          ]
        : []),
      { name: "Protected", description: "The app's routes behind `requireSession`." },
    ],
    paths: merged([...PATHS.map((build) => build(context)), guardedRoutePaths(parsed.routes ?? [])]),
    components: components(settings),
  };
}
