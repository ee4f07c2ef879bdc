import type { Emit } from "../events.js";
import type { OriginSettings } from "./options.js";
import { isCrossSite } from "./site.js";

/** Stands for the pages `admitCrossSiteWithoutOrigin` admits: loaded from `file:`, another site to every site. */
export const FILE_PAGES = "file:";

/** What decides whether a browser keeps the session cookie on a cross-site request. */
export interface CookiePolicy {
  readonly sameSite: "Lax" | "Strict" | "None" | undefined;
  readonly cookieSecure: "auto" | "always";
}

/**
 * Why the session cookie will not survive requests from an app origin, naming the options to set
 * (another site needs `SameSite=None`, so `Secure`, so HTTPS); `undefined` when it will.
 *
 * @param origin - The app's origin, normalised, or {@link FILE_PAGES} (cross-site to every site).
 * @param siteOrigin - The API's own origin, normalised.
 * @param overHttps - Whether the request came over HTTPS; `undefined` at start-up, before any request.
 * @param trustProxyFix - How the app's framework trusts a TLS-terminating proxy (`app.set("trust proxy", 1)`).
 */
export function crossSiteCookieProblem(
  origin: string,
  siteOrigin: string,
  cookie: CookiePolicy,
  overHttps?: boolean,
  trustProxyFix = "trust it (trustProxy)",
): string | undefined {
  if (!isCrossSite(origin, siteOrigin)) return undefined;
  const from = origin === FILE_PAGES ? "an app loaded from file: (admitCrossSiteWithoutOrigin)" : origin;
  if (cookie.sameSite !== "None" || cookie.cookieSecure !== "always") {
    return `${from} is another site than ${siteOrigin}: browsers do not send the session cookie with its requests, or keep one its login sets, unless the cookie is SameSite=None and Secure. Set sameSite: "none" and cookieSecure: "always", and serve the API over HTTPS.`;
  }
  if (overHttps === false) {
    return `a request from ${from} came over plain http: its session cookie is SameSite=None and Secure, which browsers neither keep nor send over http, so its session will not stick. Serve the API over HTTPS (behind a proxy that ends TLS, ${trustProxyFix}).`;
  }
  return undefined;
}

/** Says once at start-up which trusted origins' sessions a browser would drop (without `baseUrl`, each login says it). */
export function warnCrossSiteCookies(origins: OriginSettings, cookie: CookiePolicy, emit: Emit): void {
  const site = origins.ownOrigin;
  const apps = [...(site === undefined ? [] : origins.trustedOrigins), ...(origins.admitCrossSiteWithoutOrigin ? [FILE_PAGES] : [])];
  const problems = apps.flatMap((origin) => {
    const message = crossSiteCookieProblem(origin, site ?? "the API's own origin", cookie);
    return message === undefined ? [] : [{ origin, message }];
  });
  if (problems.length === 0) return;
  emit({ type: "config.cross-site-cookie", origins: problems.map((problem) => problem.origin), message: problems.map((problem) => problem.message).join(" ") });
}
