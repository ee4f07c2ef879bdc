import { trimSlashes } from "../http-input/path.js";

/** A call of Services' user resource beyond the session calls, by its name in an endpoint's resource settings. */
export type UserCall =
  | "retrieve"
  | "create"
  | "update"
  | "delete"
  | "index"
  | "register"
  | "request_new_password"
  | "user_pass_reset"
  | "cancel"
  | "password_reset"
  | "resend_welcome_email";

/** Every {@link UserCall}: the operations, the actions, the targeted actions. */
export const USER_CALLS: readonly UserCall[] = Object.freeze([
  "retrieve",
  "create",
  "update",
  "delete",
  "index",
  "register",
  "request_new_password",
  "user_pass_reset",
  "cancel",
  "password_reset",
  "resend_welcome_email",
]);

/** The calls that write accounts: a user store without `createUser`, `updateUser`, `deleteUser` and `findByMail` cannot serve them. */
export const WRITING_CALLS: ReadonlySet<UserCall> = new Set(["create", "register", "update", "delete", "cancel"]);

/** The calls that send mail: they need a mailer. */
export const MAILING_CALLS: ReadonlySet<UserCall> = new Set([
  "create",
  "register",
  "update",
  "request_new_password",
  "cancel",
  "password_reset",
  "resend_welcome_email",
]);

const ACTIONS: ReadonlySet<string> = new Set(["register", "request_new_password", "user_pass_reset"]);
const TARGETED: ReadonlySet<string> = new Set(["cancel", "password_reset", "resend_welcome_email"]);

/** A request routed to a call: which, its URL's format suffix, and the uid its path names (as sent, decoded). */
export interface UserRoute {
  readonly call: UserCall;
  readonly format: string | undefined;
  readonly uid?: string;
}

// Services splits the format suffix off with this pattern (ServicesContentTypeNegotiator), as routing.ts does.
const SUFFIX = /^(.+)\.([^./^]+)$/;

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** PHP's `empty()` of a path segment. */
function empty(segment: string | undefined): boolean {
  return segment === undefined || segment === "" || segment === "0";
}

/**
 * The call of the user resource a request names, as `RESTServer::resolveController()` picks it among
 * the `enabled` ones (by the routing method and the number of path segments after `user`), or
 * `undefined`. The session actions (`login`, `logout`, `token`) are not among them.
 */
export function routeUserCall(path: string, method: string, enabled: ReadonlySet<UserCall>): UserRoute | undefined {
  if (enabled.size === 0) return undefined;
  const trimmed = trimSlashes(path);
  const suffix = SUFFIX.exec(trimmed);
  const [base, format] = suffix === null ? [trimmed, undefined] : [suffix[1]!, suffix[2]];
  const [resource, ...rest] = base.split("/").map(decode);
  if (resource !== "user") return undefined;
  const route = (call: UserCall, uid?: string): UserRoute | undefined =>
    enabled.has(call) ? { call, format, ...(uid === undefined ? {} : { uid }) } : undefined;
  switch (method) {
    case "GET":
      if (rest.length === 0) return route("index");
      return rest.length === 1 && !empty(rest[0]) ? route("retrieve", rest[0]) : undefined;
    case "PUT":
      return rest.length === 1 && !empty(rest[0]) ? route("update", rest[0]) : undefined;
    case "DELETE":
      return rest.length === 1 && !empty(rest[0]) ? route("delete", rest[0]) : undefined;
    case "POST":
      if (rest.length === 0) return route("create");
      if (rest.length === 1 && ACTIONS.has(rest[0]!)) return route(rest[0] as UserCall);
      if (rest.length === 2 && TARGETED.has(rest[1]!) && !empty(rest[0])) return route(rest[1] as UserCall, rest[0]);
      return undefined;
    default:
      return undefined;
  }
}

/** Whether a path below the endpoint is on the user resource (`user`, `user/…`): with any account call enabled, the endpoint may answer it. */
export function onUserResource(path: string): boolean {
  const trimmed = trimSlashes(path);
  return trimmed === "user" || trimmed.startsWith("user/") || trimmed.startsWith("user.");
}
