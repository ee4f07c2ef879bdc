import { z } from "zod";
import type { UserCall } from "../accounts/user-routes.js";
import type { Json, OpenApiObject } from "./openapi.js";

/**
 * The OpenAPI description of the account calls (docs/accounts.md): their paths, bodies and
 * replies, each Services error with Drupal's words, for the calls a set-up serves.
 *
 * @module
 */

const json = (schema: OpenApiObject): OpenApiObject => ({ "application/json": { schema } });
const ref = (name: string): OpenApiObject => ({ $ref: `#/components/schemas/${name}` });

/** A Services error reply: its status line's message, and the JSON body with it (or `form_errors`). */
function servicesError(message: string, form = false): OpenApiObject {
  return { description: message, content: json(ref(form ? "FormErrors" : "ErrorBody")) };
}

/** The errors of the pipeline every account call goes through, besides its own. */
const PIPELINE: Record<string, OpenApiObject> = {
  "400": servicesError("Invalid JSON."),
  "401": servicesError("Missing required argument <name> | CSRF validation failed (a live session on an unsafe method without its token)"),
  "413": servicesError("Request body too large."),
  "503": servicesError("Service temporarily unavailable. (a store failed)"),
};

const pass = z.union([z.string(), z.object({ pass1: z.string(), pass2: z.string() })]).meta({ description: "The password, or the form's two fields." });
const account = z
  .looseObject({
    name: z.string().max(60),
    mail: z.string().max(254),
    pass: pass.optional(),
    status: z
      .union([z.literal(0), z.literal(1), z.enum(["0", "1"])])
      .optional()
      .meta({ description: "Admins only." }),
    roles: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Role ids as keys and values (`{"3": "3"}`); admins with "administer permissions" only.' }),
    notify: z.unknown().optional().meta({ description: "Any value: mail the new user the admin's welcome (admins only)." }),
  })
  .meta({ description: "Drupal's registration form's fields; or the same wrapped as `{\"account\": {…}}`." });
const update = z
  .looseObject({
    name: z.string().optional().meta({ description: 'Needs "change own username" or "administer users".' }),
    mail: z.string().optional(),
    pass: pass.optional(),
    current_pass: z.string().optional().meta({ description: "The owner's current password, to change the mail or the password without a pass-reset token." }),
    timezone: z.string().optional(),
    status: z.unknown().optional(),
    roles: z.record(z.string(), z.string()).optional(),
  })
  .meta({ description: 'The fields to change; or the same wrapped as `{"data": {…}}`.' });

/** The schemas the account paths refer to, for `components.schemas`. */
export const ACCOUNT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  AccountBody: account,
  AccountUpdate: update,
  AccountCreated: z.object({ uid: z.string(), uri: z.string().meta({ description: "The account under the endpoint." }) }),
  UserObject: z.looseObject({ uid: z.string(), name: z.string(), mail: z.string().optional(), login: z.string(), roles: z.record(z.string(), z.string()) }),
  UserRow: z
    .looseObject({ uid: z.string().optional(), uri: z.string() })
    .meta({ description: "A row of Drupal's `users` table (strings, `data` serialized), without `pass`." }),
  FormErrors: z.object({
    form_errors: z.record(z.string(), z.string()).meta({ description: "Drupal's message by form element (`name`, `mail`, `pass`, `current_pass`, …)." }),
  }),
  NameBody: z.object({ name: z.string().meta({ description: "A user name or an e-mail address." }) }),
  PassResetBody: z.object({ uid: z.union([z.string(), z.number()]), timestamp: z.union([z.string(), z.number()]), hashed_pass: z.string() }),
  PassResetReply: z.object({
    pass_reset_token: z.string().meta({ description: "Send it as `?pass-reset-token=` with `PUT user/{uid}` to set a password without the current one." }),
    message: z.string(),
  }),
  Done: z.tuple([z.boolean()]),
};

/** What the paths are built from. */
export interface AccountPathsInput {
  readonly base: string;
  readonly calls: ReadonlySet<UserCall>;
  /** The request body types the endpoint parses, for the body's schema. */
  readonly bodyTypes: (schema: OpenApiObject) => OpenApiObject;
}

const TAG = "Services user resource";
const uidParameter: Json = { name: "uid", in: "path", required: true, schema: { type: "string", pattern: "^\\d+$" } };

function operation(
  operationId: string,
  summary: string,
  description: string,
  responses: Record<string, OpenApiObject>,
  extra: OpenApiObject = {},
): OpenApiObject {
  return {
    operationId,
    tags: [TAG],
    summary,
    description,
    security: [{}, { sessionCookie: [], csrfToken: [] }],
    ...extra,
    responses: { ...responses, ...PIPELINE },
  };
}

const noUser = servicesError("There is no user with ID <uid>.");
const denied = servicesError("Access denied for user <name>");
const done = { description: "Done.", content: json(ref("Done")) };

/** The account calls' paths under the endpoint, for the calls served. */
export function accountPaths({ base, calls, bodyTypes }: AccountPathsInput): Record<string, OpenApiObject> {
  const paths: Record<string, OpenApiObject> = {};
  const add = (path: string, method: string, value: OpenApiObject) => void (paths[path] = { ...paths[path], [method]: value });
  const body = (schema: string): OpenApiObject => ({ requestBody: { required: true, content: bodyTypes(ref(schema)) } });
  const created = {
    description: "Created. A visitor who may log in at once (visitors may register, no e-mail verification) gets a session cookie.",
    content: json(ref("AccountCreated")),
  };
  const register = (id: string, summary: string) =>
    operation(
      id,
      summary,
      'Drupal\'s registration form: a visitor where the site lets visitors register, else an admin ("administer users"). Under e-mail verification the password is chosen by the site and a one-time link mailed; awaiting approval the account is blocked and the site mailed too.',
      { "200": created, "403": denied, "406": servicesError("The form's errors: `406 Not Acceptable : <every message>`, `form_errors` by element.", true) },
      body("AccountBody"),
    );
  if (calls.has("create")) add(`${base}/user.json`, "post", register("userCreate", "Create an account"));
  if (calls.has("register")) add(`${base}/user/register.json`, "post", register("userRegister", "Register"));
  if (calls.has("index")) {
    add(
      `${base}/user.json`,
      "get",
      operation(
        "userIndex",
        "List accounts",
        'Rows of the `users` table for those with "access user profiles", newest first: `fields` (comma-separated), `parameters[<column>]` (comma-separated values, `IN`), `options[orderby][<column>]`, `options[parameters_op][<column>]`, `page`, `pagesize` (at most the site\'s page size without "perform unlimited index queries").',
        {
          "200": { description: "The rows, each with its `uri`.", content: json({ type: "array", items: ref("UserRow") }) },
          "403": denied,
          "406": servicesError("Invalid query provided, double check that the fields and parameters you defined are correct and exist. …"),
        },
        { parameters: ["page", "fields", "pagesize"].map((name) => ({ name, in: "query", required: false, schema: { type: "string" } })) },
      ),
    );
  }
  const one = `${base}/user/{uid}.json`;
  if (calls.has("retrieve")) {
    add(
      one,
      "get",
      operation(
        "userRetrieve",
        "One account",
        'To its owner, an admin, or with "access user profiles" an active account. `mail` only for the owner or an admin, `init` only for an admin, never `pass`.',
        { "200": { description: "The account.", content: json(ref("UserObject")) }, "403": denied, "404": noUser },
        { parameters: [uidParameter] },
      ),
    );
  }
  if (calls.has("update")) {
    add(
      one,
      "put",
      operation(
        "userUpdate",
        "Change an account",
        "Drupal's account form, for the owner or an admin. The owner gives `current_pass` to change the mail or password, unless `?pass-reset-token=` is the token a one-time link gave this session. A new password ends the account's other sessions; the caller's stays. The reply is what was sent, with `uid` and `roles`, less the passwords.",
        {
          "200": { description: "Saved.", content: json({ type: "object" }) },
          "403": denied,
          "404": noUser,
          "406": servicesError("You are not allowed to change your username. | the form's errors, `form_errors` by element", true),
        },
        {
          parameters: [uidParameter, { name: "pass-reset-token", in: "query", required: false, schema: { type: "string" } }],
          ...body("AccountUpdate"),
        },
      ),
    );
  }
  if (calls.has("delete")) {
    add(
      one,
      "delete",
      operation(
        "userDelete",
        "Delete an account",
        "For admins; never uid 1. Ends the account's sessions.",
        {
          "200": done,
          "403": servicesError("Access denied for user <name> | The admin user cannot be deleted."),
          "404": noUser,
        },
        { parameters: [uidParameter] },
      ),
    );
  }
  if (calls.has("request_new_password")) {
    add(
      `${base}/user/request_new_password.json`,
      "post",
      operation(
        "userRequestNewPassword",
        "Forgot password",
        "Mails an active account, found by mail then name, its one-time login link, within Drupal's flood limits (per address and per account). A name no active account has is answered `[true]` and nothing sent, unless `accounts.unknownAccount` is `\"reveal\"`: Services' 406. `[false]` when the mail could not be sent.",
        {
          "200": done,
          "406": servicesError(
            'Sorry, too many password reset attempts from your IP address. … | Sorry, <name> is not recognized as a user name or an e-mail address. ("reveal")',
          ),
        },
        body("NameBody"),
      ),
    );
  }
  if (calls.has("user_pass_reset")) {
    add(
      `${base}/user/user_pass_reset.json`,
      "post",
      operation(
        "userPassReset",
        "Use a one-time login link",
        "The link's uid, timestamp and hash: a valid one opens a session (cookie set) and gives a pass-reset token; it works once (the login it makes moves past it), and expires after the site's timeout once the account has logged in.",
        {
          "200": { description: "Logged in.", content: json(ref("PassResetReply")) },
          "403": servicesError("Access denied. | You are logged in as <name>. Please edit your profile to update your password."),
          "405": servicesError(
            "Another user (<name>) is already logged into the site on this computer, but you tried to use a one-time link for user <name>. …",
          ),
          "406": servicesError(
            "You have tried to use a one-time login link that has expired. … | … has either been used or is no longer valid. … | The one-time login link you clicked is invalid.",
          ),
        },
        body("PassResetBody"),
      ),
    );
  }
  const targeted = (call: UserCall, id: string, summary: string, description: string, refused: string) => {
    if (!calls.has(call)) return;
    add(
      `${base}/user/{uid}/${call}.json`,
      "post",
      operation(id, summary, description, { "200": done, "403": servicesError(refused), "404": noUser }, { parameters: [uidParameter] }),
    );
  };
  targeted(
    "cancel",
    "userCancel",
    "Cancel an account",
    "For admins; never uid 1. The site's cancel method: blocked (its sessions end) or deleted, with the notice mail the site sends.",
    "Access denied for user <name> | The admin user cannot be canceled.",
  );
  targeted(
    "password_reset",
    "userPasswordReset",
    "Mail an account its one-time link",
    "The account's one-time login link, mailed; within the password form's flood limits but for admins.",
    "Access denied for user <name>",
  );
  targeted(
    "resend_welcome_email",
    "userResendWelcomeEmail",
    "Mail an account its welcome again",
    "For admins: the welcome mail of the site's registration policy.",
    "Access denied for user <name>",
  );
  return paths;
}
