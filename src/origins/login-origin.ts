import { SessionAuthError } from "../errors.js";
import { writeStderr, type Emit } from "../events.js";
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

/**
 * The login CSRF check: another site's page gets `ERR_CROSS_SITE_LOGIN`; an admitted origin whose cookie will drop, an event.
 * @param trustProxyFix - How the app's framework trusts a TLS-terminating proxy, for the messages that name the fix.
 */
export function loginOriginCheck(settings: OriginSettings, cookie: CookiePolicy, emit: Emit, trustProxyFix: string): (request: LoginOriginRequest) => void {
  // A browser's own page refused because the app took an HTTPS proxy's request for plain http: said on stderr once, whatever onEvent does.
  let schemeSaid = false;
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
    const message = refusalMessage(origin, ownOrigin, trustProxyFix);
    emit({ type: "login.cross-site", origin, fetchSite, ip: request.ip, message }, request.requestId);
    if (!schemeSaid && origin !== null && ownOrigin !== undefined && differsInSchemeOnly(origin, ownOrigin)) {
      schemeSaid = true;
      writeStderr(`services-session-auth: ${message}`);
    }
    throw new SessionAuthError("ERR_CROSS_SITE_LOGIN");
  };

  /** A login admitted from an app origin of another site whose session cookie the browser will drop: answered, with an event that says why. */
  function warnCookieDropped(request: LoginOriginRequest, ownOrigin: string | undefined): void {
    const origin = request.origin === undefined ? undefined : normalizeOrigin(request.origin);
    if (origin === undefined || ownOrigin === undefined || !settings.trustedOrigins.has(origin)) return;
    const message = crossSiteCookieProblem(origin, ownOrigin, cookie, request.secure, trustProxyFix);
    if (message !== undefined) emit({ type: "cookie.cross-site", origin, ip: request.ip, message }, request.requestId);
  }
}

/** Whether an origin is the site's own but for the scheme (`https://api.example.com` against `http://api.example.com`). */
function differsInSchemeOnly(origin: string, ownOrigin: string): boolean {
  const sent = normalizeOrigin(origin);
  return sent !== undefined && sent !== ownOrigin && sent.replace(/^https?:/, "") === ownOrigin.replace(/^https?:/, "");
}

/** What a refused cross-site login's event says: why, and which option would admit the app if it is the app's own. */
function refusalMessage(origin: string | null, ownOrigin: string | undefined, trustProxyFix: string): string {
  if (origin === null) return "login refused: the browser marked it cross-site";
  if (normalizeOrigin(origin) === "null")
    return "login refused: origin null is every sandboxed frame's and data: document's, and is never trusted; an app loaded from file: on Android sends no Origin (see admitCrossSiteWithoutOrigin), on iOS serve it from a custom scheme and list that origin";
  if (ownOrigin !== undefined && differsInSchemeOnly(origin, ownOrigin))
    return `login refused: origin ${origin} differs from this site's (${ownOrigin}) only in scheme, so the request reached the app over ${ownOrigin.split(":", 1)[0]}: if a proxy in front ends TLS, ${trustProxyFix}, or set baseUrl; if it is another app of yours, add it to trustedOrigins`;
  return `login refused: origin ${origin} is not this site's (${ownOrigin ?? "unknown"}); if it is your own app, add it to trustedOrigins; behind a TLS-terminating proxy, set baseUrl or ${trustProxyFix}`;
}
