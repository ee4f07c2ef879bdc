import { z } from "zod";
import type { Mailer } from "../mail/mailer.js";
import { fn, implementing } from "../validate.js";
import type { FloodStore } from "./flood.js";
import type { OneTimeLink } from "./one-time-link.js";
import { settingsSourceSchema, type AccountSettingsSource } from "./settings.js";
import { MAILING_CALLS, USER_CALLS, type UserCall } from "./user-routes.js";

/**
 * The account calls of Services' user resource, beyond the session calls (docs/accounts.md):
 * each is off until named in `calls`, as a Services endpoint enables them one by one.
 *
 * @example
 * ```ts
 * createSessionAuthRouter({
 *   ...options,
 *   accounts: {
 *     calls: ["register", "request_new_password", "user_pass_reset", "retrieve", "update"],
 *     mailer: nodemailerMailer(process.env.SMTP_URL!),
 *     settings: { siteName: "Sports", siteMail: "no-reply@sports.example", register: "visitors" },
 *   },
 * });
 * ```
 */
export interface AccountsOptions {
  /**
   * The calls served, by their names in a Services endpoint's settings (`register`, `retrieve`,
   * `update`, `request_new_password`, `user_pass_reset`, …), or `"all"`. A call that writes needs a
   * user store that writes; without one it is not served, as on a Drupal site that does not enable it.
   */
  calls: readonly UserCall[] | "all";
  /**
   * Sends the calls' mail: one-time login links, welcome mails, notices.
   * @default none: required when a call that sends mail is served
   */
  mailer?: Mailer;
  /**
   * The site settings the calls follow (Drupal's variables: site name and mail, who may register,
   * mail texts, …), or a function that reads them for each call (`drupal7AccountSettings()`).
   * @default Drupal 7.101's defaults
   */
  settings?: AccountSettingsSource;
  /**
   * settings.php's `$drupal_hash_salt`, which one-time login links are signed with: the same as the
   * Drupal site's, so links cross between the two.
   * @default a key derived from `secret`
   */
  hashSalt?: string;
  /**
   * The site's address in links and in a new account's `uri` (Drupal's `$base_url`), such as `https://sports.example.com`.
   * @default `baseUrl`, else the request's scheme and Host, as Drupal does
   */
  siteUrl?: string;
  /**
   * Where the mailed one-time login link points.
   * @default Drupal's page: `<site>/user/reset/<uid>/<timestamp>/<hash>`
   */
  oneTimeLoginUrl?: (link: OneTimeLink) => string;
  /**
   * `request_new_password` for a name or mail no active account has: `"hide"` answers `[true]` and
   * sends nothing, as Drupal 7.101's own form; `"reveal"` answers Services' 406 `Sorry, … is not
   * recognized…`, which tells anyone which accounts exist.
   * @default "hide"
   */
  unknownAccount?: "hide" | "reveal";
  /**
   * Where password requests are counted for flood control (`pass_reset_ip`, `pass_reset_user`), and
   * a used link clears an account's failed logins: `drupal7Flood({ pool })` from `services-session-auth/drupal` to share Drupal's `flood` table.
   * @default in this process's memory
   */
  flood?: FloodStore;
}

/** The defaults of {@link AccountsOptions} that are plain values. */
export const ACCOUNTS_DEFAULTS = Object.freeze({ accounts: Object.freeze({ unknownAccount: "hide" } as const) });

/** The checks of {@link AccountsOptions}. */
export const accountsSchema = z
  .strictObject({
    calls: z.union([z.literal("all"), z.array(z.enum(USER_CALLS as [UserCall, ...UserCall[]])).readonly()]),
    mailer: implementing<Mailer>("Mailer", ["send"]).optional(),
    settings: settingsSourceSchema.optional(),
    hashSalt: z.string().min(1).optional(),
    siteUrl: z
      .string()
      .regex(/^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/, "must be an http(s) URL such as https://sports.example.com")
      .optional(),
    oneTimeLoginUrl: fn<(link: OneTimeLink) => string>("link => string").optional(),
    unknownAccount: z.enum(["hide", "reveal"]).optional(),
    flood: implementing<FloodStore>("FloodStore", ["isAllowed", "register", "clear"]).optional(),
  })
  .optional();

/** {@link AccountsOptions} checked and completed: the calls served, and the keys they sign with. */
export interface AccountsSettings {
  readonly calls: ReadonlySet<UserCall>;
  readonly mailer: Mailer | undefined;
  readonly settings: AccountSettingsSource | undefined;
  readonly hashSalt: string;
  readonly siteUrl: string | undefined;
  readonly oneTimeLoginUrl: ((link: OneTimeLink) => string) | undefined;
  readonly unknownAccount: "hide" | "reveal";
  readonly flood: FloodStore | undefined;
  /** The key of the pass-reset tokens, derived from the secret. */
  readonly passResetKey: Buffer;
}

/**
 * Completes checked {@link AccountsOptions}; `keyFor` derives a key from the secret for a purpose.
 * @throws TypeError when a call that sends mail is served without a mailer.
 */
export function accountsSettings(
  input: AccountsOptions | undefined,
  keyFor: (purpose: "one-time links" | "pass-reset tokens") => Buffer,
  factory: string,
): AccountsSettings {
  const calls = new Set<UserCall>(input === undefined ? [] : input.calls === "all" ? USER_CALLS : input.calls);
  const mailing = [...calls].filter((call) => MAILING_CALLS.has(call));
  if (input?.mailer === undefined && mailing.length > 0) {
    throw new TypeError(
      `${factory}: invalid options: accounts.mailer: is required by ${mailing.join(", ")} (they send mail): give a Mailer, e.g. nodemailerMailer(transport)`,
    );
  }
  return Object.freeze({
    calls,
    mailer: input?.mailer,
    settings: input?.settings,
    hashSalt: input?.hashSalt ?? keyFor("one-time links").toString("base64url"),
    siteUrl: input?.siteUrl,
    oneTimeLoginUrl: input?.oneTimeLoginUrl,
    unknownAccount: input?.unknownAccount ?? ACCOUNTS_DEFAULTS.accounts.unknownAccount,
    flood: input?.flood,
    passResetKey: keyFor("pass-reset tokens"),
  });
}
