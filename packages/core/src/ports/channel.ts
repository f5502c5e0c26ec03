import type { Clock } from '../clock.ts';
import type { ChannelId, FailureClass } from '../types/channel.ts';
import type { StepSpec } from '../types/message.ts';

/** One attempt handed to a channel driver. */
export interface OutboundAttempt extends Pick<StepSpec, 'channel' | 'type' | 'from' | 'to' | 'text' | 'messageData'> {
  messageId: number;
  step: number;
  /** Seconds. */
  ttl: number;
  /** The client's own bot credentials for `messenger` and `chatapp_bot` steps. */
  credentials?: { botToken?: string } | undefined;
}

/** What a driver answers when handed an attempt. Acceptance is never delivery. */
export type SendResult =
  { outcome: 'accepted'; providerMessageId?: string } | { outcome: 'failed'; failure: FailureClass; error: string; retryAfter?: number };

/** A delivery outcome reported by a driver after acceptance. */
export interface Receipt {
  messageId: number;
  step: number;
  outcome: 'delivered' | 'read' | 'failed';
  failure?: FailureClass;
  error?: string;
}

export interface ChannelContext {
  clock: Clock;
  /** Reports a later outcome of an accepted attempt. */
  report(receipt: Receipt): void;
}

/**
 * A channel driver: sends one attempt at a time and reports outcomes. Vendor statuses are mapped
 * to {@link Receipt} outcomes and {@link FailureClass} inside the driver.
 */
export interface ChannelDriver {
  readonly name: string;
  /** The channels this driver serves. */
  readonly channels: readonly ChannelId[];
  send(attempt: OutboundAttempt, ctx: ChannelContext): Promise<SendResult>;
  /** Optional: whether the recipient has an open session (chat-app `wheterCheckSession`). */
  hasSession?(to: string, channel: ChannelId): Promise<boolean>;
  close?(): Promise<void>;
}
