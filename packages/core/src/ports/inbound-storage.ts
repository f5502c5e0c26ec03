/** An incoming chat-app message: what `phoneNumber` wrote to `alphaName` of an account. */
export interface InboundMessage {
  /** Id of the message in the platform (a UUID); also the webhook's `webhook-id`. */
  idUuid: string;
  accountId: number;
  alphaName: string;
  /** Digits only, normalised like message recipients. */
  phoneNumber: string;
  text: string;
  /** When it was received, ms since the epoch. */
  receivedAt: number;
}

/** `pending` until a delivery attempt succeeds (`delivered`) or the retries run out (`failed`). */
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A webhook delivery to write together with its inbound message. */
export interface NewWebhookDelivery {
  /** The alpha-name's callback URL when the message arrived. */
  url: string;
  /** When the first attempt is due, ms. */
  dueAt: number;
}

/** One inbound message's webhook delivery, as kept in the outbox. */
export interface WebhookDelivery {
  id: number;
  /** The {@link InboundMessage.idUuid} it delivers. */
  inboundId: string;
  accountId: number;
  url: string;
  status: WebhookDeliveryStatus;
  /** Attempts completed so far (a crashed attempt whose lease ran out is not counted). */
  attempts: number;
  lastError: string | null;
  /** When the next attempt is due while `pending`, ms. */
  dueAt: number;
  createdAt: number;
  deliveredAt: number | null;
}

/** A delivery leased to a worker, with the message it carries. */
export interface ClaimedDelivery extends WebhookDelivery {
  inbound: InboundMessage;
}

/** How an attempt ended. */
export type DeliveryOutcome =
  { status: 'delivered' } | { status: 'retry'; dueAt: number; error: string } | { status: 'failed'; error: string };

/**
 * Incoming chat-app messages and the persisted outbox of their webhook deliveries. Passes
 * `runInboundStorageContract` from `@spillway/core/testing`.
 */
export interface InboundStorage {
  /**
   * When `phoneNumber` last wrote to `alphaName` of the account (ms), or null: a chat-app
   * session is open for 24 hours after the recipient's last message.
   */
  lastInboundAt(accountId: number, alphaName: string, phoneNumber: string): Promise<number | null>;
  /**
   * Stores the message and, when given, its webhook delivery, in one transaction: a crash never
   * keeps a message whose callback would be lost. Fails with a `conflict` SpillwayError when the
   * `idUuid` is taken. Answers the stored delivery, or null without one.
   */
  recordInbound(inbound: InboundMessage, delivery: NewWebhookDelivery | null): Promise<WebhookDelivery | null>;
  /** The account's message with its delivery, or null (another account's ids are not found). */
  getInbound(accountId: number, idUuid: string): Promise<{ inbound: InboundMessage; delivery: WebhookDelivery | null } | null>;
  /**
   * Leases up to `limit` pending deliveries due at `now` (oldest due first) for `leaseMs`: a
   * delivery leased and not completed (the worker crashed) is handed out again after the lease.
   */
  claimDueDeliveries(now: number, limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /**
   * Records the end of an attempt: counts it, keeps the error, releases the lease. Ignored for a
   * delivery that is no longer pending (completed by another worker after a lease ran out).
   */
  completeDelivery(id: number, outcome: DeliveryOutcome, at: number): Promise<void>;
}
