import { corsDecision } from "../cors/cors.js";
import type { CorsSettings } from "../cors/options.js";
import type { SessionAuthError } from "../errors.js";
import type { HttpRequest } from "../http-input/request.js";
import { mergeHeaders, NO_HEADERS, type HeaderRecord } from "../http-output/headers.js";
import type { GuardSettings } from "../sessions/options.js";
import type { CheckOutcome, CheckRequest, RequestAuth } from "../sessions/session-check.js";
import { errorReply, type WireResponse } from "../wire/reply.js";
import { RequestView, type ViewSettings } from "./request-view.js";

/**
 * What the engine decided of one request, for a binding only to carry out: go on to the route
 * (with the session, if any, and the headers its reply owes), answer `reply` (a refusal, a
 * preflight; `error` says which refusal), or hand `error` to the framework's error path (`onDenied: "next"`) with `headers`.
 */
export type Decision =
  | { readonly kind: "continue"; readonly auth: RequestAuth | undefined; readonly headers: HeaderRecord }
  | { readonly kind: "reply"; readonly reply: WireResponse; readonly error?: SessionAuthError | undefined }
  | { readonly kind: "fail"; readonly error: SessionAuthError; readonly headers: HeaderRecord };

/**
 * A guard: decides one request, at once where nothing must be waited for (a decision), else a
 * promise of one. Rejects only with an error that is not the package's (a bug, not a refusal).
 */
export type Guard = (http: HttpRequest) => Decision | Promise<Decision>;

/** A guard over a session check, with CORS for the app origins wherever its route is, and `onDenied` applied. */
export function guardOver(
  check: (request: CheckRequest) => CheckOutcome | Promise<CheckOutcome>,
  onDenied: GuardSettings["onDenied"],
  cors: CorsSettings,
  settings: ViewSettings,
): Guard {
  function decision(outcome: CheckOutcome, corsHeaders: HeaderRecord): Decision {
    const headers = outcome.setCookie.length === 0 ? corsHeaders : mergeHeaders(corsHeaders, { "Set-Cookie": outcome.setCookie });
    if (outcome.error === undefined) return { kind: "continue", auth: outcome.auth, headers };
    if (onDenied === "next") return { kind: "fail", error: outcome.error, headers };
    return { kind: "reply", reply: errorReply(outcome.error, headers), error: outcome.error };
  }

  return function guard(http) {
    try {
      const view = new RequestView(http, settings);
      let corsHeaders = NO_HEADERS;
      if (cors.enabled) {
        const decided = corsDecision(view, cors);
        if ("preflight" in decided) return { kind: "reply", reply: decided.preflight };
        corsHeaders = decided.headers;
      }
      const outcome = check(view);
      return outcome instanceof Promise ? outcome.then((known) => decision(known, corsHeaders)) : decision(outcome, corsHeaders);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
}
