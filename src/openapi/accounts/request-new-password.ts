import type { PathBuilder } from "../path-builder.js";
import { accountBody, accountOperation, accountPost, done, servicesError } from "./account-operation.js";

/** `user/request_new_password`: Drupal's forgot-password form, a one-time link mailed. */
export const requestNewPassword: PathBuilder = (context) =>
  accountPost(context, "request_new_password", "/user/request_new_password.json", () =>
    accountOperation(
      "userRequestNewPassword",
      "Forgot password",
      "Mails an active account, found by mail then name, its one-time login link, within Drupal's flood limits (per address and per account). A name no active account has is answered `[true]` and nothing sent, unless `accounts.unknownAccount` is `\"reveal\"`: Services' 406. `[false]` when the mail could not be sent.",
      {
        "200": done,
        "406": servicesError(
          'Sorry, too many password reset attempts from your IP address. … | Sorry, <name> is not recognized as a user name or an e-mail address. ("reveal")',
        ),
      },
      accountBody(context, "NameBody"),
    ),
  );
