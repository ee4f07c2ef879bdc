import type { UserCall } from "../../accounts/user-routes.js";
import type { PathBuilder, Paths } from "../path-builder.js";
import { accountOperation, done, noUser, servedCalls, servicesError, uidParameter } from "./account-operation.js";

/** The admin actions on one account, each a POST to `user/{uid}/<action>`: its operation id, summary, description and why it is refused. */
const ACTIONS: readonly (readonly [UserCall, string, string, string, string])[] = [
  [
    "cancel",
    "userCancel",
    "Cancel an account",
    "For admins; never uid 1. The site's cancel method: blocked (its sessions end) or deleted, with the notice mail the site sends.",
    "Access denied for user <name> | The admin user cannot be canceled.",
  ],
  [
    "password_reset",
    "userPasswordReset",
    "Mail an account its one-time link",
    "The account's one-time login link, mailed; within the password form's flood limits but for admins.",
    "Access denied for user <name>",
  ],
  [
    "resend_welcome_email",
    "userResendWelcomeEmail",
    "Mail an account its welcome again",
    "For admins: the welcome mail of the site's registration policy.",
    "Access denied for user <name>",
  ],
];

/** `user/{uid}/cancel`, `user/{uid}/password_reset`, `user/{uid}/resend_welcome_email`: the served ones. */
export const userUidActions: PathBuilder = (context) => {
  const calls = servedCalls(context);
  const paths: Paths = {};
  for (const [call, operationId, summary, description, refused] of ACTIONS) {
    if (!calls.has(call)) continue;
    paths[`${context.base}/user/{uid}/${call}.json`] = {
      post: accountOperation(operationId, summary, description, { "200": done, "403": servicesError(refused), "404": noUser }, { parameters: [uidParameter] }),
    };
  }
  return paths;
};
