import type { EmailTransport } from '@spillway/core/adapter';
import nodemailer from 'nodemailer';

/** Options of {@link createSmtpTransport}. */
export interface SmtpTransportOptions {
  /** `smtp://user:pass@host:587` or `smtps://...` (nodemailer's connection URL, options in its query). */
  url: string;
  /** The sender address of every e-mail. */
  from: string;
}

/** What nodemailer's errors carry besides the message (which names the server's host and port). */
interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
}

/**
 * nodemailer's error as the port wants it (`EmailTransport`): a 5xx answer to the envelope
 * (`EENVELOPE`: sender or every recipient) or to the content (`EMESSAGE`) is a refusal of this
 * e-mail for good, told with the server's answer; anything else (no connection, a timeout, a 4xx,
 * a login refused) stays as it is, the server being unavailable.
 */
function classified(error: unknown): unknown {
  const { code, responseCode, response } = (typeof error === 'object' && error !== null ? error : {}) as SmtpError;
  if ((code === 'EENVELOPE' || code === 'EMESSAGE') && responseCode !== undefined && responseCode >= 500 && responseCode < 600) {
    const answer = (response ?? String(responseCode)).replace(/\s+/g, ' ').trim();
    return Object.assign(new Error(`the SMTP server refused the e-mail: ${answer}`), { refused: true as const });
  }
  return error;
}

/**
 * The e-mail transport over SMTP, with nodemailer: `POST /api/email/send` hands each e-mail to
 * the server named by the URL and records the Message-ID it answers.
 *
 * @example createSmtpTransport({ url: process.env.SPILLWAY_SMTP_URL!, from: 'no-reply@example.com' })
 */
export function createSmtpTransport(options: SmtpTransportOptions): EmailTransport & { close(): void } {
  // Timeouts may be tuned in the URL's query (`?connectionTimeout=5000&socketTimeout=10000`).
  const transporter = nodemailer.createTransport(options.url);
  return {
    from: options.from,
    async send(email) {
      const info = await transporter
        .sendMail({
          from: email.from,
          to: email.to,
          subject: email.subject,
          ...(email.text !== undefined ? { text: email.text } : {}),
          ...(email.html !== undefined ? { html: email.html } : {}),
          ...(email.replyTo ? { replyTo: email.replyTo } : {}),
        })
        .catch((error: unknown) => {
          throw classified(error);
        });
      // Accepted for some recipients, refused for others: the record names the refused.
      const rejected = ((info.rejected ?? []) as Array<string | { address: string }>).map((r) => (typeof r === 'string' ? r : r.address));
      return { messageId: String(info.messageId), ...(rejected.length > 0 ? { rejected } : {}) };
    },
    close: () => transporter.close(),
  };
}
