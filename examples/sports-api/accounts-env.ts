import { USER_CALLS, type AccountsOptions, type Mailer, type UserCall } from "services-session-auth";
import { nodemailerMailer } from "services-session-auth/nodemailer";

/**
 * A {@link Mailer} that prints each mail to the log instead of sending it: the example's default,
 * so a one-time login link can be copied from the console.
 */
export function logMailer(log: (line: string) => void): Mailer {
  return {
    async send(message) {
      log(`--- mail ${message.id} to ${message.to}\nSubject: ${message.subject}\n\n${message.body}--- end of mail`);
    },
  };
}

/**
 * The account calls of the example from the environment (docs/accounts.md):
 * - `ACCOUNT_CALLS`: `all` (the default), `none`, or the calls to serve, comma-separated
 *   (`register,request_new_password,user_pass_reset,retrieve,update`).
 * - `SMTP_URL`: send mail through this server (`smtp://user:pass@host:587`); unset, mail is printed to the log.
 * - `SITE_NAME`, `SITE_MAIL`, `SITE_URL`: the site as its mails name it, and where links point.
 * - `REGISTER`: who may create accounts, `visitors` (the default here: they log in at once),
 *   `approval` (an admin unblocks them) or `admins`.
 *
 * Mailed one-time login links lead to this app's own page, `/reset.html`, where a new password is chosen.
 *
 * Beside Drupal (`SESSION_STORE=drupal7`), `beside` carries the site's own settings and hash salt,
 * which win over `SITE_NAME`, `SITE_MAIL` and `REGISTER`.
 */
export function accountsFromEnv(env: NodeJS.ProcessEnv, log: (line: string) => void, beside: Partial<AccountsOptions> = {}): AccountsOptions | undefined {
  const asked = env.ACCOUNT_CALLS?.trim() || "all";
  if (asked === "none") return undefined;
  let calls: AccountsOptions["calls"] = "all";
  if (asked !== "all") {
    const names = asked.split(",").map((name) => name.trim());
    const unknown = names.filter((name) => !(USER_CALLS as readonly string[]).includes(name));
    if (unknown.length > 0) throw new TypeError(`ACCOUNT_CALLS: unknown call ${unknown.join(", ")} (known: all, none, ${USER_CALLS.join(", ")})`);
    calls = names as UserCall[];
  }
  const register = env.REGISTER?.trim() || "visitors";
  if (register !== "visitors" && register !== "approval" && register !== "admins")
    throw new TypeError(`REGISTER must be visitors, approval or admins, not "${register}"`);
  return {
    calls,
    mailer: env.SMTP_URL === undefined || env.SMTP_URL === "" ? logMailer(log) : nodemailerMailer(env.SMTP_URL),
    settings: {
      siteName: env.SITE_NAME ?? "Sports API",
      siteMail: env.SITE_MAIL ?? "no-reply@sports.example",
      register,
      // Visitors choose their password and are logged in at once, as a demo wants.
      emailVerification: false,
    },
    ...(env.SITE_URL === undefined || env.SITE_URL === "" ? {} : { siteUrl: env.SITE_URL }),
    // Links lead to this app's own page (public/reset.html), which works with Drupal switched off.
    oneTimeLoginUrl: (link) => `${link.siteUrl}/reset.html?uid=${link.uid}&timestamp=${link.timestamp}&hash=${link.hash}`,
    ...beside,
  };
}
