import { z } from "zod";
import { normalizeOrigin } from "./origin.js";

/** The options that name the app origins other than the site's own, with their documentation, checks and defaults. */
export interface OriginOptions {
  /**
   * Origins other than the site's own whose pages may log in, written as browsers send
   * `Origin` (`https://app.example.com`, `capacitor://localhost`). A login whose `Origin` is
   * neither the site's own (`baseUrl`'s, else the request's scheme and `Host`) nor listed
   * here, or that a browser marks `Sec-Fetch-Site: cross-site`, is refused with a 403 (login
   * CSRF). Clients that send no `Origin` (native apps, curl) are not affected. Hybrid apps
   * (Ionic, Capacitor, Cordova with a custom scheme) are cross-origin by nature: list their
   * origins here. The same origins get CORS (the `cors` option), and an origin of another site
   * gets its session only with `sameSite: "none"` and `cookieSecure: "always"` (see
   * docs/hybrid-apps.md). `null` is refused: every sandboxed frame and `data:` document on the
   * web sends it, so trusting it would hand any site a signed-in user's session; apps loaded
   * from `file:` need {@link OriginOptions.admitCrossSiteWithoutOrigin} instead. Write
   * international host names in punycode (`xn--…`), as browsers send them.
   * @default []: only the site's own origin may post a login
   */
  trustedOrigins?: readonly string[];
  /**
   * Admit a login that a browser marks `Sec-Fetch-Site: cross-site` but that carries no
   * `Origin` at all, as Cordova and PhoneGap apps loaded from `file:` send it on Android,
   * whose WebView exempts `file:` pages from CORS (Cordova turns on universal access from file
   * URLs). A browser sends `Origin` with every cross-site POST, so such a request comes from
   * a WebView of this kind; like any cross-site login it is admitted only with an
   * `X-CSRF-Token` header or a JSON body, which a form posted by another site cannot send.
   * Such apps get no CORS (they need none), and a login with `Origin: null` stays refused.
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
