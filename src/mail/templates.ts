/** The mails Drupal 7's user module sends (`_user_mail_notify()` operations). */
export type UserMailOperation =
  | "register_admin_created"
  | "register_no_approval_required"
  | "register_pending_approval"
  | "register_pending_approval_admin"
  | "password_reset"
  | "status_activated"
  | "status_blocked"
  | "status_canceled"
  | "cancel_confirm";

/** A template's variable name in Drupal: `user_mail_<operation>_subject` or `_body`. */
export type UserMailTemplateKey = `${UserMailOperation}_${"subject" | "body"}`;

const LINK_THEN_PASSWORD =
  "You may now log in by clicking this link or copying and pasting it to your browser:\n\n[user:one-time-login-url]\n\nThis link can only be used once to log in and will lead you to a page where you can set your password.\n\nAfter setting your password, you will be able to log in at [site:login-url] in the future using:\n\nusername: [user:name]\npassword: Your password\n\n--  [site:name] team";

/**
 * Drupal 7.101's default texts (`_user_mail_text()`), used where the site set none of its own
 * (the `user_mail_*` variables): the same mail as Drupal sends, word for word, tokens and all.
 */
export const USER_MAIL_DEFAULTS: Readonly<Record<UserMailTemplateKey, string>> = Object.freeze({
  register_no_approval_required_subject: "Account details for [user:name] at [site:name]",
  register_no_approval_required_body: `[user:name],\n\nThank you for registering at [site:name]. ${LINK_THEN_PASSWORD}`,
  register_admin_created_subject: "An administrator created an account for you at [site:name]",
  register_admin_created_body: `[user:name],\n\nA site administrator at [site:name] has created an account for you. ${LINK_THEN_PASSWORD}`,
  register_pending_approval_subject: "Account details for [user:name] at [site:name] (pending admin approval)",
  register_pending_approval_admin_subject: "Account details for [user:name] at [site:name] (pending admin approval)",
  register_pending_approval_body:
    "[user:name],\n\nThank you for registering at [site:name]. Your application for an account is currently pending approval. Once it has been approved, you will receive another e-mail containing information about how to log in, set your password, and other details.\n\n\n--  [site:name] team",
  register_pending_approval_admin_body: "[user:name] has applied for an account.\n\n[user:edit-url]",
  password_reset_subject: "Replacement login information for [user:name] at [site:name]",
  password_reset_body:
    "[user:name],\n\nA request to reset the password for your account has been made at [site:name].\n\nYou may now log in by clicking this link or copying and pasting it to your browser:\n\n[user:one-time-login-url]\n\nThis link can only be used once to log in and will lead you to a page where you can set your password. It expires after one day and nothing will happen if it's not used.\n\n--  [site:name] team",
  status_activated_subject: "Account details for [user:name] at [site:name] (approved)",
  status_activated_body: `[user:name],\n\nYour account at [site:name] has been activated.\n\n${LINK_THEN_PASSWORD.replace("to your browser", "into your browser")}`,
  status_blocked_subject: "Account details for [user:name] at [site:name] (blocked)",
  status_blocked_body: "[user:name],\n\nYour account on [site:name] has been blocked.\n\n--  [site:name] team",
  cancel_confirm_subject: "Account cancellation request for [user:name] at [site:name]",
  cancel_confirm_body:
    "[user:name],\n\nA request to cancel your account has been made at [site:name].\n\nYou may now cancel your account on [site:url-brief] by clicking this link or copying and pasting it into your browser:\n\n[user:cancel-url]\n\nNOTE: The cancellation of your account is not reversible.\n\nThis link expires in one day and nothing will happen if it is not used.\n\n--  [site:name] team",
  status_canceled_subject: "Account details for [user:name] at [site:name] (canceled)",
  status_canceled_body: "[user:name],\n\nYour account on [site:name] has been canceled.\n\n--  [site:name] team",
});
