import type { UserRecord, UserStore } from "../../types.js";
import { placeholder } from "../../wire/html.js";
import type { AccountSettings } from "../settings.js";
import { checkboxValue, checkboxesValue, drupalStrlen, member, phpArrayKey, phpString, phpTrim, textfieldValue } from "./form-values.js";
import { USERNAME_MAX_LENGTH, userNameError } from "./user-name.js";
import { validEmailAddress } from "./valid-email.js";

/** `EMAIL_MAX_LENGTH`. */
const EMAIL_MAX_LENGTH = 254;

const ILLEGAL_CHOICE = "An illegal choice has been detected. Please contact the site administrator.";

/** Who submits the account form, for which account, and what the site allows them. */
export interface AccountFormContext {
  /** Drupal's `user_register_form` (a new account) or `user_profile_form` (an existing one). */
  readonly mode: "register" | "update";
  /** The account edited (`update`). */
  readonly account?: UserRecord;
  /** The caller's uid, `"0"` for a visitor. */
  readonly callerUid: string;
  /** The caller's "administer users". */
  readonly admin: boolean;
  /** The caller's "administer permissions": the roles are theirs to set. */
  readonly assignRoles: boolean;
  /** The caller's "change own username". */
  readonly changeOwnName: boolean;
  /** The request carries this session's `pass-reset-token` for the account: no current password needed. */
  readonly passReset: boolean;
  /** The account may use Drupal's overlay ("access overlay", with the overlay module on). */
  readonly accountOverlay: boolean;
  readonly settings: AccountSettings;
  /** Every role but the anonymous one (rid → name). */
  readonly roles: Readonly<Record<string, string>>;
  /** The time zones an account may choose (`system_time_zones()`). */
  readonly timeZones: ReadonlySet<string>;
  readonly users: Pick<UserStore, "findByName" | "findByMail">;
  /** Checks a password against the edited account's hash (`user_check_password()`). */
  readonly checkPassword: (password: string) => Promise<boolean>;
  /** `url('user/password')`, site-relative, for the "already registered" message. */
  readonly passwordPath: string;
}

/** What the form would save, once valid: Drupal's form values after validation. */
export interface AccountFormValues {
  readonly name: string;
  /** Trimmed. */
  readonly mail: string;
  /** The new password (pass1, trimmed); `""` for none. */
  readonly pass: string;
  /** The status radios' value, where the caller may set it; else the default. */
  readonly active: boolean;
  /** The role ids chosen (besides "authenticated user"), where the caller may set them; else `undefined`. */
  readonly roles: readonly string[] | undefined;
  /** The "Notify user of new account" box (admins registering). */
  readonly notify: boolean;
  /** The time zone to store (`undefined`: the form has no time zone element). */
  readonly timezone: string | null | undefined;
  /** The overlay box (`undefined`: not on this form). */
  readonly overlay: 0 | 1 | undefined;
}

/** The form's outcome: the errors by element in the order Drupal records them (`form_get_errors()`), and the values. */
export interface AccountFormResult {
  readonly errors: ReadonlyArray<readonly [string, string]>;
  readonly values: AccountFormValues;
}

/** `form_set_error()`: the first error of an element wins. */
class FormErrors {
  readonly #errors = new Map<string, string>();

  set(name: string, message: string): void {
    if (!this.#errors.has(name)) this.#errors.set(name, message);
  }

  has(name: string): boolean {
    return this.#errors.has(name);
  }

  list(): Array<readonly [string, string]> {
    return [...this.#errors];
  }
}

/** `_form_validate()`'s checks of a text field that got input or is required: `#required`, then `#maxlength`. */
function checkText(errors: FormErrors, name: string, title: string, value: string, maxLength: number): void {
  if (drupalStrlen(phpTrim(value)) === 0) errors.set(name, `${title} field is required.`);
  const length = drupalStrlen(value);
  if (length > maxLength)
    errors.set(
      name,
      `${title} cannot be longer than ${placeholder(String(maxLength))} characters but is currently ${placeholder(String(length))} characters long.`,
    );
}

/** The password_confirm element's two values as `password_confirm_validate()` reads them, trimmed. */
function passwordPair(input: unknown): { pass1: string; pass2: string } | undefined {
  if (input === undefined) return undefined;
  if (typeof input !== "object" || input === null) return { pass1: "", pass2: "" };
  const values = input as Record<string, unknown>;
  return { pass1: phpTrim(phpString(member(values, "pass1")) ?? ""), pass2: phpTrim(phpString(member(values, "pass2")) ?? "") };
}

/** The status radios (`Blocked`/`Active`): a value PHP reads as the key 0 or 1, else an illegal choice. */
function statusChoice(input: unknown): boolean | "illegal" {
  const key = phpArrayKey(input);
  return key === "1" ? true : key === "0" ? false : "illegal";
}

/**
 * Drupal 7's account form as Services submits it (`user_account_form()` with its validators and the
 * time zone and overlay elements of a standard site), for a registration or an edit: each element's
 * value from the posted `input` or its default (an element the caller may not use keeps its
 * default), the element checks in the form's order, then `user_account_form_validate()` and
 * `user_validate_current_pass()`.
 */
export async function validateAccountForm(input: Record<string, unknown>, context: AccountFormContext): Promise<AccountFormResult> {
  const { mode, account, settings, admin } = context;
  const register = mode === "register";
  const errors = new FormErrors();
  const own = register ? context.callerUid === "0" : account?.uid === context.callerUid;

  // Username: always on a registration; on an edit for admins, or the owner who may change it.
  const nameAccess = register || admin || (own && context.changeOwnName);
  const postedName = nameAccess ? textfieldValue(member(input, "name")) : undefined;
  const name = postedName ?? (register ? "" : (account?.name ?? ""));
  checkText(errors, "name", "Username", name, USERNAME_MAX_LENGTH);

  // The current password (an owner's edit), then the mail and the password pair.
  const postedCurrent = phpString(member(input, "current_pass")) ?? "";
  const postedMail = textfieldValue(member(input, "mail"));
  const mailValue = postedMail ?? (register ? "" : (account?.mail ?? ""));
  checkText(errors, "mail", "E-mail address", mailValue, EMAIL_MAX_LENGTH);

  const passOnForm = !register || !settings.emailVerification || admin;
  const passRequired = register && passOnForm;
  let pass = "";
  if (passOnForm) {
    const pair = passwordPair(member(input, "pass")) ?? { pass1: "", pass2: "" };
    if (pair.pass1.length > 0 || pair.pass2.length > 0) {
      if (pair.pass1 !== pair.pass2) errors.set("pass", "The specified passwords do not match.");
    } else if (passRequired) {
      errors.set("pass", "Password field is required.");
    }
    pass = pair.pass1;
  }

  // Status and roles, for those who may set them.
  let active = register ? (admin ? true : settings.register === "visitors") : (account?.active ?? false);
  const postedStatus = member(input, "status");
  if (admin && postedStatus !== undefined) {
    const choice = statusChoice(postedStatus);
    if (choice === "illegal") errors.set("status", ILLEGAL_CHOICE);
    else active = choice;
  }
  const grantable = Object.keys(context.roles).filter((rid) => rid !== "1" && rid !== "2");
  let roles: string[] | undefined;
  if (context.assignRoles && grantable.length > 0) {
    const posted = checkboxesValue(member(input, "roles"));
    if (posted !== undefined) {
      if (posted.some((rid) => !grantable.includes(rid))) errors.set("roles", ILLEGAL_CHOICE);
      roles = [...new Set(posted)];
    }
  }
  const notify = register && admin && checkboxValue(member(input, "notify")) === 1;

  // The standard profile's extras: the overlay box (weight 4), then the time zone (weight 6).
  let overlay: 0 | 1 | undefined;
  if (!register && context.accountOverlay) overlay = checkboxValue(member(input, "overlay")) ?? (accountOverlayDefault(account) ? 1 : 0);
  const timezone = timeZoneValue(input, context, own, errors);

  // user_account_form_validate(): the name's syntax and owner, then the mail's.
  const exceptUid = register ? "0" : (account?.uid ?? "0");
  if (!errors.has("name")) {
    const problem = userNameError(name);
    if (problem !== undefined) errors.set("name", problem);
    else if (await takenBy(context.users, "name", name, exceptUid)) errors.set("name", `The name ${placeholder(name)} is already taken.`);
  }
  const mail = phpTrim(mailValue);
  if (!errors.has("mail")) {
    if (mail === "" || mail === "0") errors.set("mail", "You must enter an e-mail address.");
    else if (!validEmailAddress(mail)) errors.set("mail", `The e-mail address ${placeholder(mail)} is not valid.`);
    else if (await takenBy(context.users, "mail", mail, exceptUid)) {
      if (context.callerUid === "0") {
        errors.set(
          "mail",
          `The e-mail address ${placeholder(mail)} is already registered. <a href="${context.passwordPath}">Have you forgotten your password?</a>`,
        );
      } else if (register || account?.mail !== mail) {
        // A logged-in user keeping a mail another account shares is left alone.
        errors.set("mail", `The e-mail address ${placeholder(mail)} is already taken.`);
      }
    }
  }

  // user_validate_current_pass(): an owner changing the mail or the password proves it, unless a one-time link let them in.
  if (!register && own && !context.passReset && account !== undefined) {
    for (const [key, title, changed] of [
      ["mail", "E-mail address", mail !== "" && mail !== account.mail],
      ["pass", "Password", pass !== ""],
    ] as const) {
      if (!changed) continue;
      if (phpTrim(postedCurrent) === "" || !(await context.checkPassword(postedCurrent))) {
        errors.set("current_pass", `Your current password is missing or incorrect; it's required to change the ${placeholder(title)}.`);
        errors.set(key, "");
      }
      break;
    }
  }

  return { errors: errors.list(), values: { name, mail, pass, active, roles, notify, timezone, overlay } };
}

function accountOverlayDefault(account: UserRecord | undefined): boolean {
  const data = account?.fields?.data;
  if (typeof data === "object" && data !== null && "overlay" in data) return Boolean((data as { overlay: unknown }).overlay);
  return true;
}

/** The time zone element: fixed on a registration (the site's, or none), a choice of `system_time_zones()` on an edit. */
function timeZoneValue(input: Record<string, unknown>, context: AccountFormContext, own: boolean, errors: FormErrors): string | null | undefined {
  const { settings, mode, account } = context;
  if (!settings.configurableTimezones) return mode === "register" ? settings.defaultTimezone : undefined;
  if (mode === "register" && settings.userDefaultTimezone !== 2) return settings.userDefaultTimezone === 0 ? settings.defaultTimezone : "";
  const current = mode === "register" ? undefined : account?.fields?.timezone;
  const fallback = typeof current === "string" ? current : own ? settings.defaultTimezone : "";
  const posted = member(input, "timezone");
  if (posted === undefined) return mode === "register" ? fallback : undefined;
  const choice = phpArrayKey(posted);
  // Someone else's account offers "- None selected -" too.
  if (choice === undefined || !(context.timeZones.has(choice) || (!own && choice === ""))) {
    errors.set("timezone", ILLEGAL_CHOICE);
    return undefined;
  }
  return choice;
}

/** Whether another account than `exceptUid` holds a name or mail, as Drupal's `LIKE` compares them. */
async function takenBy(users: AccountFormContext["users"], field: "name" | "mail", value: string, exceptUid: string): Promise<boolean> {
  if (field === "name") {
    const holder = await users.findByName(value);
    return holder !== null && holder.uid !== exceptUid;
  }
  const holders = (await users.findByMail?.(value)) ?? [];
  return holders.some((holder) => holder.uid !== exceptUid);
}
