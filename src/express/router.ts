import { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { Authenticator } from "../core/login.js";
import { resolveRouterOptions, resolveSessionOptions, type SessionAuthRouterOptions, type SessionOptions } from "../core/options.js";
import { SessionManager } from "../core/session-manager.js";
import { trimSlashes } from "../services/path.js";
import { endpointRootReply, headReply, optionsReply, routingMethod } from "../services/routing.js";
import { ServicesEndpoint, sessionTokenReply } from "../services/endpoint.js";
import { errorReply } from "../services/wire.js";
import { SessionAuthError } from "../errors.js";
import { describe, header, queryParameter, readBody } from "./request.js";
import { send } from "./respond.js";

type Action = "login" | "logout" | "userToken" | "connect";

const ACTIONS: Readonly<Record<string, Action>> = {
  "user/login": "login",
  "user/logout": "logout",
  "user/token": "userToken",
  "system/connect": "connect",
};

// Services splits the format suffix off with this pattern (ServicesContentTypeNegotiator).
const SUFFIX = /^(.+)\.([^./]+)$/;

/**
 * Splits a path below the endpoint into the Services action and its format suffix, as
 * Services does: slashes trimmed, `.json` optional and case-sensitive.
 */
export function matchAction(path: string): { action: Action; format: string | undefined } | undefined {
  const trimmed = trimSlashes(path);
  const suffix = SUFFIX.exec(trimmed);
  const [base, format] = suffix === null ? [trimmed, undefined] : [suffix[1]!, suffix[2]];
  const action = ACTIONS[base];
  return action === undefined ? undefined : { action, format };
}

/**
 * An Express router with Drupal 7 Services' session calls, to mount at the endpoint path
 * (e.g. `/services/json`): `POST user/login`, `POST system/connect`, `POST user/logout`
 * and `POST user/token`, each with or without `.json`, and the endpoint path itself
 * (`Services Endpoint "<name>" has been setup successfully.`). Other paths fall through to
 * the app's own routes. Mount it before any global body parser: it reads bodies as
 * Services does (JSON, form-urlencoded, multipart, none), and negotiates `Accept` as it does.
 *
 * @example
 * ```ts
 * const auth = { userStore, sessionStore, secret: process.env.SESSION_SECRET };
 * app.use("/services/json", createSessionAuthRouter(auth));
 * app.get("/services/json/players", requireSession(auth), (req, res) => res.json(players));
 * ```
 * @throws TypeError at start-up when an option is missing or invalid (a store, a secret under 32 characters, …).
 */
export function createSessionAuthRouter(options: SessionAuthRouterOptions): Router {
  const resolved = resolveRouterOptions(options);
  const manager = new SessionManager(resolved);
  const endpoint = new ServicesEndpoint(manager, new Authenticator(manager, resolved), resolved);
  const router = Router();

  router.use(async function servicesSessionAuth(req: Request, res: Response, next: NextFunction) {
    // The endpoint's own path (unless the router sits at the site root, whose page is the app's).
    if (req.baseUrl !== "" && req.path.replace(/^\/+/, "") === "") return send(res, endpointRootReply(resolved.endpointName));
    const match = matchAction(req.path);
    if (match === undefined) return next();
    try {
      // Services resolves the controller (404, HEAD, OPTIONS) before it looks at the format.
      switch (routingMethod(req.method, header(req, "x-http-method-override"), queryParameter(req, "_method"))) {
        case "POST":
          break;
        case "HEAD":
          return send(res, headReply());
        case "OPTIONS":
          return send(res, optionsReply());
        default:
          throw new SessionAuthError("ERR_NO_CONTROLLER");
      }
      const body = await readBody(req, resolved.bodyLimit);
      send(res, await endpoint[match.action]({ ...describe(req), body, format: match.format }));
    } catch (error) {
      send(res, errorReply(error));
    }
  });
  return router;
}

/**
 * The handler for Drupal's `services/session/token` (any method), which lives outside the
 * endpoint path: mount it at the site root. It answers the session's CSRF token as bare
 * text/plain (43 characters, no newline); an anonymous caller gets a fresh random token and no cookie.
 *
 * @example
 * ```ts
 * app.all("/services/session/token", sessionTokenHandler(auth));
 * ```
 * @throws TypeError at start-up when an option is missing or invalid.
 */
export function sessionTokenHandler(options: SessionOptions): RequestHandler {
  const manager = new SessionManager(resolveSessionOptions(options, "sessionTokenHandler"));
  return async function servicesSessionToken(req: Request, res: Response) {
    send(res, await sessionTokenReply(manager, describe(req)));
  };
}
