import type { ChannelId } from './channel.ts';

/** Requests per second and burst of one rate-limit category. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** The rate limit an endpoint counts against: `messaging` (sends) or `data` (reads). */
export type RateCategory = 'messaging' | 'data';

/** The fewest characters an account's password has (accounts, sub-clients, the server's bootstrap account). */
export const MIN_PASSWORD_LENGTH = 8;

/** A client account: its login, name, wallet currency and its own rate limits. */
export interface Account {
  id: number;
  login: string;
  name: string;
  currency: string;
  /** Per-account overrides of the default rate limits. */
  rateLimits: Partial<Record<RateCategory, RateLimit>>;
  createdAt: number;
}

/** A sender label an account may send from, with the channels it is approved on. */
export interface AlphaName {
  accountId: number;
  name: string;
  channels: ChannelId[];
  callbackUrl: string | null;
}

/** An API key of an account as listed: its label and first characters, never the clear key. */
export interface ApiKey {
  id: number;
  accountId: number;
  label: string;
  /** First characters of the key, to recognise it in listings. */
  prefix: string;
  createdAt: number;
}

/** Amounts are integer micro-units of the account currency (1 EUR = 1_000_000). */
export type WalletTransactionKind = 'topup' | 'charge' | 'refund' | 'adjustment';

/** One movement of an account's wallet (top-up, charge, refund or adjustment), in currency units. */
export interface WalletTransaction {
  id: number;
  accountId: number;
  kind: WalletTransactionKind;
  /** Signed micro-units: negative for charges. */
  amount: number;
  balanceAfter: number;
  messageId: number | null;
  description: string;
  /**
   * The other account of a move between two (a transfer between a parent and its sub-client, a
   * sub-client's opening balance): each of its two rows names the other's account. Null otherwise.
   */
  counterpartAccountId: number | null;
  createdAt: number;
}
