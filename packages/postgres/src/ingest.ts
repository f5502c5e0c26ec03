import type pg from 'pg';
import type { IngestBatch, IngestResult } from '@spillway/core';
import { bulkInsert, columnArrays, EFFECT_COLUMNS, HISTORY_COLUMNS, type BulkColumn } from './bulk-insert.ts';
import { row, rows, run, transaction } from './pg-util.ts';

const MESSAGE_COLUMNS: readonly BulkColumn[] = [
  ['id', 'bigint'],
  ['list_id', 'bigint'],
  ['account_id', 'bigint'],
  ['kind', 'text'],
  ['guid', 'text'],
  ['trackin_id', 'text'],
  ['customer_message_id', 'text'],
  ['content', 'text'],
  ['steps', 'jsonb'],
  ['status', 'text'],
  ['snapshot', 'jsonb'],
  ['route_ref', 'text'],
  ['created_at', 'bigint'],
  ['updated_at', 'bigint'],
  ['due_at', 'bigint'],
  ['expires_at', 'bigint'],
  ['cost', 'bigint'],
  ['meta', 'jsonb'],
];
const WALLET_COLUMNS: readonly BulkColumn[] = [
  ['account_id', 'bigint'],
  ['kind', 'text'],
  ['amount', 'bigint'],
  ['balance_after', 'bigint'],
  ['message_id', 'bigint'],
  ['description', 'text'],
  ['created_at', 'bigint'],
];

/**
 * The ingest transaction body. The account row is locked first (`FOR UPDATE`), which serialises
 * the ingests of one account across processes: the customerMessageId checks and the balance
 * check both see every earlier ingest of the account.
 */
async function ingestIn(client: pg.PoolClient, x: string, batch: IngestBatch): Promise<IngestResult> {
  const { accountId, at, messages } = batch;
  const balance = (await row<{ balance: number }>(client, `SELECT balance FROM ${x}accounts WHERE id = $1 FOR UPDATE`, [accountId]))?.balance ?? 0;

  const ids: number[] = new Array<number>(messages.length);
  const replays: number[] = [];
  const conflicts = new Set<number>();

  // customerMessageId: a repeat inside the batch is a conflict whatever its content; a known id
  // is a replay with the same content and a conflict otherwise. Known ids are read in one query.
  const seen = new Map<string, number>();
  const firsts: number[] = [];
  for (let i = 0; i < messages.length; i++) {
    const cmid = messages[i]!.customerMessageId;
    if (cmid === null) continue;
    const first = seen.get(cmid);
    if (first !== undefined) {
      conflicts.add(first).add(i);
      continue;
    }
    seen.set(cmid, i);
    firsts.push(i);
  }
  const known = new Map<string, { id: number; list_id: number; content: string }>();
  if (firsts.length > 0) {
    const found = await rows<{ id: number; list_id: number; content: string; customer_message_id: string }>(
      client,
      `SELECT id, list_id, content, customer_message_id FROM ${x}messages WHERE account_id = $1 AND customer_message_id = ANY($2::text[])`,
      [accountId, firsts.map((i) => messages[i]!.customerMessageId)],
    );
    for (const f of found) known.set(f.customer_message_id, f);
  }
  for (const i of firsts) {
    const existing = known.get(messages[i]!.customerMessageId!);
    if (!existing) continue;
    if (existing.content === messages[i]!.content) {
      ids[i] = existing.id;
      replays.push(i);
    } else {
      conflicts.add(i);
    }
  }
  if (conflicts.size > 0) return { status: 'conflict', indexes: [...conflicts].sort((a, b) => a - b) };
  replays.sort((a, b) => a - b);

  const isReplay = new Uint8Array(messages.length);
  for (const i of replays) isReplay[i] = 1;
  let required = 0;
  for (let i = 0; i < messages.length; i++) if (!isReplay[i]) required += messages[i]!.charge;
  if (required > balance) return { status: 'insufficient_funds', balance, required };

  // A request made only of replays answers the original list and creates nothing.
  if (messages.length > 0 && replays.length === messages.length) {
    return { status: 'accepted', listId: known.get(messages[0]!.customerMessageId!)!.list_id, ids, replays };
  }

  const listId = (await row<{ id: number }>(client, `INSERT INTO ${x}message_lists (account_id, created_at) VALUES ($1, $2) RETURNING id`, [accountId, at]))!.id;
  // Ids come from the table's sequence up front, so that effects, history and charges can name
  // their message in the same bulk statements; sorted, since batch order must be id order.
  const fresh = messages.length - replays.length;
  const allocated = (
    await rows<{ id: number }>(client, `SELECT nextval(pg_get_serial_sequence($1, 'id')) AS id FROM generate_series(1, $2)`, [
      `${x}messages`,
      fresh,
    ])
  )
    .map((r) => r.id)
    .sort((a, b) => a - b);

  let next = 0;
  let running = balance;
  const messageValues = columnArrays(MESSAGE_COLUMNS.length);
  const walletValues = columnArrays(WALLET_COLUMNS.length);
  const effectValues = columnArrays(EFFECT_COLUMNS.length);
  const historyValues = columnArrays(HISTORY_COLUMNS.length);
  // Messages of one request usually share the snapshot object: serialise it once.
  const snapshots = new Map<object, string>();
  const push = (target: unknown[][], ...values: unknown[]) => {
    for (let c = 0; c < values.length; c++) target[c]!.push(values[c]);
  };

  for (let i = 0; i < messages.length; i++) {
    if (isReplay[i]) continue;
    const m = messages[i]!;
    const id = allocated[next++]!;
    ids[i] = id;
    let snapshot = snapshots.get(m.snapshot);
    if (snapshot === undefined) {
      snapshot = JSON.stringify(m.snapshot);
      snapshots.set(m.snapshot, snapshot);
    }
    push(
      messageValues,
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
      push(walletValues, accountId, 'charge', -m.charge, running, id, batch.chargeDescription, at);
    }
    for (const e of m.effects) {
      push(effectValues, id, e.kind, e.step, e.event === null ? null : JSON.stringify(e.event), e.event?.type ?? null, e.dueAt);
    }
    for (const h of m.history) push(historyValues, id, h.step, h.channel, h.status, h.at, h.error);
  }

  await bulkInsert(client, `${x}messages`, MESSAGE_COLUMNS, messageValues);
  if (required !== 0) await run(client, `UPDATE ${x}accounts SET balance = $1 WHERE id = $2`, [running, accountId]);
  await bulkInsert(client, `${x}wallet_transactions`, WALLET_COLUMNS, walletValues);
  await bulkInsert(client, `${x}effects`, EFFECT_COLUMNS, effectValues);
  await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, historyValues);
  return { status: 'accepted', listId, ids, replays };
}

/** Creates the `ingest` operation of the message store: one transaction per request. */
export function createIngest(pool: pg.Pool, x: string): (batch: IngestBatch) => Promise<IngestResult> {
  return (batch) => transaction(pool, (client) => ingestIn(client, x, batch));
}
