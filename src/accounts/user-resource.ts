import { SessionAuthError } from "../errors.js";
import { bodyArgument } from "../http-input/body.js";
import type { SessionContext } from "../sessions/sessions.js";
import type { WireResponse } from "../wire/reply.js";
import { AccountCall, type AccountDeps, type AccountRequest } from "./account-call.js";
import { cancelUser, deleteUser, resendWelcomeEmail } from "./calls/admin.js";
import { passwordReset, requestNewPassword, userPassReset } from "./calls/password.js";
import { indexUsers, retrieveUser } from "./calls/read.js";
import { registerUser } from "./calls/register.js";
import { updateUser } from "./calls/update.js";
import { settingsFrom, type AccountSettingsSource } from "./settings.js";
import { routeUserCall, type UserCall, type UserRoute } from "./user-routes.js";

/** A call's arguments, mapped from the request as Services' `getControllerArgumentsFromSources()` maps them. */
export type UserCallArguments = readonly unknown[];

/** A data argument by PHP `isset()`: a missing one is `401 Missing required argument <name>`. */
function required(body: unknown, name: string): unknown {
  const value = bodyArgument(body, name);
  if (value === undefined) throw new SessionAuthError("ERR_MISSING_ARGUMENT", name);
  return value;
}

/**
 * Services' user resource beyond the session calls, over the engine's stores: which call a request
 * names, its arguments, and its answer (docs/accounts.md). Only the calls in `enabled` exist.
 */
export class UserResource {
  readonly #deps: AccountDeps;
  readonly #enabled: ReadonlySet<UserCall>;
  readonly #settings: AccountSettingsSource | undefined;

  constructor(deps: AccountDeps, enabled: ReadonlySet<UserCall>, settings: AccountSettingsSource | undefined) {
    this.#deps = deps;
    this.#enabled = enabled;
    this.#settings = settings;
  }

  /** The calls served. */
  get enabled(): ReadonlySet<UserCall> {
    return this.#enabled;
  }

  /** The call a path below the endpoint names for the routing method, or `undefined`. */
  route(path: string, method: string): UserRoute | undefined {
    return routeUserCall(path, method, this.#enabled);
  }

  /** Whether a call reads a request body (Services parses one for POST and PUT only). */
  readsBody(route: UserRoute): boolean {
    return route.call !== "retrieve" && route.call !== "delete" && route.call !== "index";
  }

  /**
   * The call's arguments from the parsed body, in Services' order; a required one missing throws.
   * @throws SessionAuthError `ERR_MISSING_ARGUMENT`.
   */
  arguments(route: UserRoute, body: unknown): UserCallArguments {
    switch (route.call) {
      case "create":
      case "register":
        return [body];
      case "update":
        return [route.uid, body];
      case "request_new_password":
        return [required(body, "name")];
      case "user_pass_reset":
        return [required(body, "uid"), required(body, "timestamp"), required(body, "hashed_pass")];
      default:
        return [route.uid];
    }
  }

  /** Answers a routed call once Services' pipeline passed (format, body, arguments, session and CSRF). */
  async run(route: UserRoute, args: UserCallArguments, request: AccountRequest, context: SessionContext): Promise<WireResponse> {
    const call = new AccountCall(this.#deps, await settingsFrom(this.#settings), request, context);
    const uid = route.uid ?? "";
    switch (route.call) {
      case "retrieve":
        return retrieveUser(call, uid);
      case "index":
        return indexUsers(call);
      case "create":
      case "register":
        return registerUser(call, args[0]);
      case "update":
        return updateUser(call, uid, args[1]);
      case "delete":
        return deleteUser(call, uid);
      case "cancel":
        return cancelUser(call, uid);
      case "resend_welcome_email":
        return resendWelcomeEmail(call, uid);
      case "password_reset":
        return passwordReset(call, uid);
      case "request_new_password":
        return requestNewPassword(call, args[0]);
      case "user_pass_reset":
        return userPassReset(call, args[0], args[1], args[2]);
    }
  }
}
