import { json, ref } from "../parts.js";
import type { PathBuilder } from "../path-builder.js";
import { accountBody, accountOperation, accountPost, servicesError } from "./account-operation.js";

/** `user/user_pass_reset`: a one-time login link used, a session and a pass-reset token given. */
export const userPassReset: PathBuilder = (context) =>
  accountPost(context, "user_pass_reset", "/user/user_pass_reset.json", () =>
    accountOperation(
      "userPassReset",
      "Use a one-time login link",
      "The link's uid, timestamp and hash: a valid one opens a session (cookie set) and gives a pass-reset token; it works once (the login it makes moves past it), and expires after the site's timeout once the account has logged in.",
      {
        "200": { description: "Logged in.", content: json(ref("PassResetReply")) },
        "403": servicesError("Access denied. | You are logged in as <name>. Please edit your profile to update your password."),
        "405": servicesError("Another user (<name>) is already logged into the site on this computer, but you tried to use a one-time link for user <name>. …"),
        "406": servicesError(
          "You have tried to use a one-time login link that has expired. … | … has either been used or is no longer valid. … | The one-time login link you clicked is invalid.",
        ),
      },
      accountBody(context, "PassResetBody"),
    ),
  );
