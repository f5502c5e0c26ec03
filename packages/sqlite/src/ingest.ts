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
 * The ingest transaction body: runs inside an IMMEDIATE transaction, so that message ids can be
 * allocated from MAX(id) and the balance read and written without another writer in between.
 * The decision (replays, conflicts, funds) is core's planIngest.
 */
function ingestIn(s: Statements, batch: IngestBatch): IngestResult {
  const { accountId, at } = batch;
  // One indexed point lookup per distinct customerMessageId (most batches carry none).
  const known = new Map<string, KnownCustomerMessage>();
  for (const cmid of customerMessageIdsOf(batch.messages)) {
    const found = s.byCustomerId.get(accountId, cmid);
    if (found) known.set(cmid, { id: found.id, listId: found.list_id, content: found.content });
  }
  const balance = s.balance.get(accountId)?.balance ?? 0;
  const plan = planIngest({ messages: batch.messages, known, balance });
  if (plan.action === 'answer') return plan.result;

  const listId = Number(s.insertList.run(accountId, at).lastInsertRowid);
  const first = s.maxMessageId.get()!.id + 1;
  const rows = ingestRows(
    batch,
    plan,
    listId,
    Array.from(plan.fresh, (_, k) => first + k),
    balance,
  );
  s.messages.insert(rows.messages);
  if (plan.required !== 0) s.setBalance.run(rows.balance, accountId);
  s.wallet.insert(rows.wallet);
  s.history.insert(rows.history);
  return { status: 'accepted', listId, ids: plan.ids, replays: plan.replays };
}

/** Creates the `ingest` and `ingestMany` operations of the message store. */
export function createIngest(db: Database.Database): {
  ingest: (batch: IngestBatch) => IngestResult;
  ingestMany: (batches: IngestBatch[]) => IngestResult[];
} {
  let statements: Statements | undefined;
  const run = db.transaction((batch: IngestBatch) => ingestIn((statements ??= prepare(db)), batch));
  // One transaction, one fsync, for requests that arrived together; each decided in order.
  const runMany = db.transaction((batches: IngestBatch[]) => batches.map((b) => ingestIn((statements ??= prepare(db)), b)));
  return { ingest: (batch) => run.immediate(batch), ingestMany: (batches) => runMany.immediate(batches) };
}
