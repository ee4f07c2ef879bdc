import { z } from "zod";

/** A site's CORS settings, the Drupal CORS module's columns less the origins (`trustedOrigins`); see docs/options.md#cors. */
export interface CorsConfig {
  /**
   * The methods a preflight allows (`Access-Control-Allow-Methods`).
   * @default ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
   */
  methods?: readonly string[];
  /**
   * The request headers a preflight allows, case-insensitive; `services_*_version` headers always are.
   * @default ["X-CSRF-Token", "Content-Type", "X-HTTP-Method-Override", "X-Requested-With", "Accept"]: what jDrupal, DrupalGap and Services clients send
   */
  allowedHeaders?: readonly string[];
  /**
   * The response headers a page's script may read besides the safelisted ones (`Access-Control-Expose-Headers`).
   * @default []
   */
  exposedHeaders?: readonly string[];
  /**
   * Seconds a browser may reuse a preflight's answer (Chromium caps it at 7200, Firefox at 86400).
   * @default 600
   */
  maxAge?: number;
  /**
   * Whether replies carry `Access-Control-Allow-Credentials: true`, as a cookie session needs.
   * @default true
   */
  credentials?: boolean;
  /**
   * Patterns (`*` any characters) of the app's own routes that answer preflights from the app
   * origins: a router sends no `OPTIONS` to a `GET` or `POST` route's guard, so list guarded routes called with one.
   * See docs/hybrid-apps.md#the-configuration.
   * @default [] (the endpoint and `services/session/token` always answer preflights; a guarded route answers one only if its route takes `OPTIONS`)
   */
  paths?: readonly string[];
}

/** The options of CORS (cross-origin requests from the app origins of `trustedOrigins`). {@link SessionAuthOptions} includes them. */
export interface CorsOptions {
  /**
   * CORS for the origins of `trustedOrigins` (origin echoed, credentials, `Vary: Origin`); `false` turns it off.
   * @default on, with the {@link CorsConfig} defaults, whenever `trustedOrigins` lists an origin
   */
  cors?: false | CorsConfig;
}

/** The defaults of {@link CorsConfig}. */
export const CORS_DEFAULTS = Object.freeze({
  cors: Object.freeze({
    methods: Object.freeze(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]),
    allowedHeaders: Object.freeze(["X-CSRF-Token", "Content-Type", "X-HTTP-Method-Override", "X-Requested-With", "Accept"]),
    exposedHeaders: Object.freeze([] as string[]),
    maxAge: 600,
    credentials: true,
    paths: Object.freeze([] as string[]),
  }),
});

// An HTTP token (RFC 9110): what a method or a header name may be, and nothing that could end a header.
const token = z.string().regex(/^[!#$%&'*+\-.^\w`|~]+$/, "must be an HTTP token (a method or header name)");

/** The checks of {@link CorsOptions}. */
export const corsShape = {
  cors: z
    .union([
      z.literal(false),
      z.strictObject({
        methods: z.array(token).readonly().optional(),
        allowedHeaders: z.array(token).readonly().optional(),
        exposedHeaders: z.array(token).readonly().optional(),
        maxAge: z.number().int().min(0).max(86_400).optional(),
        credentials: z.boolean().optional(),
        // Printable, no spaces: a path pattern, not a regular expression.
        paths: z
          .array(z.string().regex(/^[\x21-\x7e]{1,512}$/, "must be a path pattern such as /api/* (no spaces)"))
          .readonly()
          .optional(),
      }),
    ])
    .optional(),
};

/** {@link CorsOptions} completed. */
export interface CorsSettings {
  /** Whether CORS is on: not turned off, and some origin is listed. */
  readonly enabled: boolean;
  /** The app origins (`trustedOrigins`), normalised. */
  readonly origins: ReadonlySet<string>;
  readonly methods: string;
  /** The allowed request headers, lower-cased. */
  readonly allowedHeaders: ReadonlySet<string>;
  /** `Access-Control-Expose-Headers`, if any. */
  readonly exposedHeaders: string | undefined;
  readonly maxAge: number;
  readonly credentials: boolean;
  /** The path patterns of {@link CorsConfig.paths}, each with a leading slash. */
  readonly paths: readonly string[];
}

/** Completes checked {@link CorsOptions}, with the origins `trustedOrigins` names. */
export function corsSettings(input: z.output<z.ZodObject<typeof corsShape>>, origins: ReadonlySet<string>): CorsSettings {
  const config = input.cors === false ? undefined : (input.cors ?? {});
  const defaults = CORS_DEFAULTS.cors;
  const exposed = config?.exposedHeaders ?? defaults.exposedHeaders;
  return Object.freeze({
    enabled: config !== undefined && origins.size > 0,
    origins,
    methods: (config?.methods ?? defaults.methods).map((method) => method.toUpperCase()).join(", "),
    allowedHeaders: new Set((config?.allowedHeaders ?? defaults.allowedHeaders).map((name) => name.toLowerCase())),
    exposedHeaders: exposed.length === 0 ? undefined : exposed.join(", "),
    maxAge: config?.maxAge ?? defaults.maxAge,
    credentials: config?.credentials ?? defaults.credentials,
    paths: Object.freeze((config?.paths ?? defaults.paths).map((pattern) => (pattern.startsWith("/") ? pattern : `/${pattern}`))),
  });
}
