import { z } from "zod";
import type { UserMailOperation, UserMailTemplateKey } from "../mail/templates.js";

/** Drupal's `user_register`: who may create accounts (`0` admins only, `1` visitors, `2` visitors with an admin's approval). */
export type RegisterPolicy = "admins" | "visitors" | "approval";

/** Drupal's `user_cancel_method`: what `cancel` does to an account. */
export type CancelMethod = "user_cancel_block" | "user_cancel_block_unpublish" | "user_cancel_reassign" | "user_cancel_delete";

/**
 * The site settings the account calls follow: Drupal's variables by another name, with Drupal
 * 7.101's defaults. Beside Drupal, `drupal7AccountSettings()` reads them from its `variable` table.
 */
export interface AccountSettings {
  /** `site_name`, in mails. @default "Drupal" */
  readonly siteName: string;
  /** `site_mail`: mails come from it, and applications for an account go to it. @default "" */
  readonly siteMail: string;
  /** `site_slogan`, for `[site:slogan]`. @default "" */
  readonly siteSlogan: string;
  /** `mail_display_name_site_name` (settings.php): `From: "<site name>" <site mail>`. @default true, as Drupal 7's default.settings.php sets it */
  readonly mailDisplayName: boolean;
  /** `user_register`. @default "approval" */
  readonly register: RegisterPolicy;
  /** `user_email_verification`: visitors get a one-time link instead of choosing a password. @default true */
  readonly emailVerification: boolean;
  /** `user_password_reset_timeout`, in seconds. @default 86400 */
  readonly passwordResetTimeout: number;
  /** `user_cancel_method`. @default "user_cancel_block" */
  readonly cancelMethod: CancelMethod;
  /** `user_mail_status_canceled_notify`: `cancel` mails the account. @default false */
  readonly cancelNotify: boolean;
  /** `user_mail_<op>_subject` / `_body`: a site's own texts. @default Drupal's texts */
  readonly mailTemplates: Readonly<Partial<Record<UserMailTemplateKey, string>>>;
  /** `user_mail_<op>_notify`. @default every mail but `status_blocked` and `status_canceled` */
  readonly mailNotify: Readonly<Partial<Record<UserMailOperation, boolean>>>;
  /** `services_user_index_page_size`: the longest page of the user index. @default 20 */
  readonly indexPageSize: number;
  /** `date_default_timezone`: the time zone a new account gets. @default "UTC" */
  readonly defaultTimezone: string;
  /** `configurable_timezones`: accounts may set their time zone. @default true */
  readonly configurableTimezones: boolean;
  /** `user_default_timezone`: `0` a new account gets the site's, `1` none, `2` its own choice (not served: the site's). @default 0 */
  readonly userDefaultTimezone: 0 | 1 | 2;
  /** `user_pictures`: a user object's `picture` is a file or null, not the fid. @default false */
  readonly userPictures: boolean;
  /** `clean_url`: links are `/user/reset/…`, else `/?q=user/reset/…`. @default true */
  readonly cleanUrls: boolean;
  /** The text format a new account's `signature_format` gets (the registering user's default format). @default "filtered_html" */
  readonly signatureFormat: string | null;
  /** Whether Drupal's overlay module is on: saving an account that may use it stores `data.overlay`. @default false */
  readonly overlay: boolean;
  /** `user_pass_reset_ip_limit` and `_window`: password requests per address. @default 50 in 3600 s */
  readonly passResetIpLimit: number;
  readonly passResetIpWindow: number;
  /** `user_pass_reset_user_limit` and `_window`: password requests per account. @default 5 in 21600 s */
  readonly passResetUserLimit: number;
  readonly passResetUserWindow: number;
  /** `user_failed_login_identifier_uid_only`: whose failed logins a used one-time link clears. @default false */
  readonly failedLoginIdentifierUidOnly: boolean;
}

/** Drupal 7.101's values of {@link AccountSettings}. */
export const ACCOUNT_SETTINGS_DEFAULTS: AccountSettings = Object.freeze({
  siteName: "Drupal",
  siteMail: "",
  siteSlogan: "",
  mailDisplayName: true,
  register: "approval",
  emailVerification: true,
  passwordResetTimeout: 86_400,
  cancelMethod: "user_cancel_block",
  cancelNotify: false,
  mailTemplates: Object.freeze({}),
  mailNotify: Object.freeze({}),
  indexPageSize: 20,
  defaultTimezone: "UTC",
  configurableTimezones: true,
  userDefaultTimezone: 0,
  userPictures: false,
  cleanUrls: true,
  signatureFormat: "filtered_html",
  overlay: false,
  passResetIpLimit: 50,
  passResetIpWindow: 3600,
  passResetUserLimit: 5,
  passResetUserWindow: 21_600,
  failedLoginIdentifierUidOnly: false,
});

/** Where the calls read their settings: fixed, or read again for each call (a Drupal site's `variable` table). */
export type AccountSettingsSource = Partial<AccountSettings> | (() => Promise<Partial<AccountSettings>>);

/** The settings for one call: the source's over Drupal's defaults. */
export async function settingsFrom(source: AccountSettingsSource | undefined): Promise<AccountSettings> {
  if (source === undefined) return ACCOUNT_SETTINGS_DEFAULTS;
  const given = typeof source === "function" ? await source() : source;
  return { ...ACCOUNT_SETTINGS_DEFAULTS, ...given };
}

const seconds = z.number().int().positive();
const settingsSchema = z.strictObject({
  siteName: z.string().optional(),
  siteMail: z.string().optional(),
  siteSlogan: z.string().optional(),
  mailDisplayName: z.boolean().optional(),
  register: z.enum(["admins", "visitors", "approval"]).optional(),
  emailVerification: z.boolean().optional(),
  passwordResetTimeout: seconds.optional(),
  cancelMethod: z.enum(["user_cancel_block", "user_cancel_block_unpublish", "user_cancel_reassign", "user_cancel_delete"]).optional(),
  cancelNotify: z.boolean().optional(),
  mailTemplates: z.record(z.string(), z.string()).optional(),
  mailNotify: z.record(z.string(), z.boolean()).optional(),
  indexPageSize: seconds.optional(),
  defaultTimezone: z.string().optional(),
  configurableTimezones: z.boolean().optional(),
  userDefaultTimezone: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  userPictures: z.boolean().optional(),
  cleanUrls: z.boolean().optional(),
  signatureFormat: z.string().nullable().optional(),
  overlay: z.boolean().optional(),
  passResetIpLimit: seconds.optional(),
  passResetIpWindow: seconds.optional(),
  passResetUserLimit: seconds.optional(),
  passResetUserWindow: seconds.optional(),
  failedLoginIdentifierUidOnly: z.boolean().optional(),
});

/** The check of `accounts.settings`: a function, or settings whose every key and value is one of {@link AccountSettings}. */
export const settingsSourceSchema = z.custom<AccountSettingsSource>().superRefine((value, context) => {
  if (typeof value === "function") return;
  const parsed = settingsSchema.safeParse(value);
  if (!parsed.success) for (const issue of parsed.error.issues) context.addIssue({ code: "custom", message: issue.message, path: issue.path });
});
