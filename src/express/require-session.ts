import type { NextFunction, Request, RequestHandler, Response } from "express";
import { resolveRequireOptions, type RequireSessionOptions } from "../core/options.js";
import { SAFE_METHODS, SessionManager } from "../core/session-manager.js";
import { hashSessionId } from "../core/session-id.js";
import { sessionContext } from "../services/endpoint.js";
import { errorReply } from "../services/wire.js";
import { SessionAuthError } from "../errors.js";
import type { AuthUser } from "./augment.js";
import { clientIp, formBodyParameter, header, queryParameter } from "./request.js";
import { send } from "./respond.js";

/**
 * Middleware that lets a request through only with a live, logged-in session, and attaches
 * `req.auth = { user, session }`. Otherwise it answers in the Services wire format: 401
 * without a session, 401 `CSRF validation failed` for an unsafe method without the
 * session's `X-CSRF-Token` (or `services_token` in the query or a form body the app has
 * parsed), 403 without a required
 * role, 503 when a store fails (never a silent downgrade to anonymous).
 *
 * A protected GET costs one session-store read and one user lookup; the last-seen time is
 * written at most once per `touchInterval`.
 *
 * @example
 * ```ts
 * app.get("/services/json/players", requireSession(auth), (req, res) => res.json(players));
 * app.post("/services/json/players", requireSession({ ...auth, roles: ["administrator"] }), addPlayer);
 * ```
 * @throws TypeError at start-up when an option is missing or invalid.
 */
export function requireSession(options: RequireSessionOptions): RequestHandler {
  const resolved = resolveRequireOptions(options);
  const manager = new SessionManager(resolved);
  const { csrf, roles } = resolved;

  return async function requireSession(req: Request, res: Response, next: NextFunction) {
    let extra: Readonly<Record<string, string | readonly string[]>> = {};
    try {
      // Only what finding the session needs; the address and the token are read when used.
      const context = await sessionContext(manager, { host: header(req, "host") ?? "", secure: req.secure, cookieHeader: header(req, "cookie") });
      extra = context.extra;
      const { state } = context;
      if (state.kind !== "live") throw new SessionAuthError("ERR_UNAUTHENTICATED");
      if (csrf && !SAFE_METHODS.has(req.method)) {
        // Services' order: the header, then $_REQUEST (the query, or a form body the app parsed).
        const supplied = header(req, "x-csrf-token") ?? queryParameter(req, "services_token") ?? formBodyParameter(req, "services_token");
        if (!manager.tokenMatches(state.sessid, supplied)) {
          manager.emit({ type: "csrf.rejected", uid: state.user.uid, session: hashSessionId(state.sessid), ip: clientIp(req), method: req.method });
          throw new SessionAuthError("ERR_CSRF");
        }
      }
      if (roles.length > 0 && !Object.values(state.user.roles).some((role) => roles.includes(role))) {
        throw new SessionAuthError("ERR_FORBIDDEN", state.user.name);
      }
      const { passwordHash: _hidden, ...user } = state.user;
      req.auth = { user: user satisfies AuthUser, session: state.session };
    } catch (error) {
      return send(res, errorReply(error, extra));
    }
    // Several cookies of the session's name: the reply keeps the live one and deletes the others.
    const setCookie = extra["Set-Cookie"];
    if (setCookie !== undefined) res.append("Set-Cookie", setCookie as string[]);
    next();
  };
}
