import type { ChannelId } from '../types/channel.ts';
import type { DeliveryStatus, HistoryStatus } from '../types/status.ts';
import { wakeAtOf, type WorkItem } from '../types/work.ts';
import type { ScheduledChange } from '../ports/message-storage.ts';
import type { HistoryEntry, MessageKind, MessageStatusView, PersistedMachineState, StoredMessage } from '../types/message.ts';

// Rows of the SQL adapters' message tables, JSON columns already parsed: an adapter parses at
// its edge (SQLite TEXT) or gets values from its driver (PostgreSQL JSONB), then maps here.

/** The text of each machine state a commit wrote, by the state object. */
const snapshotTexts = new WeakMap<PersistedMachineState, string>();

/**
 * A commit's `snapshot` column: the state's JSON text. States are shared and never mutated (a
 * round's messages in the same state carry the machine advancer's one object for it), so each is
 * serialised once rather than once a message: about 1.5 µs of a 7 µs SQLite update.
 */
export function snapshotText(state: PersistedMachineState): string {
  let text = snapshotTexts.get(state);
  if (text === undefined) snapshotTexts.set(state, (text = JSON.stringify(state)));
  return text;
}

/** A commit's `work` column: most finished messages wait for nothing. */
export function workText(work: readonly WorkItem[]): string {
  return work.length === 0 ? '[]' : JSON.stringify(work);
}

/** A `messages` row with `steps`, `snapshot`, `meta` and `work` parsed. */
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
  version: number;
  work: WorkItem[];
  charged: number;
}

/** Maps a parsed `messages` row to the stored message. */
export function storedMessageFromRow(row: MessageRow): StoredMessage {
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
    version: row.version,
    work: row.work,
    charged: Number(row.charged),
  };
}

/** The columns of a `messages` row that make a {@link MessageStatusView}, for a narrow SELECT. */
export const STATUS_VIEW_COLUMNS = 'id, list_id, account_id, kind, customer_message_id, steps, status, expires_at, cost';

/** The {@link STATUS_VIEW_COLUMNS} of a `messages` row, `steps` parsed. */
export type StatusViewRow = Pick<
  MessageRow,
  'id' | 'list_id' | 'account_id' | 'kind' | 'customer_message_id' | 'steps' | 'status' | 'expires_at' | 'cost'
>;

/** Maps the status columns of a `messages` row to the status view. */
export function statusViewFromRow(row: StatusViewRow): MessageStatusView {
  return {
    id: row.id,
    listId: row.list_id,
    accountId: row.account_id,
    kind: row.kind as MessageKind,
    customerMessageId: row.customer_message_id,
    steps: row.steps,
    status: row.status as DeliveryStatus,
    expiresAt: row.expires_at,
    cost: row.cost,
  };
}

/**
 * A history row as a JSON array, in the order of `history`'s columns after `message_id`: how a
 * status read aggregates a message's history into one column of its row (one statement).
 */
export type HistoryTuple = [
  step: number,
  channel: string,
  status: string,
  at: number,
  error: string | null,
  driver: string | null,
  provider_message_id: string | null,
];

/** The SQL of a {@link HistoryTuple}, over the columns of `history`. */
export const HISTORY_TUPLE_SQL = 'step, channel, status, at, error, driver, provider_message_id';

/** Maps the history tuples of message `messageId`, in order, to its history entries. */
export function historyFromTuples(messageId: number, tuples: HistoryTuple[]): HistoryEntry[] {
  return tuples.map(([step, channel, status, at, error, driver, provider_message_id]) =>
    historyEntryFromRow({ message_id: messageId, step, channel, status, at, error, driver, provider_message_id }),
  );
}

/** A `history` row. */
export interface HistoryRow {
  message_id: number;
  step: number;
  channel: string;
  status: string;
  at: number;
  error: string | null;
  driver?: string | null;
  provider_message_id?: string | null;
}

/** Maps a `history` row to the history entry. */
export function historyEntryFromRow(row: HistoryRow): HistoryEntry {
  return {
    messageId: row.message_id,
    step: row.step,
    channel: row.channel as ChannelId,
    status: row.status as HistoryStatus,
    at: row.at,
    error: row.error,
    ...(row.driver ? { driver: row.driver } : {}),
    ...(row.provider_message_id ? { providerMessageId: row.provider_message_id } : {}),
  };
}

/** The values a scheduled change writes, in the order of both adapters' UPDATE statements. */
export type ScheduledChangeValues = [
  steps: string,
  content: string,
  dueAt: number,
  expiresAt: number | null,
  status: string,
  snapshot: string,
  work: string,
  wakeAt: number | null,
  costAdded: number,
  updatedAt: number,
  id: number,
];

/**
 * The parameters of a scheduled change's UPDATE (`steps, content, due_at, expires_at, status,
 * snapshot, work, wake_at, cost + ?, updated_at WHERE id = ?`): JSON columns serialised, the wake-up
 * derived from the work, the cost moved by the opposite of the wallet amount.
 */
export function scheduledChangeValues(id: number, c: ScheduledChange, at: number): ScheduledChangeValues {
  return [
    JSON.stringify(c.steps),
    c.content,
    c.dueAt,
    c.expiresAt,
    c.status,
    JSON.stringify(c.snapshot),
    JSON.stringify(c.work),
    wakeAtOf(c.work),
    -(c.wallet?.amount ?? 0),
    at,
    id,
  ];
}
