import type { PathBuilder } from "../path-builder.js";
import { accountPost } from "./account-operation.js";
import { registration } from "./registration.js";

/** `user/register`: Drupal's registration form. */
export const userRegister: PathBuilder = (context) =>
  accountPost(context, "register", "/user/register.json", () => registration(context, "userRegister", "Register"));
