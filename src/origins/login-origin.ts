import { SessionAuthError } from "../errors.js";
import type { Emit } from "../events.js";
import { requestMime } from "../http-input/body.js";
import { crossSiteCookieProblem, type CookiePolicy } from "./cross-site-cookie.js";
import type { OriginSettings } from "./options.js";
import { isCrossSiteLogin, normalizeOrigin } from "./origin.js";

/** What the login-CSRF check reads of a login. */
export interface LoginOriginRequest {
  readonly origin: string | undefined;
  readonly fetchSite: string | undefined;
  readonly host: string;
  readonly secure: boolean;
  readonly csrfHeader: string | undefined;
  readonly contentType: string | undefined;
  readonly ip: string;
  readonly requestId?: string | undefined;
}

/** The login CSRF check: another site's page gets `ERR_CROSS_SITE_LOGIN`; an admitted origin whose cookie will drop, an event. */
export function loginOriginCheck(settings: OriginSettings, cookie: CookiePolicy, emit: Emit): (request: LoginOriginRequest) => void {
  return function checkLoginOrigin(request) {
    // Neither header: a native client, which is never refused and whose cookie no browser
    // drops. Nothing to work out, so no URL is parsed on the login of every app that is not a browser.
    if (request.origin === undefined && request.fetchSite === undefined) return;
    const ownOrigin = settings.ownOrigin ?? normalizeOrigin(`${request.secure ? "https" : "http"}://${request.host}`);
    const scripted = request.csrfHeader !== undefined || requestMime(request.contentType).toLowerCase() === "application/json";
    const source = { origin: request.origin, fetchSite: request.fetchSite, ownOrigin, scripted };
    if (!isCrossSiteLogin(source, settings.trustedOrigins, settings.admitCrossSiteWithoutOrigin)) {
      warnCookieDropped(request, ownOrigin);
      return;
    }
    const origin = request.origin === undefined ? null : request.origin.slice(0, 256);
    const fetchSite = request.fetchSite?.slice(0, 32) ?? null;
    emit({ type: "login.cross-site", origin, fetchSite, ip: request.ip, message: refusalMessage(origin, ownOrigin) }, request.requestId);
    throw new SessionAuthError("ERR_CROSS_SITE_LOGIN");
  };

  /** A login admitted from an app origin of another site whose session cookie the browser will drop: answered, with an event that says why. */
  function warnCookieDropped(request: LoginOriginRequest, ownOrigin: string | undefined): void {
    const origin = request.origin === undefined ? undefined : normalizeOrigin(request.origin);
    if (origin === undefined || ownOrigin === undefined || !settings.trustedOrigins.has(origin)) return;
    const message = crossSiteCookieProblem(origin, ownOrigin, cookie, request.secure);
    if (message !== undefined) emit({ type: "cookie.cross-site", origin, ip: request.ip, message }, request.requestId);
  }
}

/** What a refused cross-site login's event says: why, and which option would admit the app if it is the app's own. */
function refusalMessage(origin: string | null, ownOrigin: string | undefined): string {
  if (origin === null) return "login refused: the browser marked it cross-site";
  if (normalizeOrigin(origin) === "null")
    return "login refused: origin null is every sandboxed frame's and data: document's, and is never trusted; an app loaded from file: on Android sends no Origin (see admitCrossSiteWithoutOrigin), on iOS serve it from a custom scheme and list that origin";
  return `login refused: origin ${origin} is not this site's (${ownOrigin ?? "unknown"}); if it is your own app, add it to trustedOrigins; behind a TLS-terminating proxy, set baseUrl or Express's trust proxy`;
}
