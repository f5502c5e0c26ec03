import type { Clock } from '../clock.ts';
import type { ChannelId, FailureClass } from '../types/channel.ts';
import type { StepSpec } from '../types/message.ts';

/** One attempt handed to a channel driver. */
export interface OutboundAttempt extends Pick<StepSpec, 'channel' | 'type' | 'from' | 'to' | 'text' | 'messageData'> {
  messageId: number;
  /** The account the message belongs to (per-account drivers, bot bindings). */
  accountId: number;
  step: number;
  /** Retry of this step after throttled or temporary failures: 0 for the first try. */
  try: number;
  /**
   * Stable for this try of this step (`messageId:step:try`): the same value when a send is
   * repeated after a crash. Pass it to providers that deduplicate.
   */
  idempotencyKey: string;
  /** SMS segments of `text` (1 for other channels): what throughput limits count. */
  partsCount: number;
  /** Seconds. */
  ttl: number;
  /** The client's own bot credentials for `messenger` and `chatapp_bot` steps. */
  credentials?: { botToken?: string } | undefined;
}

/** What a driver answers when handed an attempt. Acceptance is never delivery. */
export type SendResult =
  | {
      outcome: 'accepted';
      /**
       * The provider's id of the message (an SMSC message id, a Bot API message id). Stored with
       * the attempt, so that a receipt naming only this id finds its message, even after a restart.
       */
      providerMessageId?: string;
      /** The driver that carried the attempt, when a composite (failover) driver chose among several. */
      driver?: string;
    }
  | {
      outcome: 'failed';
      failure: FailureClass;
      error: string;
      retryAfter?: number;
      /** The provider that answered, when a composite (failover) driver chose among several. */
      driver?: string;
    };

/** Which attempt a receipt is about: its ids, or the provider's id answered at acceptance. */
export type AttemptRef = { messageId: number; step: number } | { providerMessageId: string };

/** A delivery outcome reported by a driver after acceptance. */
export type Receipt = AttemptRef & {
  outcome: 'delivered' | 'read' | 'failed';
  failure?: FailureClass;
  error?: string;
  /**
   * The member of a composite (failover) driver that carried the attempt and reports on it, set by
   * the composite: the receipt is filed and recorded under it, as the attempt's acceptance was
   * (`SendResult.driver`), rather than under the composite the context belongs to.
   */
  driver?: string;
};

/** A message a recipient sent in (an MO SMS, a chat reply), for the alpha-name's callback. */
export interface InboundReport {
  channel: ChannelId;
  /** The recipient's phone number (the sender of this message). */
  phoneNumber: string;
  /**
   * How the provider says `phoneNumber` is written (SMPP `source_addr_ton` 1, 2 and 5):
   * `international` (E.164 digits), `national` (a number of `defaultCountry`, with or without its
   * trunk prefix), `alphanumeric` (a name, kept as it is). Unset: international, or national when
   * it starts with a single 0 (Kannel's `%p`, SMPP TON 0).
   */
  phoneNumberFormat?: 'international' | 'national' | 'alphanumeric';
  /** The country (ISO 3166 alpha-2) a sender in national format is read in: the driver's `country`. */
  defaultCountry?: string;
  /** The alpha-name, short code or bot it was sent to. */
  alphaName: string;
  /** May be empty: a phone can send an empty SMS. */
  text: string;
  /** The account, when the driver knows it (a per-account bind). */
  accountId?: number;
  /** The member of a composite (failover) driver that received it, set by the composite (for logs and metrics). */
  driver?: string;
}

/**
 * A change in a driver's health, told to whoever watches it (`ChannelDriver.watch`) for logs and
 * metrics: a connection lost and back (an SMPP bind), or a failover's circuit breaker opening,
 * half-opening (one trial send) and closing for one of its providers. Told once per change.
 */
export type DriverHealthEvent =
  | {
      type: 'link';
      /** The driver whose connection it is. */
      driver: string;
      /** What the connection is, e.g. `SMPP bind to smsc.example.com:2775`. */
      link: string;
      up: boolean;
      /** Why it went down (the error), or how it came back. */
      reason: string;
    }
  | {
      type: 'breaker';
      /** The failover. */
      driver: string;
      /** Its provider (member) whose breaker changed. */
      provider: string;
      channels: readonly ChannelId[];
      state: 'closed' | 'half-open' | 'open';
      /** Why: the failure that opened it, or what closed it. */
      reason: string;
    };

/**
 * What the engine hands a driver when it starts it (`ChannelDriver.start`): the way back for
 * receipts and inbound messages. What comes back this way (and a send's answer) is kept with U+FFFD
 * in place of any U+0000, which PostgreSQL cannot store, rather than refused.
 */
export interface ChannelContext {
  clock: Clock;
  /**
   * Reports a later outcome of an accepted attempt. Resolves once the receipt is durable (in the
   * engine's inbox or applied in a committed round): acknowledge it to the provider only then.
   */
  report(receipt: Receipt): Promise<void>;
  /**
   * Reports an incoming message; resolves once it is durable. A rejection the driver can tell apart
   * with `inboundRefusedForGood` (the message itself is invalid) is for good: acknowledge the
   * message to the provider and drop it. Any other may be taken later: refuse it, so that the
   * provider keeps it and tries again.
   */
  inbound?(message: InboundReport): Promise<void>;
}

/** An attempt accepted before a restart whose outcome has not arrived yet. */
export interface PendingAttempt extends OutboundAttempt {
  providerMessageId: string | null;
  /** When the channel accepted it, ms. */
  acceptedAt: number;
  /** Already reported delivered: only the read is still awaited. */
  delivered: boolean;
}

/** An HTTP route of a driver (a provider's delivery-report callback), mounted by the HTTP adapter. */
export interface DriverRoute {
  method: 'GET' | 'POST';
  /** Path below `/channels/{driver name}`, e.g. `/dlr`. */
  path: string;
  /** Must make what it reports durable (`ctx.report` resolves) before answering success. */
  handle(request: Request, ctx: ChannelContext): Promise<Response>;
}

/**
 * A channel driver: sends one attempt at a time and reports outcomes. Vendor statuses are mapped
 * to {@link Receipt} outcomes and {@link FailureClass} inside the driver.
 */
export interface ChannelDriver {
  /** Unique among the engine's drivers; recorded with every attempt it carries. */
  readonly name: string;
  /** The channels this driver serves. */
  readonly channels: readonly ChannelId[];
  send(attempt: OutboundAttempt, ctx: ChannelContext): Promise<SendResult>;
  /** Optional: connects (binds) before the first send; the engine calls it once. */
  start?(ctx: ChannelContext): Promise<void>;
  /**
   * Optional: attempts this driver accepted before a restart and whose outcome never arrived.
   * Re-poll the provider, or re-arm whatever reports them; outcomes go through `ctx.report`.
   */
  recover?(attempts: PendingAttempt[], ctx: ChannelContext): Promise<void>;
  /** Optional: whether the recipient has an open session (chat-app `wheterCheckSession`). */
  hasSession?(to: string, channel: ChannelId): Promise<boolean>;
  /** Optional: binds or pings the provider (`spillway drivers check`). */
  check?(): Promise<{ ok: boolean; detail: string }>;
  /** Optional: HTTP callbacks of the provider, mounted under `/channels/{name}`. */
  readonly routes?: readonly DriverRoute[];
  /**
   * Optional: tells `listener` of every change in the driver's health from now on (a bind lost or
   * back, a failover's breaker), for logs and metrics; answers the function that stops telling it.
   */
  watch?(listener: (event: DriverHealthEvent) => void): () => void;
  close?(): Promise<void>;
}
