import type Database from 'better-sqlite3';
import type { IngestBatch, IngestResult } from '@spillway/core';
import { createBatchInserter } from './batch-insert.ts';

const MESSAGE_COLUMNS = [
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
] as const;
const WALLET_COLUMNS = ['account_id', 'kind', 'amount', 'balance_after', 'message_id', 'description', 'created_at'] as const;
export const EFFECT_COLUMNS = ['message_id', 'kind', 'step', 'event', 'event_type', 'due_at'] as const;
export const HISTORY_COLUMNS = ['message_id', 'step', 'channel', 'status', 'at', 'error'] as const;

function prepare(db: Database.Database) {
  return {
    byCustomerId: db.prepare<[number, string], { id: number; list_id: number; content: string }>(
      `SELECT id, list_id, content FROM messages WHERE account_id = ? AND customer_message_id = ?`,
    ),
    balance: db.prepare<[number], { balance: number }>(`SELECT balance FROM accounts WHERE id = ?`),
    setBalance: db.prepare<[number, number]>(`UPDATE accounts SET balance = ? WHERE id = ?`),
    insertList: db.prepare<[number, number]>(`INSERT INTO message_lists (account_id, created_at) VALUES (?, ?)`),
    maxMessageId: db.prepare<[], { id: number }>(`SELECT COALESCE(MAX(id), 0) AS id FROM messages`),
    messages: createBatchInserter(db, 'messages', MESSAGE_COLUMNS),
    wallet: createBatchInserter(db, 'wallet_transactions', WALLET_COLUMNS),
    effects: createBatchInserter(db, 'effects', EFFECT_COLUMNS),
    history: createBatchInserter(db, 'history', HISTORY_COLUMNS),
  };
}

type Statements = ReturnType<typeof prepare>;

/**
 * The ingest transaction body: runs inside an IMMEDIATE transaction, so that message ids can be
 * allocated from MAX(id) and the balance read and written without another writer in between.
 */
function ingestIn(s: Statements, batch: IngestBatch): IngestResult {
  const { accountId, at, messages } = batch;
  const ids: number[] = new Array<number>(messages.length);
  const replays: number[] = [];
  const conflicts = new Set<number>();

  // customerMessageId: a repeat inside the batch is a conflict whatever its content; a known id
  // is a replay with the same content and a conflict otherwise.
  const seen = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const cmid = messages[i]!.customerMessageId;
    if (cmid === null) continue;
    const first = seen.get(cmid);
    if (first !== undefined) {
      conflicts.add(first).add(i);
      continue;
    }
    seen.set(cmid, i);
    const existing = s.byCustomerId.get(accountId, cmid);
    if (!existing) continue;
    if (existing.content === messages[i]!.content) {
      ids[i] = existing.id;
      replays.push(i);
    } else {
      conflicts.add(i);
    }
  }
  if (conflicts.size > 0) return { status: 'conflict', indexes: [...conflicts].sort((a, b) => a - b) };

  const isReplay = new Uint8Array(messages.length);
  for (const i of replays) isReplay[i] = 1;
  let required = 0;
  for (let i = 0; i < messages.length; i++) if (!isReplay[i]) required += messages[i]!.charge;
  const balance = s.balance.get(accountId)?.balance ?? 0;
  if (required > balance) return { status: 'insufficient_funds', balance, required };

  // A request made only of replays answers the original list and creates nothing.
  if (messages.length > 0 && replays.length === messages.length) {
    const original = s.byCustomerId.get(accountId, messages[0]!.customerMessageId!)!;
    return { status: 'accepted', listId: original.list_id, ids, replays };
  }

  const listId = Number(s.insertList.run(accountId, at).lastInsertRowid);
  let nextId = s.maxMessageId.get()!.id + 1;
  let running = balance;
  const messageValues: unknown[] = [];
  const walletValues: unknown[] = [];
  const effectValues: unknown[] = [];
  const historyValues: unknown[] = [];
  // Messages of one request usually share the snapshot object: serialise it once.
  const snapshots = new Map<object, string>();

  for (let i = 0; i < messages.length; i++) {
    if (isReplay[i]) continue;
    const m = messages[i]!;
    const id = nextId++;
    ids[i] = id;
    let snapshot = snapshots.get(m.snapshot);
    if (snapshot === undefined) {
      snapshot = JSON.stringify(m.snapshot);
      snapshots.set(m.snapshot, snapshot);
    }
    messageValues.push(
      id,
      listId,
      accountId,
      m.kind,
      m.guid,
      m.trackinId,
      m.customerMessageId,
      m.content,
      JSON.stringify(m.steps),
      m.status,
      snapshot,
      m.routeRef,
      at,
      at,
      m.dueAt,
      m.expiresAt,
      m.charge,
      m.meta === null ? null : JSON.stringify(m.meta),
    );
    if (m.charge > 0) {
      running -= m.charge;
      walletValues.push(accountId, 'charge', -m.charge, running, id, batch.chargeDescription, at);
    }
    for (const e of m.effects) {
      effectValues.push(id, e.kind, e.step, e.event === null ? null : JSON.stringify(e.event), e.event?.type ?? null, e.dueAt);
    }
    for (const h of m.history) historyValues.push(id, h.step, h.channel, h.status, h.at, h.error);
  }

  s.messages.insert(messageValues);
  if (required !== 0) s.setBalance.run(running, accountId);
  s.wallet.insert(walletValues);
  s.effects.insert(effectValues);
  s.history.insert(historyValues);
  return { status: 'accepted', listId, ids, replays };
}

/** Creates the `ingest` operation of the message store. */
export function createIngest(db: Database.Database): (batch: IngestBatch) => IngestResult {
  let statements: Statements | undefined;
  const run = db.transaction((batch: IngestBatch) => ingestIn((statements ??= prepare(db)), batch));
  return (batch) => run.immediate(batch);
}
