import { corsDecision } from "../cors/cors.js";
import type { CorsSettings } from "../cors/options.js";
import type { SessionAuthError } from "../errors.js";
import { mergeHeaders, NO_HEADERS, type HeaderRecord } from "../http-input/headers.js";
import type { HttpRequest } from "../http-input/request.js";
import type { RequestAuth } from "../sessions/session-check.js";
import type { CheckOutcome, CheckRequest } from "../sessions/session-check.js";
import { errorReply, type WireResponse } from "../wire/reply.js";
import { RequestView, type ViewSettings } from "./request-view.js";

/** A guard's decision: go on (with the session), or answer `reply` (a refusal, or a preflight's 204); `headers` go on either. */
export type GuardResult =
  | { readonly auth: RequestAuth | undefined; readonly headers: HeaderRecord; readonly reply?: undefined; readonly error?: undefined }
  | { readonly reply: WireResponse; readonly error: SessionAuthError | undefined; readonly headers: HeaderRecord; readonly auth?: undefined };

/** A guard: decides one request. Rejects only with an error that is not the package's (a bug, not a refusal). */
export type Guard = (http: HttpRequest) => Promise<GuardResult>;

/** A guard over a session check, with CORS for the app origins wherever its route is. */
export function guardOver(check: (request: CheckRequest) => Promise<CheckOutcome>, cors: CorsSettings, settings: ViewSettings): Guard {
  return async function guard(http) {
    const view = new RequestView(http, settings);
    let corsHeaders = NO_HEADERS;
    if (cors.enabled) {
      const decision = corsDecision(view, cors);
      if ("preflight" in decision) return { reply: decision.preflight, error: undefined, headers: NO_HEADERS };
      corsHeaders = decision.headers;
    }
    const outcome = await check(view);
    const headers = outcome.setCookie.length === 0 ? corsHeaders : mergeHeaders(corsHeaders, { "Set-Cookie": outcome.setCookie });
    if (outcome.error !== undefined) return { reply: errorReply(outcome.error, headers), error: outcome.error, headers };
    return { auth: outcome.auth, headers };
  };
}
