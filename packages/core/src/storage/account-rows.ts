import type { Account, AlphaName, ApiKey, WalletTransaction, WalletTransactionKind } from '../types/account.ts';
import type { ChannelId } from '../types/channel.ts';

// Rows of the SQL adapters' account tables, JSON columns already parsed (see message-rows.ts).

/** An `accounts` row with `rate_limits` parsed. */
export interface AccountRow {
  id: number;
  login: string;
  name: string;
  password_hash: string;
  currency: string;
  rate_limits: Account['rateLimits'];
  balance: number;
  created_at: number;
}

/** Maps a parsed `accounts` row to the account (the password hash and balance stay out). */
export function accountFromRow(row: AccountRow): Account {
  return { id: row.id, login: row.login, name: row.name, currency: row.currency, rateLimits: row.rate_limits, createdAt: row.created_at };
}

/** An `api_keys` row, without the key hash. */
export interface ApiKeyRow {
  id: number;
  account_id: number;
  prefix: string;
  label: string;
  created_at: number;
}

/** Maps an `api_keys` row to the API key's public record. */
export function apiKeyFromRow(row: ApiKeyRow): ApiKey {
  return { id: row.id, accountId: row.account_id, label: row.label, prefix: row.prefix, createdAt: row.created_at };
}

/** An `alpha_names` row with `channels` parsed. */
export interface AlphaNameRow {
  account_id: number;
  name: string;
  channels: ChannelId[];
  callback_url: string | null;
}

/** Maps a parsed `alpha_names` row to the alpha-name. */
export function alphaNameFromRow(row: AlphaNameRow): AlphaName {
  return { accountId: row.account_id, name: row.name, channels: row.channels, callbackUrl: row.callback_url };
}

/** A `wallet_transactions` row. */
export interface WalletTransactionRow {
  id: number;
  account_id: number;
  kind: string;
  amount: number;
  balance_after: number;
  message_id: number | null;
  description: string;
  /** Null in the rows of one account, and in those written before the column. */
  counterpart_account_id: number | null;
  created_at: number;
}

/** Maps a `wallet_transactions` row to the wallet transaction. */
export function walletTransactionFromRow(row: WalletTransactionRow): WalletTransaction {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind as WalletTransactionKind,
    amount: row.amount,
    balanceAfter: row.balance_after,
    messageId: row.message_id,
    description: row.description,
    counterpartAccountId: row.counterpart_account_id,
    createdAt: row.created_at,
  };
}
