import type { RequestAuth } from "../sessions/session-check.js";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `requireSession()` on the requests it lets through, and by `optionalSession()` when a session is live; `undefined` elsewhere. */
      auth?: RequestAuth;
    }
  }
}

export type { AuthUser, RequestAuth } from "../sessions/session-check.js";
