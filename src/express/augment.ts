import type { StoredSession, UserRecord } from "../types.js";

/**
 * The signed-in user as routes see it: the account without its password hash.
 *
 * @example
 * ```ts
 * function greet(user: AuthUser): string {
 *   return `Hello ${user.name}`; // user.passwordHash does not exist here
 * }
 * ```
 */
export type AuthUser = Omit<UserRecord, "passwordHash">;

/**
 * What {@link requireSession} attaches to `req.auth`.
 *
 * @example
 * ```ts
 * app.get("/services/json/me", requireSession(auth), (req, res) => {
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

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `requireSession()` on the requests it lets through; absent elsewhere. */
      auth?: RequestAuth;
    }
  }
}
