import { z } from "zod";
import { parseOptions } from "../validate.js";
import type { AccountSettings, CancelMethod, RegisterPolicy } from "../accounts/settings.js";
import type { UserMailOperation, UserMailTemplateKey } from "../mail/templates.js";
import { databaseOptionFields, drupal7Database, type Drupal7DatabaseOptions } from "./database.js";
import type { PhpJson, UNPARSEABLE } from "./php-unserialize.js";
import { phpTruthy, readVariables } from "./variables.js";

const OPERATIONS: readonly UserMailOperation[] = [
  "register_admin_created",
  "register_no_approval_required",
  "register_pending_approval",
  "register_pending_approval_admin",
  "password_reset",
  "status_activated",
  "status_blocked",
  "status_canceled",
  "cancel_confirm",
];
const TEMPLATE_KEYS: readonly UserMailTemplateKey[] = OPERATIONS.flatMap((op) => [`${op}_subject`, `${op}_body`] as const);

/** The variables read, by their Drupal names. */
const NAMES = [
  "site_name",
  "site_mail",
  "site_slogan",
  "user_register",
  "user_email_verification",
  "user_password_reset_timeout",
  "user_cancel_method",
  "user_mail_status_canceled_notify",
  "services_user_index_page_size",
  "date_default_timezone",
  "configurable_timezones",
  "user_default_timezone",
  "user_pictures",
  "clean_url",
  "user_pass_reset_ip_limit",
  "user_pass_reset_ip_window",
  "user_pass_reset_user_limit",
  "user_pass_reset_user_window",
  "user_failed_login_identifier_uid_only",
  ...TEMPLATE_KEYS.map((key) => `user_mail_${key}`),
  ...OPERATIONS.map((op) => `user_mail_${op}_notify`),
];

const optionsSchema = z.strictObject({
  ...databaseOptionFields,
  mailDisplayName: z.boolean().optional(),
});

/** Options of {@link drupal7AccountSettings}. */
export interface Drupal7AccountSettingsOptions extends Drupal7DatabaseOptions {
  /**
   * settings.php's `$conf['mail_display_name_site_name']`, which the database does not hold.
   * @default true, as Drupal 7's default.settings.php sets it
   */
  mailDisplayName?: boolean;
}

type Value = PhpJson | typeof UNPARSEABLE | undefined;

function text(value: Value): string | undefined {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;
}

function whole(value: Value): number | undefined {
  const number = typeof value === "number" ? value : typeof value === "string" && /^\d{1,10}$/.test(value.trim()) ? Number(value) : undefined;
  return number !== undefined && Number.isInteger(number) && number > 0 ? number : undefined;
}

const POLICIES: readonly RegisterPolicy[] = ["admins", "visitors", "approval"];
const CANCEL_METHODS: readonly string[] = ["user_cancel_block", "user_cancel_block_unpublish", "user_cancel_reassign", "user_cancel_delete"];

/**
 * The account calls' settings read from a Drupal 7 site's `variable` table each time they are asked
 * for (`accounts.settings`), so the app follows the site as its admins change it: site name and
 * mail, who may register, e-mail verification, the mail texts and which mails go out, the link's
 * lifetime, the cancel method, the flood limits; whether the overlay module is on, and the text
 * format a new account's signature gets. A variable the site never set keeps Drupal's default.
 *
 * @example
 * ```ts
 * const mailer = nodemailerMailer(process.env.SMTP_URL!);
 * createSessionAuthRouter({ ...options, accounts: { calls: "all", mailer, settings: drupal7AccountSettings({ pool }) } });
 * ```
 * @throws TypeError when an option is invalid.
 */
export function drupal7AccountSettings(options: Drupal7AccountSettingsOptions): () => Promise<Partial<AccountSettings>> {
  const parsed = parseOptions(optionsSchema, options, "drupal7AccountSettings");
  const db = drupal7Database(parsed, "drupal7AccountSettings");
  const prefix = parsed.prefix ?? "";
  return async () => {
    const variables = await readVariables(db, NAMES);
    const get = (name: string): Value => variables.get(name);
    const settings: Record<string, unknown> = { mailDisplayName: parsed.mailDisplayName ?? true };
    const put = (key: keyof AccountSettings, value: unknown) => {
      if (value !== undefined) settings[key] = value;
    };
    put("siteName", text(get("site_name")));
    put("siteMail", text(get("site_mail")));
    put("siteSlogan", text(get("site_slogan")));
    const register = whole(get("user_register")) ?? (text(get("user_register")) === "0" || get("user_register") === 0 ? 0 : undefined);
    if (register !== undefined && register <= 2) put("register", POLICIES[register]);
    if (get("user_email_verification") !== undefined) put("emailVerification", phpTruthy(get("user_email_verification")));
    put("passwordResetTimeout", whole(get("user_password_reset_timeout")));
    const method = text(get("user_cancel_method"));
    if (method !== undefined && CANCEL_METHODS.includes(method)) put("cancelMethod", method as CancelMethod);
    if (get("user_mail_status_canceled_notify") !== undefined) put("cancelNotify", phpTruthy(get("user_mail_status_canceled_notify")));
    put("indexPageSize", whole(get("services_user_index_page_size")));
    put("defaultTimezone", text(get("date_default_timezone")));
    if (get("configurable_timezones") !== undefined) put("configurableTimezones", phpTruthy(get("configurable_timezones")));
    const zone = text(get("user_default_timezone"));
    if (zone === "0" || zone === "1" || zone === "2") put("userDefaultTimezone", Number(zone));
    if (get("user_pictures") !== undefined) put("userPictures", phpTruthy(get("user_pictures")));
    if (get("clean_url") !== undefined) put("cleanUrls", phpTruthy(get("clean_url")));
    put("passResetIpLimit", whole(get("user_pass_reset_ip_limit")));
    put("passResetIpWindow", whole(get("user_pass_reset_ip_window")));
    put("passResetUserLimit", whole(get("user_pass_reset_user_limit")));
    put("passResetUserWindow", whole(get("user_pass_reset_user_window")));
    if (get("user_failed_login_identifier_uid_only") !== undefined)
      put("failedLoginIdentifierUidOnly", phpTruthy(get("user_failed_login_identifier_uid_only")));
    const templates: Partial<Record<UserMailTemplateKey, string>> = {};
    for (const key of TEMPLATE_KEYS) {
      const value = text(get(`user_mail_${key}`));
      if (value !== undefined && value !== "") templates[key] = value;
    }
    settings.mailTemplates = templates;
    const notify: Partial<Record<UserMailOperation, boolean>> = {};
    for (const op of OPERATIONS) if (get(`user_mail_${op}_notify`) !== undefined) notify[op] = phpTruthy(get(`user_mail_${op}_notify`));
    settings.mailNotify = notify;

    const [overlay] = await db.select<{ status: unknown }>(`SELECT status FROM ${prefix}system WHERE name = ? AND type = ?`, ["overlay", "module"]);
    settings.overlay = Number(overlay?.status) === 1;
    const [format] = await db.select<{ format: unknown }>(`SELECT format FROM ${prefix}filter_format WHERE status = 1 ORDER BY weight, format`, []);
    if (format?.format !== undefined && format.format !== null) settings.signatureFormat = String(format.format);
    return settings as Partial<AccountSettings>;
  };
}
