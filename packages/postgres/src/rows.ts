import type {
  Account,
  AlphaName,
  ApiKey,
  ChannelId,
  DeliveryStatus,
  Effect,
  EffectKind,
  HistoryEntry,
  HistoryStatus,
  MachineEvent,
  MessageKind,
  StoredMessage,
  WalletTransaction,
  WalletTransactionKind,
} from '@spillway/core';

// Row shapes as node-postgres returns them (BIGINT parsed to numbers, JSONB parsed to values),
// and their mapping to the domain records.

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

export function toAccount(row: AccountRow): Account {
  return { id: row.id, login: row.login, name: row.name, currency: row.currency, rateLimits: row.rate_limits, createdAt: row.created_at };
}

export interface ApiKeyRow {
  id: number;
  account_id: number;
  prefix: string;
  label: string;
  created_at: number;
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return { id: row.id, accountId: row.account_id, label: row.label, prefix: row.prefix, createdAt: row.created_at };
}

export interface AlphaNameRow {
  account_id: number;
  name: string;
  channels: ChannelId[];
  callback_url: string | null;
}

export function toAlphaName(row: AlphaNameRow): AlphaName {
  return { accountId: row.account_id, name: row.name, channels: row.channels, callbackUrl: row.callback_url };
}

export interface WalletTransactionRow {
  id: number;
  account_id: number;
  kind: string;
  amount: number;
  balance_after: number;
  message_id: number | null;
  description: string;
  created_at: number;
}

export function toWalletTransaction(row: WalletTransactionRow): WalletTransaction {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind as WalletTransactionKind,
    amount: row.amount,
    balanceAfter: row.balance_after,
    messageId: row.message_id,
    description: row.description,
    createdAt: row.created_at,
  };
}

export interface MessageRow {
  id: number;
  list_id: number;
  account_id: number;
  kind: string;
  guid: string | null;
  trackin_id: string | null;
  customer_message_id: string | null;
  content: string;
  steps: StoredMessage['steps'];
  status: string;
  snapshot: StoredMessage['snapshot'];
  route_ref: string | null;
  created_at: number;
  updated_at: number;
  due_at: number;
  expires_at: number | null;
  cost: number;
  meta: Record<string, unknown> | null;
}

export function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    listId: row.list_id,
    accountId: row.account_id,
    kind: row.kind as MessageKind,
    guid: row.guid,
    trackinId: row.trackin_id,
    customerMessageId: row.customer_message_id,
    content: row.content,
    steps: row.steps,
    status: row.status as DeliveryStatus,
    snapshot: row.snapshot,
    routeRef: row.route_ref,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    dueAt: row.due_at,
    expiresAt: row.expires_at,
    cost: row.cost,
    meta: row.meta,
  };
}

export interface EffectRow {
  id: number;
  message_id: number;
  kind: string;
  step: number;
  event: MachineEvent | null;
  due_at: number;
}

export function toEffect(row: EffectRow): Effect {
  return { id: row.id, messageId: row.message_id, kind: row.kind as EffectKind, step: row.step, event: row.event, dueAt: row.due_at };
}

export interface HistoryRow {
  message_id: number;
  step: number;
  channel: string;
  status: string;
  at: number;
  error: string | null;
}

export function toHistoryEntry(row: HistoryRow): HistoryEntry {
  return {
    messageId: row.message_id,
    step: row.step,
    channel: row.channel as ChannelId,
    status: row.status as HistoryStatus,
    at: row.at,
    error: row.error,
  };
}
