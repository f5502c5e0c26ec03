import type { ChannelId } from './channel.ts';

/**
 * A definitive "cannot reach this number on this channel" the engine remembers for a while (the
 * reachability memory): a driver answered not on this channel (no account on the chat app, the
 * bot was blocked, the user never started the bot). Kept per account, because bots are per
 * account and one customer must not learn whom another one messages.
 */
export interface UnreachableEntry {
  accountId: number;
  /** Digits only. */
  phoneNumber: string;
  channel: ChannelId;
  /** The driver's words, e.g. `Bot API 403: Forbidden: bot was blocked by the user`. */
  reason: string;
  /** The driver that answered it, when known. */
  driver: string | null;
  /** The message whose attempt answered it. */
  messageId: number | null;
  /** When it was answered, ms. */
  at: number;
  /** When the memory forgets it, ms. */
  expiresAt: number;
}

/** The key of an entry. */
export interface ReachabilityKey {
  accountId: number;
  phoneNumber: string;
  channel: ChannelId;
}
