import { z } from "zod";
import { normalizeOrigin } from "./origin.js";

/** The options that name the app origins other than the site's own, with their documentation, checks and defaults. */
export interface OriginOptions {
  /**
   * Origins other than the site's own whose pages may log in, written as browsers send
   * `Origin` (`https://app.example.com`, `capacitor://localhost`, `null`). A login whose
   * `Origin` is neither the site's own (`baseUrl`'s, else the request's scheme and `Host`)
   * nor listed here, or that a browser marks `Sec-Fetch-Site: cross-site`, is refused with a
   * 403 (login CSRF). Clients that send no `Origin` (native apps, curl) are not affected.
   * Hybrid apps (Cordova/DrupalGap WebViews, Ionic, Capacitor) are cross-origin by nature:
   * list their origins here. The same origins get CORS (the `cors` option), and an origin of
   * another site gets its session only with `sameSite: "none"` and `cookieSecure: "always"`
   * (see docs/hybrid-apps.md). `null` is the origin of `file:` pages and sandboxed frames,
   * which any site can produce, so a login from a trusted `null` must also carry an
   * `X-CSRF-Token` header or a JSON body, which a form cannot send (jDrupal and DrupalGap
   * send the header on every request). Write international host names in punycode (`xn--…`),
   * as browsers send them.
   * @default []: only the site's own origin may post a login
   */
  trustedOrigins?: readonly string[];
  /**
   * Admit a login that a browser marks `Sec-Fetch-Site: cross-site` but that carries no
   * `Origin` at all, as old Cordova and PhoneGap apps send from `file:` pages with the
   * WebView's web security turned off. A browser sends `Origin` with every cross-site POST,
   * so such a request comes from a WebView of this kind (or a client forging headers, which
   * this check was never about); like a trusted `null`, it is admitted only with an
   * `X-CSRF-Token` header or a JSON body, which a form cannot send.
   * @default false: refused with a 403, as a cross-site login
   */
  admitCrossSiteWithoutOrigin?: boolean;
}

/** The defaults of {@link OriginOptions}. */
export const ORIGIN_DEFAULTS = Object.freeze({ trustedOrigins: Object.freeze([] as string[]), admitCrossSiteWithoutOrigin: false });

/** The checks of {@link OriginOptions}. */
export const originShape = {
  trustedOrigins: z
    .array(
      z
        .string()
        .refine(
          (value) => normalizeOrigin(value) !== undefined,
          "must be an origin such as https://app.example.com, capacitor://localhost or null (no path; international host names in punycode)",
        ),
    )
    .readonly()
    .optional(),
  admitCrossSiteWithoutOrigin: z.boolean().optional(),
};

/** {@link OriginOptions} completed: the origins normalised with {@link normalizeOrigin}. */
export interface OriginSettings {
  readonly trustedOrigins: ReadonlySet<string>;
  readonly admitCrossSiteWithoutOrigin: boolean;
}

/** Completes checked {@link OriginOptions}. */
export function originSettings(input: z.output<z.ZodObject<typeof originShape>>): OriginSettings {
  return Object.freeze({
    trustedOrigins: new Set((input.trustedOrigins ?? ORIGIN_DEFAULTS.trustedOrigins).map((origin) => normalizeOrigin(origin)!)),
    admitCrossSiteWithoutOrigin: input.admitCrossSiteWithoutOrigin ?? ORIGIN_DEFAULTS.admitCrossSiteWithoutOrigin,
  });
}
