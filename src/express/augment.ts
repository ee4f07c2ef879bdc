import type { RequestAuth } from "../sessions/route-guard.js";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /**
       * Set by `requireSession()` on the requests it lets through, and by `optionalSession()` when a
       * session is live; `undefined` elsewhere. An accessor on Express's request prototype, not an
       * own property: test it with `req.auth !== undefined` (not `"auth" in req`), clear it with
       * `req.auth = undefined` (not `delete`).
       */
      auth?: RequestAuth;
    }
  }
}

export type { AuthUser, RequestAuth } from "../sessions/route-guard.js";
