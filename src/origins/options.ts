import { z } from "zod";
import { normalizeOrigin } from "./origin.js";

/** The options that name the app origins other than the site's own, with their documentation, checks and defaults. */
export interface OriginOptions {
  /**
   * Origins besides the site's own whose pages may log in and get CORS, as browsers send `Origin`
   * (`capacitor://localhost`; punycode). Others, or `Sec-Fetch-Site: cross-site`, get a 403;
   * `null` is refused, since any sandboxed frame sends it. See docs/hybrid-apps.md.
   * @default []: only the site's own origin may post a login
   */
  trustedOrigins?: readonly string[];
  /**
   * Admit a login marked `Sec-Fetch-Site: cross-site` with no `Origin` at all (Cordova `file:` pages on
   * Android) when it is scripted (`X-CSRF-Token` or JSON), which no other site's form can send.
   * @default false: refused with a 403, as a cross-site login
   */
  admitCrossSiteWithoutOrigin?: boolean;
}

/** The defaults of {@link OriginOptions}. */
export const ORIGIN_DEFAULTS = Object.freeze({ trustedOrigins: Object.freeze([] as string[]), admitCrossSiteWithoutOrigin: false });

/** `null`, or a `file:` URL (whose pages send `null`): origins no app owns. */
function isOpaqueOrigin(value: string): boolean {
  const text = value.trim().toLowerCase();
  return text === "null" || text.startsWith("file:");
}

/** Why `null` cannot be trusted, and what a `file:` app does instead. */
const NULL_ORIGIN_REFUSED =
  "must not be null: every sandboxed iframe and data: document on the web sends Origin: null, so trusting it would let any site read a signed-in user's session and log them in to an account of its choosing. " +
  "An app loaded from file: on Android needs no CORS (its WebView exempts file: pages and sends no Origin): set admitCrossSiteWithoutOrigin: true. " +
  "On iOS, serve the app from a custom scheme (cordova-ios 6: the scheme and hostname preferences, app://localhost) and list that origin (docs/hybrid-apps.md)";

/** The checks of {@link OriginOptions}. */
export const originShape = {
  trustedOrigins: z
    .array(
      z
        .string()
        .refine((value) => !isOpaqueOrigin(value), NULL_ORIGIN_REFUSED)
        .refine(
          (value) => isOpaqueOrigin(value) || normalizeOrigin(value) !== undefined,
          "must be an origin such as https://app.example.com or capacitor://localhost (no path; international host names in punycode)",
        ),
    )
    .readonly()
    .optional(),
  admitCrossSiteWithoutOrigin: z.boolean().optional(),
};

/** {@link OriginOptions} completed: the origins normalised with {@link normalizeOrigin}, and the site's own. */
export interface OriginSettings {
  readonly trustedOrigins: ReadonlySet<string>;
  readonly admitCrossSiteWithoutOrigin: boolean;
  /** The site's own origin when `baseUrl` names it; else each request's scheme and `Host` do. */
  readonly ownOrigin: string | undefined;
}

/** Completes checked {@link OriginOptions}; `baseUrl` is the cookie's option that also names the site. */
export function originSettings(input: z.output<z.ZodObject<typeof originShape>>, baseUrl: string | undefined): OriginSettings {
  const base = baseUrl === undefined ? undefined : new URL(baseUrl);
  return Object.freeze({
    trustedOrigins: new Set((input.trustedOrigins ?? ORIGIN_DEFAULTS.trustedOrigins).map((origin) => normalizeOrigin(origin)!)),
    admitCrossSiteWithoutOrigin: input.admitCrossSiteWithoutOrigin ?? ORIGIN_DEFAULTS.admitCrossSiteWithoutOrigin,
    ownOrigin: base === undefined ? undefined : normalizeOrigin(`${base.protocol}//${base.host}`),
  });
}
