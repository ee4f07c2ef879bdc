/**
 * `services-session-auth/nodemailer`: a `Mailer` for the account calls over nodemailer. `nodemailer`
 * is an optional peer dependency: install it in the app to send through an SMTP URL.
 *
 * @example
 * ```ts
 * import { nodemailerMailer } from "services-session-auth/nodemailer";
 *
 * const mailer = nodemailerMailer(process.env.SMTP_URL ?? "smtp://localhost:25");
 * ```
 *
 * @module
 */
export { nodemailerMailer, type NodemailerTransportLike } from "../mailers/nodemailer.js";
