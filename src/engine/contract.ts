import type { LoginReply } from "../endpoint/endpoint.js";
import type { OptionalSessionOptions, RequireSessionOptions } from "../sessions/options.js";
import type { UserRecord } from "../types.js";
import type { NotFoundOptions, SessionAuthBase } from "./engine.js";

/**
 * The one contract every framework's object keeps, each in its own idiom: `Guard` is the framework's
 * middleware (or a fetch guard), `NotFound` its not-found handler, `Exchange` what names one request's
 * reply there (Express `[req, res]`, Fastify `[request, reply]`, Hono `[c]`, fetch `[request, headers]`);
 * `OptionalGuard` is `optionalSession()`'s where its type says the session may be missing.
 */
export interface SessionAuthContract<Guard, NotFound, Exchange extends readonly unknown[], OptionalGuard = Guard> extends SessionAuthBase {
  /**
   * A guard: a live session, its CSRF token on unsafe methods, one of `roles`; else the wire format's
   * 401, 403 or 503 (with `onDenied: "next"`, the error goes to the framework's error path). Gives the route the `RequestAuth`.
   * @throws TypeError at once for an invalid option.
   */
  requireSession(options?: RequireSessionOptions): Guard;
  /** A guard that gives the route the live session when one comes, and never refuses for lack of one. */
  optionalSession(options?: OptionalSessionOptions): OptionalGuard;
  /**
   * Opens a session for a user the app authenticated itself (a new id, a live one ended), its cookie on the reply; resolves what `user/login` answers.
   * @throws SessionAuthError `ERR_ACCOUNT_BLOCKED` for an inactive account, `ERR_STORE_UNAVAILABLE` when a store fails.
   */
  startSession(...exchange: [...Exchange, user: UserRecord]): Promise<LoginReply>;
  /**
   * Ends the request's session as a logout does, deleting its cookie on the reply; resolves whether there was one.
   * @throws SessionAuthError `ERR_STORE_UNAVAILABLE` when the end could not be read or recorded everywhere (the deletion is set first).
   */
  endSession(...exchange: Exchange): Promise<boolean>;
  /** The last handler: Services' 404s below the endpoint path, Drupal's body-less `404 Not Found` elsewhere. */
  notFound(options?: NotFoundOptions): NotFound;
}
