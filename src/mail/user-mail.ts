import { formatMailBody } from "./format.js";
import type { MailMessage } from "./mailer.js";
import { USER_MAIL_DEFAULTS, type UserMailOperation, type UserMailTemplateKey } from "./templates.js";
import { replaceTokens, type MailTokens } from "./tokens.js";

/** The site as its mails show it: Drupal's `site_*` variables, its own texts and which mails it sends. */
export interface MailSite {
  readonly name: string;
  readonly slogan: string;
  /** `site_mail`: the sender, and where applications for an account go. */
  readonly mail: string;
  /** `mail_display_name_site_name`: the site's name in `From`. */
  readonly displayName: boolean;
  readonly templates: Readonly<Partial<Record<UserMailTemplateKey, string>>>;
  readonly notify: Readonly<Partial<Record<UserMailOperation, boolean>>>;
}

/** RFC 2822 "specials" (`MAIL_RFC_2822_SPECIALS`): a display name holding one is quoted. */
const SPECIALS = '()<>[]:;@\\,."';

/** Drupal's `mime_header_encode($text, TRUE)`: ASCII as it is, else one `=?UTF-8?B?…?=` word of at most 47 bytes. */
function mimeHeaderEncode(text: string): string {
  if (!/[^\x20-\x7e]/.test(text)) return text;
  const bytes = Buffer.from(text, "utf8");
  let end = Math.min(47, bytes.length);
  // drupal_truncate_bytes(): never in the middle of a character.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return `=?UTF-8?B?${bytes.subarray(0, end).toString("base64")}?=`;
}

/** Drupal's `drupal_mail_format_display_name()`. */
function displayName(name: string): string {
  const safe = mimeHeaderEncode(name);
  if (![...safe].some((char) => SPECIALS.includes(char))) return safe;
  const quoted = /^"(.+)"$/s.exec(safe);
  const inner = quoted === null ? safe : quoted[1]!.replaceAll("\\\\", "\\").replaceAll('\\"', '"');
  return `"${inner.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** `drupal_mail()`'s headers, in the order Drupal builds them. */
function mailHeaders(site: MailSite): Record<string, string> {
  const headers: Record<string, string> = {
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8; format=flowed; delsp=yes",
    "Content-Transfer-Encoding": "8Bit",
    "X-Mailer": "Drupal",
  };
  if (site.mail !== "") {
    headers["Return-Path"] = site.mail;
    headers.Sender = site.mail;
    headers.From = site.displayName ? `${displayName(site.name)} <${site.mail}>` : site.mail;
  }
  return headers;
}

/** `_user_mail_text()`: the site's own text for a key, else Drupal's, tokens replaced. */
function mailText(key: UserMailTemplateKey, site: MailSite, tokens: MailTokens): string {
  const own = site.templates[key];
  return replaceTokens(own !== undefined && own !== "" ? own : USER_MAIL_DEFAULTS[key], tokens);
}

/** One mail as `drupal_mail('user', $key, …)` builds and formats it. */
function userMail(key: UserMailOperation, to: string, site: MailSite, tokens: MailTokens): MailMessage {
  return {
    id: `user_${key}`,
    key,
    to,
    from: site.mail,
    subject: mailText(`${key}_subject`, site, tokens),
    body: formatMailBody([mailText(`${key}_body`, site, tokens)]),
    headers: mailHeaders(site),
  };
}

/**
 * Drupal's `_user_mail_notify()`: the mails one operation sends to an account (none when the site
 * turned it off; every one but `status_blocked` and `status_canceled` is on by default), and for an
 * application awaiting approval, the notice to the site's address too.
 */
export function userMails(op: UserMailOperation, site: MailSite, tokens: MailTokens): MailMessage[] {
  const notify = site.notify[op] ?? (op !== "status_canceled" && op !== "status_blocked");
  if (!notify) return [];
  const mails = [userMail(op, tokens.user.mail, site, tokens)];
  if (op === "register_pending_approval") mails.push(userMail("register_pending_approval_admin", site.mail, site, tokens));
  return mails;
}
