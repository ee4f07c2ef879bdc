/**
 * One mail as Drupal's `drupal_mail()` builds it, already formatted (a wrapped plain-text body):
 * what a {@link Mailer} sends.
 *
 * @example
 * ```ts
 * const mailer: Mailer = {
 *   async send(message: MailMessage) {
 *     console.log(`to ${message.to}: ${message.subject}\n\n${message.body}`);
 *   },
 * };
 * ```
 */
export interface MailMessage {
  /** `user_<key>`, as Drupal names it (`user_password_reset`). */
  readonly id: string;
  /** What the mail is (`password_reset`, `register_no_approval_required`, `register_pending_approval_admin`, …). */
  readonly key: string;
  /** The recipient's address. */
  readonly to: string;
  /** The site's address (`site_mail`); `""` when it has none. */
  readonly from: string;
  readonly subject: string;
  /** Plain text, wrapped at 77 characters (format=flowed, `delsp=yes`), LF line endings. */
  readonly body: string;
  /** Drupal's headers: MIME-Version, Content-Type, Content-Transfer-Encoding, X-Mailer, and Return-Path, Sender, From when the site has an address. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Sends the account calls' mail (one-time login links, welcome mails, notices): the app's own, or
 * `nodemailerMailer` from `services-session-auth/nodemailer`. A rejection is Drupal's failed send:
 * logged, and the call answers as Drupal does then.
 *
 * @example
 * ```ts
 * import { nodemailerMailer } from "services-session-auth/nodemailer";
 * const mailer: Mailer = nodemailerMailer(process.env.SMTP_URL!); // or a nodemailer transport the app made
 * ```
 */
export interface Mailer {
  /** Sends one mail; resolves once the transport accepted it, rejects when it did not. */
  send(message: MailMessage): Promise<void>;
}
