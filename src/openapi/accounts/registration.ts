import { json, ref } from "../parts.js";
import type { PathContext } from "../path-builder.js";
import type { OpenApiObject } from "../types.js";
import { accountBody, accountOperation, denied, servicesError } from "./account-operation.js";

/** Drupal's registration form, as `user` (create) and `user/register` both answer it. */
export function registration(context: PathContext, operationId: string, summary: string): OpenApiObject {
  const created = {
    description: "Created. A visitor who may log in at once (visitors may register, no e-mail verification) gets a session cookie.",
    content: json(ref("AccountCreated")),
  };
  return accountOperation(
    operationId,
    summary,
    'Drupal\'s registration form: a visitor where the site lets visitors register, else an admin ("administer users"). Under e-mail verification the password is chosen by the site and a one-time link mailed; awaiting approval the account is blocked and the site mailed too.',
    { "200": created, "403": denied, "406": servicesError("The form's errors: `406 Not Acceptable : <every message>`, `form_errors` by element.", true) },
    accountBody(context, "AccountBody"),
  );
}
