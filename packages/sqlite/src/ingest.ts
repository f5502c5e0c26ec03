import type Database from 'better-sqlite3';
import {
  HISTORY_ROW_COLUMNS,
  MESSAGE_ROW_COLUMNS,
  WALLET_ROW_COLUMNS,
  customerMessageIdsOf,
  ingestRows,
  planIngest,
} from '@spillway/core/storage';
import type { IngestBatch, IngestResult, KnownCustomerMessage } from '@spillway/core/storage';
import { createBatchInserter } from './batch-insert.ts';

function prepare(db: Database.Database) {
  return {
    byCustomerId: db.prepare<[number, string], { id: number; list_id: number; content: string }>(
      `SELECT id, list_id, content FROM messages WHERE account_id = ? AND customer_message_id = ?`,
    ),
    balance: db.prepare<[number], { balance: number }>(`SELECT balance FROM accounts WHERE id = ?`),
    setBalance: db.prepare<[number, number]>(`UPDATE accounts SET balance = ? WHERE id = ?`),
    insertList: db.prepare<[number, number]>(`INSERT INTO message_lists (account_id, created_at) VALUES (?, ?)`),
    maxMessageId: db.prepare<[], { id: number }>(`SELECT COALESCE(MAX(id), 0) AS id FROM messages`),
    messages: createBatchInserter(db, 'messages', MESSAGE_ROW_COLUMNS),
    wallet: createBatchInserter(db, 'wallet_transactions', WALLET_ROW_COLUMNS),
    history: createBatchInserter(db, 'history', HISTORY_ROW_COLUMNS),
  };
}

type Statements = ReturnType<typeof prepare>;

/**
 * The rows of the requests of one transaction, gathered so that each table gets one multi-row
 * insert for all of them (a group of single sends writes as few statements as one request), and
 * what the transaction has decided so far, for the requests after it.
 */
interface Pending {
  messages: unknown[];
  wallet: unknown[];
  history: unknown[];
  nextId: number;
  /** Balances as this transaction leaves them, by account. */
  balances: Map<number, number>;
  /** customerMessageIds written by earlier requests of this transaction, by account. */
  customerIds: Map<number, Map<string, KnownCustomerMessage>>;
}

/**
 * One request's decision inside the ingest transaction, which is IMMEDIATE, so that message ids
 * can be allocated from MAX(id) and the balance read and written without another writer in
 * between. The decision (replays, conflicts, funds) is core's planIngest; it sees the requests
 * decided before it in the same transaction as if they were committed.
 */
function decide(s: Statements, pending: Pending, batch: IngestBatch): IngestResult {
  const { accountId, at } = batch;
  // One indexed point lookup per distinct customerMessageId (most batches carry none).
  const known = new Map<string, KnownCustomerMessage>();
  const mine = pending.customerIds.get(accountId);
  for (const cmid of customerMessageIdsOf(batch.messages)) {
    const earlier = mine?.get(cmid);
    if (earlier) {
      known.set(cmid, earlier);
      continue;
    }
    const found = s.byCustomerId.get(accountId, cmid);
    if (found) known.set(cmid, { id: found.id, listId: found.list_id, content: found.content });
  }
  let balance = pending.balances.get(accountId);
  if (balance === undefined) balance = s.balance.get(accountId)?.balance ?? 0;
  const plan = planIngest({ messages: batch.messages, known, balance });
  if (plan.action === 'answer') return plan.result;

  const listId = Number(s.insertList.run(accountId, at).lastInsertRowid);
  const first = pending.nextId;
  pending.nextId += plan.fresh.length;
  const rows = ingestRows(
    batch,
    plan,
    listId,
    Array.from(plan.fresh, (_, k) => first + k),
    balance,
    pending,
  );
  if (plan.required !== 0) pending.balances.set(accountId, rows.balance);
  for (const i of plan.fresh) {
    const m = batch.messages[i]!;
    if (m.customerMessageId === null) continue;
    let ids = pending.customerIds.get(accountId);
    if (!ids) pending.customerIds.set(accountId, (ids = new Map()));
    ids.set(m.customerMessageId, { id: plan.ids[i]!, listId, content: m.content });
  }
  return { status: 'accepted', listId, ids: plan.ids, replays: plan.replays };
}

/** Decides every request in order, then writes all their rows. */
function ingestIn(s: Statements, batches: readonly IngestBatch[]): IngestResult[] {
  const pending: Pending = {
    messages: [],
    wallet: [],
    history: [],
    nextId: s.maxMessageId.get()!.id + 1,
    balances: new Map(),
    customerIds: new Map(),
  };
  const results = batches.map((batch) => decide(s, pending, batch));
  s.messages.insert(pending.messages);
  for (const [accountId, balance] of pending.balances) s.setBalance.run(balance, accountId);
  s.wallet.insert(pending.wallet);
  s.history.insert(pending.history);
  return results;
}

/** Creates the `ingest` and `ingestMany` operations of the message store. */
export function createIngest(db: Database.Database): {
  ingest: (batch: IngestBatch) => IngestResult;
  ingestMany: (batches: IngestBatch[]) => IngestResult[];
} {
  let statements: Statements | undefined;
  // One transaction, one commit, for requests that arrived together; each decided in order.
  const run = db.transaction((batches: readonly IngestBatch[]) => ingestIn((statements ??= prepare(db)), batches));
  return { ingest: (batch) => run.immediate([batch])[0]!, ingestMany: (batches) => run.immediate(batches) };
}
