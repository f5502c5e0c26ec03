import type { HistoryEntry, StoredMessage } from '../types/message.ts';
import { wakeAtOf } from '../types/work.ts';
import type { IngestBatch, IngestResult, NewMessage } from '../ports/message-storage.ts';
import type { IngestInsertPlan } from './plan-ingest.ts';
import { snapshotText } from './message-rows.ts';

/** Columns of a `messages` row as {@link ingestRows} writes them, in value order. */
export const MESSAGE_ROW_COLUMNS = [
  'id',
  'list_id',
  'account_id',
  'kind',
  'guid',
  'trackin_id',
  'customer_message_id',
  'content',
  'steps',
  'status',
  'snapshot',
  'route_ref',
  'created_at',
  'updated_at',
  'due_at',
  'expires_at',
  'cost',
  'meta',
  'work',
  'wake_at',
  'charged',
  'lease_until',
  'lease_owner',
] as const;

/** Whether an ingest stores `m` leased to the batch's `lease` owner: a fresh message whose work is due at acceptance. */
export function isHandedOver(batch: IngestBatch, m: NewMessage): boolean {
  if (!batch.lease) return false;
  const wake = wakeAtOf(m.work);
  return wake !== null && wake <= batch.at;
}

/** The batch indexes of the messages an accepted ingest stored leased to the batch's `lease` owner (replays never are). */
function handedOverIndexes(batch: IngestBatch, result: IngestResult | null): number[] {
  if (!batch.lease || result?.status !== 'accepted') return [];
  const replays = new Set(result.replays);
  const indexes: number[] = [];
  batch.messages.forEach((m, i) => {
    if (!replays.has(i) && isHandedOver(batch, m)) indexes.push(i);
  });
  return indexes;
}

/** The ids of the messages an accepted ingest stored leased to the batch's `lease` owner (replays never are). */
export function handedOverIds(batch: IngestBatch, result: IngestResult | null): number[] {
  if (result?.status !== 'accepted') return [];
  return handedOverIndexes(batch, result).map((i) => result.ids[i]!);
}

/**
 * The messages an accepted ingest stored leased to the batch's `lease` owner, as the storage reads
 * them back (`getMessage`, `takeHandedOver`): the copies a worker takes without a read. Built from
 * the batch as {@link ingestRows} writes its rows: a column added there is added here too (the
 * work contract compares the two on every storage).
 */
export function handedOverMessages(batch: IngestBatch, result: IngestResult | null): StoredMessage[] {
  if (result?.status !== 'accepted') return [];
  const { accountId, at } = batch;
  return handedOverIndexes(batch, result).map((i): StoredMessage => {
    const m = batch.messages[i]!;
    return {
      id: result.ids[i]!,
      listId: result.listId,
      accountId,
      kind: m.kind,
      guid: m.guid,
      trackinId: m.trackinId,
      customerMessageId: m.customerMessageId,
      content: m.content,
      steps: m.steps,
      status: m.status,
      snapshot: m.snapshot,
      routeRef: m.routeRef,
      createdAt: at,
      updatedAt: at,
      dueAt: m.dueAt,
      expiresAt: m.expiresAt,
      cost: m.charge,
      meta: m.meta,
      version: 0,
      work: m.work,
      // The acceptance charge pays the first step (ingestRows' `charged`).
      charged: m.charge > 0 ? 1 : 0,
    };
  });
}

/** Columns of a `wallet_transactions` row as {@link ingestRows} writes them, in value order. */
export const WALLET_ROW_COLUMNS = ['account_id', 'kind', 'amount', 'balance_after', 'message_id', 'description', 'created_at'] as const;

/** Columns of a `history` row as {@link historyRowValues} gives them, in value order. */
export const HISTORY_ROW_COLUMNS = ['message_id', 'step', 'channel', 'status', 'at', 'error', 'driver', 'provider_message_id'] as const;

/** Appends one `history` row ({@link HISTORY_ROW_COLUMNS}) to a row-major value list. */
export function pushHistoryRow(values: unknown[], messageId: number, h: Omit<HistoryEntry, 'messageId'>): void {
  writeHistoryRow(values, values.length, messageId, h);
}

/** Writes one `history` row ({@link HISTORY_ROW_COLUMNS}) into a row-major value list at index `k`; answers the index after it. */
function writeHistoryRow(values: unknown[], k: number, messageId: number, h: Omit<HistoryEntry, 'messageId'>): number {
  values[k++] = messageId;
  values[k++] = h.step;
  values[k++] = h.channel;
  values[k++] = h.status;
  values[k++] = h.at;
  values[k++] = h.error;
  values[k++] = h.driver ?? null;
  values[k++] = h.providerMessageId ?? null;
  return k;
}

/** The `history` rows of entries as one row-major value list ({@link HISTORY_ROW_COLUMNS}). */
export function historyRowValues(entries: readonly HistoryEntry[]): unknown[] {
  const values: unknown[] = [];
  for (const h of entries) pushHistoryRow(values, h.messageId, h);
  return values;
}

/**
 * The rows an accepted ingest writes, each table's rows as one row-major value list (row `r`,
 * column `c` at `r * columns.length + c`), as multi-row inserts take them.
 */
export interface IngestRows {
  /** {@link MESSAGE_ROW_COLUMNS} */
  messages: unknown[];
  /** {@link WALLET_ROW_COLUMNS}: one charge per charged message; `balance_after` runs down in batch order. */
  wallet: unknown[];
  /** {@link HISTORY_ROW_COLUMNS} */
  history: unknown[];
  /** The account's balance after the charges. */
  balance: number;
}

/** The lists an ingest's rows are written into (several requests' rows in one insert). */
type RowLists = Pick<IngestRows, 'messages' | 'wallet' | 'history'>;

/**
 * Rows {@link draftIngestRows} built for a batch before its write transaction: every message as
 * fresh, with ids, list id and `message_id`s at 0 and `balance_after` relative to a balance of 0.
 * The first {@link ingestRows} of the batch that inserts all of it takes them (and removes them).
 */
const drafts = new WeakMap<IngestBatch, IngestRows>();

/** Where in its row each cell a drafted row leaves to the transaction stands. */
const DRAFTED = {
  messageId: MESSAGE_ROW_COLUMNS.indexOf('id'),
  messageList: MESSAGE_ROW_COLUMNS.indexOf('list_id'),
  walletBalance: WALLET_ROW_COLUMNS.indexOf('balance_after'),
  walletMessage: WALLET_ROW_COLUMNS.indexOf('message_id'),
  historyMessage: HISTORY_ROW_COLUMNS.indexOf('message_id'),
};

/**
 * Builds the rows of a batch as if every message were fresh, before its write transaction,
 * outside the write lock: all of each row but what only the transaction decides (the ids, the
 * list and the balance), which {@link ingestRows} then writes in. Most of the work of an ingest's
 * rows (serialising steps, laying out 23 columns a message) is so done while another writer may
 * hold the lock (`MessageStorage.prepareIngest`). A batch whose plan inserts fewer messages
 * (replays) leaves its draft unused.
 */
export function draftIngestRows(batch: IngestBatch): void {
  drafts.set(
    batch,
    writeRows(
      batch,
      Array.from(batch.messages, (_, i) => i),
      0,
      null,
      0,
    ),
  );
}

/**
 * Builds the rows of an `insert` plan of {@link planIngest}, JSON values as text. `freshIds` are
 * the ids the adapter allocated for `plan.fresh`, ascending (batch order is id order); they are
 * also written into `plan.ids`, which then answers the ingest. A batch drafted by
 * {@link draftIngestRows} whose plan inserts every message takes its draft instead, with the ids,
 * list and balance written in.
 */
export function ingestRows(
  batch: IngestBatch,
  plan: IngestInsertPlan,
  listId: number,
  freshIds: readonly number[],
  balance: number,
  /**
   * Appends the rows to these lists (the rows of several requests in one insert) instead of new
   * ones; an empty list here is replaced by one made at its length.
   */
  into?: RowLists,
): IngestRows {
  const fresh = plan.fresh;
  for (let k = 0; k < fresh.length; k++) plan.ids[fresh[k]!] = freshIds[k]!;
  const draft = drafts.get(batch);
  if (draft === undefined || fresh.length !== batch.messages.length) return writeRows(batch, fresh, listId, freshIds, balance, into);
  // Taken once: a transaction that failed after taking it builds its rows anew when made again.
  drafts.delete(batch);
  const { messages: mv, wallet: wv, history: hv } = draft;
  const mw = MESSAGE_ROW_COLUMNS.length;
  const ww = WALLET_ROW_COLUMNS.length;
  const hw = HISTORY_ROW_COLUMNS.length;
  let wk = 0;
  let hk = 0;
  for (let k = 0; k < fresh.length; k++) {
    const m = batch.messages[k]!;
    const id = freshIds[k]!;
    mv[k * mw + DRAFTED.messageId] = id;
    mv[k * mw + DRAFTED.messageList] = listId;
    if (m.charge > 0) {
      // balance_after was drafted as 0 less the charges so far.
      wv[wk + DRAFTED.walletBalance] = balance + (wv[wk + DRAFTED.walletBalance] as number);
      wv[wk + DRAFTED.walletMessage] = id;
      wk += ww;
    }
    for (let e = 0; e < m.history.length; e++, hk += hw) hv[hk + DRAFTED.historyMessage] = id;
  }
  const lists = into ?? { messages: [], wallet: [], history: [] };
  lists.messages = appended(lists.messages, mv);
  lists.wallet = appended(lists.wallet, wv);
  lists.history = appended(lists.history, hv);
  return { messages: lists.messages, wallet: lists.wallet, history: lists.history, balance: balance + draft.balance };
}

/** `rows` after the values of `list` (`rows` itself for an empty list, not a copy). */
function appended(list: unknown[], rows: unknown[]): unknown[] {
  if (list.length === 0) return rows;
  let k = list.length;
  for (const value of rows) list[k++] = value;
  return list;
}

/** The rows of the `fresh` messages of `batch` (ids from `freshIds`, or 0 without them: a draft). */
function writeRows(
  batch: IngestBatch,
  fresh: readonly number[],
  listId: number,
  freshIds: readonly number[] | null,
  balance: number,
  into?: RowLists,
): IngestRows {
  const { accountId, at } = batch;
  // The rows are written by index into lists made at their full length, not pushed: a bulk
  // request's message list (5000 rows of 23 values) pushed grew through a score of ever larger
  // copies in the large-object space, each on fresh pages the kernel had to clear (about 5 % of
  // the HTTP thread's time in bulk ingest). Lists given in `into` grow from where they end; an
  // empty one is replaced by one made at its length.
  let charged = 0;
  let entries = 0;
  for (const i of fresh) {
    const m = batch.messages[i]!;
    if (m.charge > 0) charged++;
    entries += m.history.length;
  }
  const lists = into ?? { messages: [], wallet: [], history: [] };
  let mk = lists.messages.length;
  let wk = lists.wallet.length;
  let hk = lists.history.length;
  if (mk === 0) lists.messages = new Array<unknown>(fresh.length * MESSAGE_ROW_COLUMNS.length);
  if (wk === 0) lists.wallet = new Array<unknown>(charged * WALLET_ROW_COLUMNS.length);
  if (hk === 0) lists.history = new Array<unknown>(entries * HISTORY_ROW_COLUMNS.length);
  const out: IngestRows = { messages: lists.messages, wallet: lists.wallet, history: lists.history, balance };
  const { messages: mv, wallet: wv, history: hv } = out;
  // Messages of one request usually share their work list: serialise each once. (Their machine
  // states are the advancer's shared objects, whose text snapshotText keeps for the commits too.)
  const workTexts = new Map<object, string>();
  const workTextOf = (work: object) => {
    let text = workTexts.get(work);
    if (text === undefined) workTexts.set(work, (text = JSON.stringify(work)));
    return text;
  };

  for (let k = 0; k < fresh.length; k++) {
    const m = batch.messages[fresh[k]!]!;
    const id = freshIds === null ? 0 : freshIds[k]!;
    const leased = isHandedOver(batch, m);
    // MESSAGE_ROW_COLUMNS, in order.
    mv[mk++] = id;
    mv[mk++] = listId;
    mv[mk++] = accountId;
    mv[mk++] = m.kind;
    mv[mk++] = m.guid;
    mv[mk++] = m.trackinId;
    mv[mk++] = m.customerMessageId;
    mv[mk++] = m.content;
    mv[mk++] = JSON.stringify(m.steps);
    mv[mk++] = m.status;
    mv[mk++] = snapshotText(m.snapshot);
    mv[mk++] = m.routeRef;
    mv[mk++] = at;
    mv[mk++] = at;
    mv[mk++] = m.dueAt;
    mv[mk++] = m.expiresAt;
    mv[mk++] = m.charge;
    mv[mk++] = m.meta === null ? null : JSON.stringify(m.meta);
    mv[mk++] = workTextOf(m.work);
    mv[mk++] = leased ? batch.lease!.until : wakeAtOf(m.work);
    // The acceptance charge pays the first step: it is never charged again.
    mv[mk++] = m.charge > 0 ? 1 : 0;
    mv[mk++] = leased ? batch.lease!.until : 0;
    mv[mk++] = leased ? batch.lease!.owner : null;
    if (m.charge > 0) {
      out.balance -= m.charge;
      // WALLET_ROW_COLUMNS, in order.
      wv[wk++] = accountId;
      wv[wk++] = 'charge';
      wv[wk++] = -m.charge;
      wv[wk++] = out.balance;
      wv[wk++] = id;
      wv[wk++] = batch.chargeDescription;
      wv[wk++] = at;
    }
    for (const h of m.history) hk = writeHistoryRow(hv, hk, id, h);
  }
  return out;
}
