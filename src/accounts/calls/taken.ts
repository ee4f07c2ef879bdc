import { placeholder } from "../../wire/html.js";
import type { WireResponse } from "../../wire/reply.js";
import type { AccountCall } from "../account-call.js";
import { formErrorReply } from "../replies.js";

/** The form's error for a name or mail another account took between the check and the write: the same 406 as the check's. */
export function takenError(call: AccountCall, field: "name" | "mail", values: { readonly name: string; readonly mail: string }): WireResponse {
  if (field === "name") return formErrorReply([["name", `The name ${placeholder(values.name)} is already taken.`]]);
  const message =
    call.caller === undefined
      ? `The e-mail address ${placeholder(values.mail)} is already registered. <a href="${call.relativeUrl("user/password")}">Have you forgotten your password?</a>`
      : `The e-mail address ${placeholder(values.mail)} is already taken.`;
  return formErrorReply([["mail", message]]);
}

/**
 * A new password hashed for storage (`user_hash_password()` of it, trimmed by the form already); a
 * hasher that refuses it (Drupal's 512-byte limit) is the form's error on `pass`, not a fault.
 */
export async function hashedPassword(call: AccountCall, password: string): Promise<string | WireResponse> {
  try {
    return await call.deps.hasher.hash(password);
  } catch (error) {
    if (error instanceof RangeError) return formErrorReply([["pass", "The password is too long: it must be 512 bytes or less."]]);
    throw error;
  }
}
