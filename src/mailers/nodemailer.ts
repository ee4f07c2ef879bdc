import { randomBytes } from "node:crypto";
import type { Mailer, MailMessage } from "../mail/mailer.js";
import { loadOptionalPeer } from "../stores/optional-peer.js";

/**
 * The part of a nodemailer transport the adapter uses (`nodemailer.createTransport(…)`): it sends a
 * message given whole (`raw`) to an envelope's addresses.
 */
export interface NodemailerTransportLike {
  sendMail(mail: { readonly raw: string; readonly envelope: { readonly from: string; readonly to: string } }): Promise<unknown>;
}

/** An RFC 2047 encoded-word for a header holding more than printable ASCII (`mime_header_encode()`, in 45-byte pieces). */
function encodedWords(text: string): string {
  if (!/[^\x20-\x7e]/.test(text)) return text;
  const bytes = Buffer.from(text, "utf8");
  const words: string[] = [];
  for (let start = 0; start < bytes.length;) {
    let end = Math.min(start + 45, bytes.length);
    // Never in the middle of a character.
    while (end < bytes.length && end > start + 1 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
    words.push(`=?UTF-8?B?${bytes.subarray(start, end).toString("base64")}?=`);
    start = end;
  }
  return words.join("\r\n ");
}

/** A header value without the line breaks that would start another header. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, " ");
}

/** The message as Drupal's `DefaultMailSystem::mail()` hands it on: its own headers, the subject and body as made, CRLF line ends. */
export function rawMessage(message: MailMessage, now = new Date()): string {
  const at = message.from.lastIndexOf("@");
  const host = at === -1 ? "" : message.from.slice(at + 1);
  const stop = host.search(/[>\s]/);
  const domain = (stop === -1 ? host : host.slice(0, stop)) || "localhost";
  const headers: Array<[string, string]> = [
    ["Date", now.toUTCString().replace("GMT", "+0000")],
    ["Message-ID", `<${randomBytes(12).toString("hex")}@${domain}>`],
    ["To", oneLine(message.to)],
    // Folded between encoded-words, as PHP's mail() gets it from Drupal.
    ["Subject", encodedWords(oneLine(message.subject))],
  ];
  for (const [name, value] of Object.entries(message.headers)) {
    // The receiving server writes Return-Path from the envelope's sender.
    if (name.toLowerCase() !== "return-path") headers.push([name, oneLine(value)]);
  }
  const head = headers.map(([name, value]) => `${name}: ${value}`).join("\r\n");
  return `${head}\r\n\r\n${message.body.replace(/\r?\n/g, "\r\n")}`;
}

/**
 * A {@link Mailer} over nodemailer (an optional peer: `npm install nodemailer`): a transport the app
 * made, or an SMTP URL (`smtp://user:pass@host:587`, `smtps://…`) it makes one of. Each mail goes out
 * as Drupal built it, headers and all (`format=flowed`), the envelope from the site's address.
 *
 * @example
 * ```ts
 * import { nodemailerMailer } from "services-session-auth/nodemailer";
 * const mailer = nodemailerMailer(process.env.SMTP_URL!);
 * createSessionAuthRouter({ ...options, accounts: { calls: ["request_new_password", "user_pass_reset"], mailer } });
 * ```
 * @throws TypeError when given a URL and nodemailer is not installed, or neither a URL nor a transport.
 */
export function nodemailerMailer(transport: NodemailerTransportLike | string): Mailer {
  let sender: NodemailerTransportLike;
  if (typeof transport === "string") {
    if (!/^smtps?:\/\//.test(transport))
      throw new TypeError("nodemailerMailer: invalid options: transport: must be an smtp:// or smtps:// URL, or a nodemailer transport");
    const nodemailer = loadOptionalPeer<{ createTransport(url: string): NodemailerTransportLike }>("nodemailer", "nodemailerMailer");
    sender = nodemailer.createTransport(transport);
  } else if (typeof transport === "object" && transport !== null && typeof transport.sendMail === "function") {
    sender = transport;
  } else {
    throw new TypeError("nodemailerMailer: invalid options: transport: must be an smtp:// or smtps:// URL, or a nodemailer transport");
  }
  return {
    async send(message) {
      await sender.sendMail({ raw: rawMessage(message), envelope: { from: message.from, to: message.to } });
    },
  };
}
