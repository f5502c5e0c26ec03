import type { ChannelId } from './channel.ts';

/** What a sender application asks for: an alpha-name, or one of the account's own bots. */
export type SenderKind = 'alpha_name' | 'chatapp_bot' | 'messenger_bot';

/**
 * `pending` until an operator approves or rejects it (with a reason); an approved alpha-name
 * application becomes `revoked` (with a reason) when an operator revokes the name.
 */
export type ApplicationStatus = 'pending' | 'approved' | 'rejected' | 'revoked';

/**
 * An application for a sender: an alpha-name (`POST /api/AlphaName/sms/application`) or a bot
 * (`POST /bots/application`). Approving an alpha-name application approves the name on its
 * channels, so that the account can send from it.
 */
export interface SenderApplication {
  id: number;
  accountId: number;
  kind: SenderKind;
  /** The alpha-name, or the bot's name. */
  name: string;
  channels: ChannelId[];
  /** What the applicant told about it: company, purpose, sample text, bot link... */
  details: Record<string, unknown>;
  status: ApplicationStatus;
  /** Why it was rejected or revoked (or a note of the approver). */
  reason: string | null;
  createdAt: number;
  /** When it was last decided: approved, rejected or, later, revoked. */
  decidedAt: number | null;
}

/** How an account came to be linked to another. */
export type ClientLinkKind = 'sub' | 'referral';

/**
 * A client account linked to the account that created it: a sub-client (`provision`, managed and
 * funded by its parent) or a referred client (`POST /api/client/{referralId}`).
 */
export interface ClientLink {
  childId: number;
  parentId: number;
  kind: ClientLinkKind;
  /** The referral's UUID (referred clients); null for sub-clients. */
  referralId: string | null;
  createdAt: number;
}

/** Which way money moves between a parent and its sub-client. */
export type ClientTransferDirection = 'to_client' | 'from_client';

/**
 * A move of money between a parent and its sub-client made under the parent's idempotency key
 * (`POST /api/client/clients/{clientId}/transfer` with `Idempotency-Key`), as recorded in the
 * transaction that moved it: a retry with the same key answers it instead of moving again.
 */
export interface ClientTransferRecord {
  /** The parent: the account that asked, whose key it is. */
  accountId: number;
  idempotencyKey: string;
  /** The sub-client. */
  clientId: number;
  direction: ClientTransferDirection;
  /** Micro-units moved. */
  amount: number;
  /** The parent's balance after the move, micro-units. */
  balance: number;
  /** The sub-client's balance after the move, micro-units. */
  clientBalance: number;
  createdAt: number;
}

/**
 * A sub-client created under its parent's idempotency key (`POST /api/client/provision` with
 * `Idempotency-Key`), as recorded in the transaction that created it: a retry with the same key
 * answers this client instead of creating another. Its clear API key is never recorded.
 */
export interface ClientProvisionRecord {
  /** The parent: the account that asked, whose key it is. */
  accountId: number;
  idempotencyKey: string;
  /** The sub-client. */
  clientId: number;
  login: string;
  name: string;
  /** Opening balance moved from the parent, micro-units (0 for none). */
  balance: number;
  /** The alpha-names shared with it, on their channels then. */
  alphaNames: Array<{ name: string; channels: ChannelId[] }>;
  /** The id of the API key made with it (its clear key was answered once); null without one. */
  keyId: number | null;
  createdAt: number;
}

/** An organization (legal entity) of an account. */
export interface Organization {
  id: number;
  accountId: number;
  name: string;
  /** Tax identification number; unique per account. */
  taxId: string;
  address: string | null;
  email: string | null;
  phone: string | null;
  createdAt: number;
}

/** A channel attempt of a message as the statistics read it. */
export interface StepActivity {
  messageId: number;
  step: number;
  channel: ChannelId;
  type: string;
  from: string;
  /** The recipient, digits. */
  to: string;
  partsCount: number;
  /** Price of the attempt, micro-units. */
  cost: number;
  createdAt: number;
  /** History statuses of the attempt, in order (`Sent`, `Delivered`, `Failed`, ...). */
  statuses: string[];
  /**
   * The bot of an attempt on a bot channel: a messenger step's `messengerMessage.botName`, '' for
   * the account's only bot (and for the chat-app bot, which has no name); null on other channels.
   */
  botName: string | null;
}

/** The messenger chat of a phone number for one of the account's bots (`PUT /chat_bot/bot_receiver/phone`). */
export interface BotReceiver {
  accountId: number;
  /** The bot's name ('' for the account's only bot). */
  botName: string;
  /** Digits only. */
  phoneNumber: string;
  /** The messenger's chat id of that number with the bot. */
  chatId: string;
  updatedAt: number;
}

/** Data an account keeps per phone number (`/api/external-data/user-bonuses`), for message variables. */
export interface PhoneData {
  accountId: number;
  /** Digits only. */
  phoneNumber: string;
  /** A JSON object; its top-level members are the variables (`%bonus%`). */
  data: Record<string, unknown>;
  updatedAt: number;
}

/** `pending` while the SMTP server is being handed the message. */
export type EmailStatus = 'pending' | 'sent' | 'failed';

/** An e-mail sent through `POST /api/email/send`. */
export interface EmailRecord {
  id: number;
  accountId: number;
  from: string;
  to: string[];
  subject: string;
  status: EmailStatus;
  /** The SMTP server's Message-ID once sent. */
  messageId: string | null;
  error: string | null;
  createdAt: number;
  sentAt: number | null;
}

/**
 * An account's connection to a social messaging platform (a WhatsApp-Cloud-style business
 * number or page), made by the OAuth code exchange; its token is kept encrypted.
 */
export interface SocialConnection {
  accountId: number;
  /** The alpha-name whose callback receives the platform's incoming messages. */
  alphaName: string;
  /** The platform's id of the number or page (`phone_number_id`), as its webhooks name it. */
  externalId: string;
  /** The access token, encrypted by the HTTP layer (AES-256-GCM, `v1.<iv>.<ciphertext>`). */
  tokenCiphertext: string;
  expiresAt: number | null;
  updatedAt: number;
}

/** A pending OAuth authorization: `state` ties the platform's redirect back to the account. */
export interface OAuthState {
  state: string;
  accountId: number;
  alphaName: string;
  externalId: string;
  expiresAt: number;
}
