import type { UserCall } from "../../accounts/user-routes.js";
import { json, ref } from "../parts.js";
import type { PathContext, Paths } from "../path-builder.js";
import type { Json, OpenApiObject } from "../types.js";

/**
 * What the account calls' operations share: the tag, who may call, the errors of the pipeline every
 * call goes through, and Services' errors with Drupal's words.
 *
 * @module
 */

/** A Services error reply: its status line's message, and the JSON body with it (or `form_errors`). */
export function servicesError(message: string, form = false): OpenApiObject {
  return { description: message, content: json(ref(form ? "FormErrors" : "ErrorBody")) };
}

/** The errors of the pipeline every account call goes through, besides its own. */
const PIPELINE: Record<string, OpenApiObject> = {
  "400": servicesError("Invalid JSON."),
  "401": servicesError("Missing required argument <name> | CSRF validation failed (a live session on an unsafe method without its token)"),
  "413": servicesError("Request body too large."),
  "503": servicesError("Service temporarily unavailable. (a store failed)"),
};

/** An account call's operation: its own responses, then the pipeline's. */
export function accountOperation(
  operationId: string,
  summary: string,
  description: string,
  responses: Record<string, OpenApiObject>,
  extra: OpenApiObject = {},
): OpenApiObject {
  return {
    operationId,
    tags: ["Services user resource"],
    summary,
    description,
    security: [{}, { sessionCookie: [], csrfToken: [] }],
    ...extra,
    responses: { ...responses, ...PIPELINE },
  };
}

/** The account calls this set-up serves. */
export const servedCalls = ({ settings }: PathContext): ReadonlySet<UserCall> => settings.accounts?.calls ?? new Set();

/** One account call's POST, at its path under the endpoint, where the set-up serves the call. */
export function accountPost(context: PathContext, call: UserCall, path: string, operation: () => OpenApiObject): Paths {
  return servedCalls(context).has(call) ? { [`${context.base}${path}`]: { post: operation() } } : {};
}

/** A required request body of one of the account schemas, in each type the endpoint parses. */
export const accountBody = ({ bodyTypes }: PathContext, schema: string): OpenApiObject => ({
  requestBody: { required: true, content: bodyTypes(ref(schema)) },
});

export const uidParameter: Json = { name: "uid", in: "path", required: true, schema: { type: "string", pattern: "^\\d+$" } };
export const noUser = servicesError("There is no user with ID <uid>.");
export const denied = servicesError("Access denied for user <name>");
export const done = { description: "Done.", content: json(ref("Done")) };
