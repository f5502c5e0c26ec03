/** One e-mail as handed to the transport. */
export interface OutgoingEmail {
  from: string;
  to: string[];
  subject: string;
  text?: string | undefined;
  html?: string | undefined;
  replyTo?: string | undefined;
}

/**
 * Where e-mail goes: an SMTP server in the reference server (nodemailer, `SPILLWAY_SMTP_URL`).
 * Resolves with the server's Message-ID once it accepted the message (for at least one
 * recipient: `rejected` names those it refused); rejects otherwise.
 */
export interface EmailTransport {
  /** The sender address of every e-mail. */
  readonly from: string;
  send(email: OutgoingEmail): Promise<{ messageId: string; rejected?: string[] | undefined }>;
}
