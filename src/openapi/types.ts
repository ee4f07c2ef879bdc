import type { z } from "zod";
import type { SessionAuthOptions } from "../options/options.js";

/** A JSON value as it goes into the document. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };
/** An OpenAPI 3.1 document (or any part of one): plain JSON, ready for `JSON.stringify`. */
export type OpenApiObject = { [key: string]: Json };

/** An HTTP method an app route guarded by a binding's `requireSession()` may have. */
export type GuardedMethod = "get" | "post" | "put" | "patch" | "delete";

/**
 * One of the app's own routes behind a binding's `requireSession()`, to describe in the document.
 *
 * @example
 * ```ts
 * const route: GuardedRoute = { method: "post", path: "/services/json/players", summary: "Add a player", roles: ["administrator"], response: playerSchema };
 * ```
 */
export interface GuardedRoute {
  readonly method: GuardedMethod;
  /** The full path in OpenAPI form, e.g. `/services/json/players/{id}`; `{…}` segments become path parameters. */
  readonly path: string;
  /** A one-line summary of the operation. @default none */
  readonly summary?: string;
  /** The `roles` given to this route's `requireSession`: without one of them the answer is a 403. @default none */
  readonly roles?: readonly string[];
  /** The `csrf` given to this route's `requireSession`. @default true */
  readonly csrf?: boolean;
  /**
   * The zod 4 schema of the route's 200 body (`zod/mini` too; zod 3 is refused with a TypeError).
   * @default any JSON
   */
  readonly response?: z.core.$ZodType;
  /** Other statuses the route's own handler answers, with what they mean, e.g. `{ 404: "No such player." }`. @default none */
  readonly responses?: Readonly<Record<number, string>>;
}

/** Options of {@link openApiDocument}. */
export interface OpenApiOptions {
  /**
   * The options given to `createSessionAuthRouter` (stores untouched), checked by the same rules:
   * they shape the document as they shape the wire.
   * @default the defaults of `createSessionAuthRouter`
   */
  readonly auth?: Partial<SessionAuthOptions>;
  /** Where the endpoint is served, as clients see it: the router's mount path and its `endpoint`. @default "/" + `auth.endpoint` ("/services/json") */
  readonly endpointPath?: string;
  /** The document's `info`. @default title "Drupal 7 Services session API", version "1.0.0" */
  readonly info?: { readonly title?: string; readonly version?: string; readonly description?: string };
  /** The document's `servers`. @default none (the document's own origin) */
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
  /** The app's routes behind a binding's `requireSession()`. @default none */
  readonly routes?: readonly GuardedRoute[];
}

/** The document's own part of {@link OpenApiOptions}: where the endpoint is, its `info`, `servers` and the app's guarded routes. */
export type OpenApiRoutes = Omit<OpenApiOptions, "auth">;
