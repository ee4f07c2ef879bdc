/**
 * `services-session-auth/nodemailer` delivering the account calls' mail to a real SMTP server on
 * loopback (smtp-server): the message Drupal builds, its headers kept, the envelope from the site.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import type { MailMessage } from "services-session-auth";
import { nodemailerMailer } from "services-session-auth/nodemailer";

interface Received {
  readonly from: string;
  readonly to: string[];
  readonly raw: string;
}

describe("nodemailerMailer", () => {
  const received: Received[] = [];
  let server: SMTPServer;
  let port: number;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const envelope = session.envelope;
          received.push({
            from: envelope.mailFrom === false ? "" : envelope.mailFrom.address,
            to: envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString("utf8"),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const message: MailMessage = {
    id: "user_password_reset",
    key: "password_reset",
    to: "zoë@example.com",
    from: "site@example.com",
    subject: "Replacement login information for Zoë at Sports",
    body: "Zoë,\n\nA request to reset the password for your account has been made at Sports.\n\n--  Sports team\n",
    headers: {
      "MIME-Version": "1.0",
      "Content-Type": "text/plain; charset=UTF-8; format=flowed; delsp=yes",
      "Content-Transfer-Encoding": "8Bit",
      "X-Mailer": "Drupal",
      "Return-Path": "site@example.com",
      Sender: "site@example.com",
      From: "Sports <site@example.com>",
    },
  };

  it("sends Drupal's message through an SMTP URL, headers and format=flowed body as built", async () => {
    await nodemailerMailer(`smtp://127.0.0.1:${port}`).send(message);
    const mail = received.at(-1)!;
    expect(mail.from).toBe("site@example.com");
    expect(mail.to).toEqual(["zoë@example.com"]);
    const split = mail.raw.indexOf("\r\n\r\n");
    const head = mail.raw.slice(0, split);
    const body = mail.raw.slice(split + 4);
    expect(head).toContain("Content-Type: text/plain; charset=UTF-8; format=flowed; delsp=yes");
    expect(head).toContain("From: Sports <site@example.com>");
    expect(head).toContain("X-Mailer: Drupal");
    expect(head).not.toContain("Return-Path");
    const subject = /^Subject: (.*(?:\r\n .*)*)$/m.exec(head)![1]!;
    const decoded = subject
      .split("\r\n ")
      .map((word) => Buffer.from(/^=\?UTF-8\?B\?(.*)\?=$/.exec(word)![1]!, "base64"))
      .reduce((all, part) => Buffer.concat([all, part]), Buffer.alloc(0))
      .toString("utf8");
    expect(decoded, JSON.stringify(subject)).toBe(message.subject);
    expect(body.replace(/\r\n/g, "\n")).toBe(message.body);
  });

  it("takes a transport the app made, and refuses anything else when it is made", async () => {
    const sent: unknown[] = [];
    await nodemailerMailer({ sendMail: async (mail) => void sent.push(mail) }).send(message);
    expect(sent).toEqual([{ raw: expect.stringContaining("Subject: =?UTF-8?B?"), envelope: { from: "site@example.com", to: "zoë@example.com" } }]);
    expect(() => nodemailerMailer("http://example.com")).toThrow(TypeError);
    expect(() => nodemailerMailer({} as never)).toThrow(/must be an smtp:\/\/ or smtps:\/\/ URL, or a nodemailer transport/);
  });
});
