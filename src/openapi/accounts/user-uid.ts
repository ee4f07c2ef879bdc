import { json, ref } from "../parts.js";
import type { PathBuilder } from "../path-builder.js";
import type { OpenApiObject } from "../types.js";
import { accountBody, accountOperation, denied, done, noUser, servedCalls, servicesError, uidParameter } from "./account-operation.js";

/** `user/{uid}`: one account, read (GET), changed (PUT) or deleted (DELETE). */
export const userUid: PathBuilder = (context) => {
  const calls = servedCalls(context);
  const operations: OpenApiObject = {};
  if (calls.has("retrieve")) {
    operations.get = accountOperation(
      "userRetrieve",
      "One account",
      'To its owner, an admin, or with "access user profiles" an active account. `mail` only for the owner or an admin, `init` only for an admin, never `pass`.',
      { "200": { description: "The account.", content: json(ref("UserObject")) }, "403": denied, "404": noUser },
      { parameters: [uidParameter] },
    );
  }
  if (calls.has("update")) {
    operations.put = accountOperation(
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
        ...accountBody(context, "AccountUpdate"),
      },
    );
  }
  if (calls.has("delete")) {
    operations.delete = accountOperation(
      "userDelete",
      "Delete an account",
      "For admins; never uid 1. Ends the account's sessions.",
      {
        "200": done,
        "403": servicesError("Access denied for user <name> | The admin user cannot be deleted."),
        "404": noUser,
      },
      { parameters: [uidParameter] },
    );
  }
  return Object.keys(operations).length === 0 ? {} : { [`${context.base}/user/{uid}.json`]: operations };
};
