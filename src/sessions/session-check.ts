import { SessionAuthError, isSessionAuthError } from "../errors.js";
import type { StoredSession, UserRecord } from "../types.js";
import type { GuardSettings } from "./options.js";
import { NO_COOKIES, SAFE_METHODS, type SessionContext, type SessionRequest, type Sessions } from "./sessions.js";

/** The signed-in user as routes see it: the account without its password hash. */
export type AuthUser = Omit<UserRecord, "passwordHash">;

/**
 * What a guard lets a route see of a live session: `req.auth` in Express.
 *
 * @example
 * ```ts
 * app.get("/services/json/me", auth.requireSession(), (req, res) => {
 *   const { user, session } = req.auth!; // RequestAuth
 *   res.json({ name: user.name, since: session.record.createdAt });
 * });
 * ```
 */
export interface RequestAuth {
  /** The signed-in user. */
  readonly user: AuthUser;
  /** The live session: its store handle (safe to log) and record. */
  readonly session: StoredSession;
}

/** The frozen, hash-less user routes see, made once per record where the store `keepsRecords` (docs/performance.md). */
const authUsers = new WeakMap<UserRecord, AuthUser>();

function authUserOf(record: UserRecord, keepsRecords: boolean): AuthUser {
  let user = keepsRecords ? authUsers.get(record) : undefined;
  if (user === undefined) {
    const { passwordHash: _hidden, ...rest } = record;
    user = Object.freeze(rest);
    if (keepsRecords) authUsers.set(record, user);
  }
  return user;
}

/** A request to a guarded route, as far as the session check needs it. */
export interface CheckRequest extends SessionRequest {
  readonly method: string;
  /** The client's address, read only when an event needs it. */
  readonly ip: string;
  /** The CSRF token the request supplies (the header, then `services_token`), read only when needed. */
  csrfToken(): string | undefined;
}

/** Let the request through (with the session, or none from an optional check) or refuse it; `setCookie` goes on the reply either way. */
export type CheckOutcome =
  | { readonly auth: RequestAuth | undefined; readonly error?: undefined; readonly setCookie: readonly string[] }
  | { readonly error: SessionAuthError; readonly auth?: undefined; readonly setCookie: readonly string[] };

/**
 * The session check in front of an app's routes, framework-free: required, it needs a live session,
 * its CSRF token on unsafe methods and one of `roles`; optional, it never refuses for lack of one
 * but attaches it only where required would pass. A failing store is refused either way, never anonymous.
 * Decided at once where the session is known without waiting ({@link Sessions.contextAtOnce}); a
 * promise only where a store must be asked. Throws or rejects only with an error that is not the package's.
 */
export function sessionCheck(
  sessions: Sessions,
  options: GuardSettings & { readonly optional: boolean; readonly keepsRecords?: boolean },
): (request: CheckRequest) => CheckOutcome | Promise<CheckOutcome> {
  const { csrf, roles, optional, keepsRecords = false } = options;

  function refusal(error: unknown, setCookie: readonly string[]): CheckOutcome {
    if (!isSessionAuthError(error)) throw error;
    // An optional check lets an unproven session through as no session at all.
    if (optional && error.code !== "ERR_STORE_UNAVAILABLE" && error.code !== "ERR_STORE_FULL") return { auth: undefined, setCookie };
    return { error, setCookie };
  }

  function decide(request: CheckRequest, { state, setCookie }: SessionContext): CheckOutcome {
    try {
      if (state.kind !== "live") {
        if (optional) return { auth: undefined, setCookie };
        throw new SessionAuthError("ERR_UNAUTHENTICATED");
      }
      // A safe method needs no token: the request's id, address and token are then never read.
      if (csrf && !SAFE_METHODS.has(request.method)) {
        sessions.checkCsrf(
          state,
          request.method,
          () => request.csrfToken(),
          () => request.ip,
          request.requestId,
        );
      }
      if (roles.length > 0 && !Object.values(state.user.roles).some((role) => roles.includes(role))) {
        throw new SessionAuthError("ERR_FORBIDDEN", state.user.name);
      }
      return { auth: { user: authUserOf(state.user, keepsRecords), session: state.session }, setCookie };
    } catch (error) {
      return refusal(error, setCookie);
    }
  }

  return function check(request) {
    let known: SessionContext | undefined;
    try {
      known = sessions.contextAtOnce(request);
    } catch (error) {
      return refusal(error, NO_COOKIES);
    }
    if (known !== undefined) return decide(request, known);
    return sessions.context(request).then(
      (context) => decide(request, context),
      (error: unknown) => refusal(error, NO_COOKIES),
    );
  };
}
