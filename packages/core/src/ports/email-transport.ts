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
 *
 * A rejection whose error has `refused: true` is the server's refusal of this e-mail for good
 * (a 5xx answer to its sender, recipients or content): its message, made of the server's answer,
 * is shown to the caller. Any other rejection means the server could not take it now
 * (unreachable, timed out, a 4xx answer, a login refused): the caller is told only that, since
 * such errors name internal hosts and ports (`connect ECONNREFUSED 10.0.0.5:25`), and the error
 * itself goes to the operator's log.
 */
export interface EmailTransport {
  /** The sender address of every e-mail. */
  readonly from: string;
  send(email: OutgoingEmail): Promise<{ messageId: string; rejected?: string[] | undefined }>;
}
