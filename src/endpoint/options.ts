import { z } from "zod";
import { REQUEST_PARSERS, type RequestParser } from "../http-input/body.js";
import { trimSlashes } from "../http-input/path.js";
import type { UserRecord } from "../types.js";
import { fn } from "../validate.js";

/** The Services endpoint's options, part of {@link SessionAuthOptions}; each is explained in docs/options.md#endpoint. */
export interface EndpointOptions {
  /**
   * The endpoint's path (Services' endpoint "path") below the router's mount path.
   * @default "services/json"
   */
  endpoint?: string;
  /**
   * Paths where `?q=` is taken as the request's path, as Drupal does without clean URLs
   * (`/?q=services/json/user/login.json`); `[]` turns it off.
   * @default ["/", "/index.php"]
   */
  queryPaths?: readonly string[];
  /**
   * Path prefixes besides the endpoint's and the token's that `?q=` may route to (`["/drupalgap"]`);
   * any other `q` stays the app's, so it never gets past a proxy's path rules.
   * @default []
   */
  queryRoutes?: readonly string[];
  /**
   * The endpoint's machine name, in the root's `Services Endpoint "<name>" has been setup successfully.` (a health check).
   * @default "services"
   */
  endpointName?: string;
  /**
   * The API version of `user/login`: 1.0 reads `username`/`password`, 1.1 `name`/`pass`; a
   * `services_<resource>_<method>_version` header picks the other.
   * @default "1.0"
   */
  loginApiVersion?: "1.0" | "1.1";
  /**
   * The API version of `user/logout`: 1.0 answers `[true]`, 1.1 the anonymous user; a version header picks the other.
   * @default "1.0"
   */
  logoutApiVersion?: "1.0" | "1.1";
  /** @default 65536: larger request bodies get a 413 */
  bodyLimit?: number;
  /**
   * The body types parsed (Services' enabled parsers); others get a 406, and no Content-Type is a form, as in Services.
   * @default ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]:
   * the parsers jDrupal and DrupalGap endpoints enable
   */
  parsers?: readonly RequestParser[];
  /**
   * Whether a user may see `init` in their own user object (Drupal's "administer users").
   * @default uid "1" or a role named "administrator"
   */
  isAdmin?: (user: UserRecord) => boolean;
  /**
   * Send `Clear-Site-Data: "cookies"` with a logout: a browser then drops every cookie of the
   * origin, a Drupal site's beside this one too, so only when this app owns the origin.
   * @default false
   */
  clearSiteData?: boolean;
}

/** The defaults of {@link EndpointOptions} that are plain values. */
export const ENDPOINT_DEFAULTS = Object.freeze({
  endpoint: "services/json",
  queryPaths: Object.freeze(["/", "/index.php"]),
  queryRoutes: Object.freeze([] as string[]),
  endpointName: "services",
  loginApiVersion: "1.0",
  logoutApiVersion: "1.0",
  bodyLimit: 65_536,
  parsers: REQUEST_PARSERS,
  clearSiteData: false,
} as const);

/** The checks of {@link EndpointOptions}, one per option. */
export const endpointShape = {
  // Path segments only: nothing that routing would read as a pattern or a query.
  endpoint: z
    .string()
    .regex(/^\/?[\w.~-]+(?:\/[\w.~-]+)*\/?$/, "must be a path such as services/json (letters, digits, . _ ~ - and slashes)")
    .optional(),
  queryPaths: z.array(z.string().startsWith("/")).readonly().optional(),
  queryRoutes: z
    .array(z.string().regex(/^\/[\w.~\-/]*$/, "must be a path prefix such as /drupalgap"))
    .readonly()
    .optional(),
  endpointName: z.string().min(1).max(255).optional(),
  loginApiVersion: z.enum(["1.0", "1.1"]).optional(),
  logoutApiVersion: z.enum(["1.0", "1.1"]).optional(),
  bodyLimit: z.number().int().positive().optional(),
  parsers: z
    .array(z.enum(REQUEST_PARSERS as [RequestParser, ...RequestParser[]]))
    .readonly()
    .optional(),
  isAdmin: fn<(user: UserRecord) => boolean>("user => boolean").optional(),
  clearSiteData: z.boolean().optional(),
};

/** What the endpoint works with: its options completed. */
export interface EndpointSettings {
  /** The endpoint's path with a leading slash and none at the end (`/services/json`). */
  readonly endpointPath: string;
  readonly queryPaths: readonly string[];
  readonly queryRoutes: readonly string[];
  readonly endpointName: string;
  readonly loginApiVersion: "1.0" | "1.1";
  readonly logoutApiVersion: "1.0" | "1.1";
  readonly bodyLimit: number;
  readonly parsers: ReadonlySet<RequestParser>;
  readonly isAdmin: (user: UserRecord) => boolean;
  readonly clearSiteData: boolean;
}

function defaultIsAdmin(user: UserRecord): boolean {
  return user.uid === "1" || Object.values(user.roles).includes("administrator");
}

/** Completes checked {@link EndpointOptions}. */
export function endpointSettings(input: z.output<z.ZodObject<typeof endpointShape>>): EndpointSettings {
  return Object.freeze({
    endpointPath: `/${trimSlashes(input.endpoint ?? ENDPOINT_DEFAULTS.endpoint)}`,
    queryPaths: Object.freeze([...(input.queryPaths ?? ENDPOINT_DEFAULTS.queryPaths)]),
    queryRoutes: Object.freeze((input.queryRoutes ?? ENDPOINT_DEFAULTS.queryRoutes).map((prefix) => `/${trimSlashes(prefix)}`)),
    endpointName: input.endpointName ?? ENDPOINT_DEFAULTS.endpointName,
    loginApiVersion: input.loginApiVersion ?? ENDPOINT_DEFAULTS.loginApiVersion,
    logoutApiVersion: input.logoutApiVersion ?? ENDPOINT_DEFAULTS.logoutApiVersion,
    bodyLimit: input.bodyLimit ?? ENDPOINT_DEFAULTS.bodyLimit,
    parsers: new Set(input.parsers ?? ENDPOINT_DEFAULTS.parsers),
    isAdmin: input.isAdmin ?? defaultIsAdmin,
    clearSiteData: input.clearSiteData ?? ENDPOINT_DEFAULTS.clearSiteData,
  });
}
