import type pg from 'pg';
import { MESSAGE_ROW_COLUMNS, WALLET_ROW_COLUMNS, customerMessageIdsOf, ingestRows, planIngest } from '@spillway/core/storage';
import type { IngestBatch, IngestResult, KnownCustomerMessage } from '@spillway/core/storage';
import { bulkInsert, HISTORY_COLUMNS, typedColumns } from './bulk-insert.ts';
import { row, rows, run, transaction } from './pg-util.ts';

const MESSAGE_COLUMNS = typedColumns(MESSAGE_ROW_COLUMNS, {
  id: 'bigint',
  list_id: 'bigint',
  account_id: 'bigint',
  kind: 'text',
  guid: 'text',
  trackin_id: 'text',
  customer_message_id: 'text',
  content: 'text',
  steps: 'json',
  status: 'text',
  snapshot: 'json',
  route_ref: 'text',
  created_at: 'bigint',
  updated_at: 'bigint',
  due_at: 'bigint',
  expires_at: 'bigint',
  cost: 'bigint',
  meta: 'json',
  work: 'json',
  wake_at: 'bigint',
  charged: 'bigint',
});
const WALLET_COLUMNS = typedColumns(WALLET_ROW_COLUMNS, {
  account_id: 'bigint',
  kind: 'text',
  amount: 'bigint',
  balance_after: 'bigint',
  message_id: 'bigint',
  description: 'text',
  created_at: 'bigint',
});

/** The messages table's id sequence (quoted, schema-qualified), as `pg_get_serial_sequence` names it. */
async function messageIdSequence(client: pg.PoolClient, x: string): Promise<string> {
  const found = await row<{ name: string | null }>(client, `SELECT pg_get_serial_sequence($1, 'id') AS name`, [`${x}messages`]);
  // Schema names are plain identifiers (schemaPrefix): the name never holds a quote.
  if (!found?.name || found.name.includes("'")) throw new Error(`no id sequence for ${x}messages`);
  return found.name;
}

/** Looks the id sequence up once per storage (a failed look-up is tried again next time). */
function sequenceOnce(x: string): (client: pg.PoolClient) => Promise<string> {
  let name: Promise<string> | undefined;
  return (client) => {
    if (!name) {
      name = messageIdSequence(client, x);
      name.catch(() => (name = undefined));
    }
    return name;
  };
}

/**
 * The ingest transaction body. The account row is locked first (`FOR UPDATE`), which serialises
 * the ingests of one account across processes: the customerMessageId checks and the balance
 * check both see every earlier ingest of the account. The decision itself is core's planIngest.
 */
async function ingestIn(
  client: pg.PoolClient,
  x: string,
  sequenceOf: (client: pg.PoolClient) => Promise<string>,
  batch: IngestBatch,
): Promise<IngestResult> {
  const { accountId, at } = batch;
  const balance =
    (await row<{ balance: number }>(client, `SELECT balance FROM ${x}accounts WHERE id = $1 FOR UPDATE`, [accountId]))?.balance ?? 0;

  // Known customerMessageIds are read in one query.
  const known = new Map<string, KnownCustomerMessage>();
  const cmids = customerMessageIdsOf(batch.messages);
  if (cmids.length > 0) {
    const found = await rows<{ id: number; list_id: number; content: string; customer_message_id: string }>(
      client,
      `SELECT id, list_id, content, customer_message_id FROM ${x}messages WHERE account_id = $1 AND customer_message_id = ANY($2::text[])`,
      [accountId, cmids],
    );
    for (const f of found) known.set(f.customer_message_id, { id: f.id, listId: f.list_id, content: f.content });
  }
  const plan = planIngest({ messages: batch.messages, known, balance });
  if (plan.action === 'answer') return plan.result;

  const listId = (await row<{ id: number }>(client, `INSERT INTO ${x}message_lists (account_id, created_at) VALUES ($1, $2) RETURNING id`, [
    accountId,
    at,
  ]))!.id;
  // Ids come from the table's sequence up front, so that effects, history and charges can name
  // their message in the same bulk statements; sorted, since batch order must be id order.
  const sequence = await sequenceOf(client);
  const allocated = (await row<{ ids: string }>(
    client,
    // The sequence as a constant: nextval over a computed name looks the sequence up per row
    // (ten times slower). One text of ids, so that the driver builds no row object per id.
    `SELECT string_agg(nextval('${sequence}'::regclass)::text, ',') AS ids FROM generate_series(1, $1)`,
    [plan.fresh.length],
  ))!.ids
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);

  const written = ingestRows(batch, plan, listId, allocated, balance);
  await bulkInsert(client, `${x}messages`, MESSAGE_COLUMNS, written.messages);
  if (plan.required !== 0) await run(client, `UPDATE ${x}accounts SET balance = $1 WHERE id = $2`, [written.balance, accountId]);
  await bulkInsert(client, `${x}wallet_transactions`, WALLET_COLUMNS, written.wallet);
  await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, written.history);
  return { status: 'accepted', listId, ids: plan.ids, replays: plan.replays };
}

/** Creates the `ingest` (one transaction per request) and `ingestMany` operations of the message store. */
export function createIngest(pool: pg.Pool, x: string) {
  const sequenceOf = sequenceOnce(x);
  return {
    ingest: (batch: IngestBatch): Promise<IngestResult> => transaction(pool, (client) => ingestIn(client, x, sequenceOf, batch)),
    /** Requests that arrived together, in one transaction (one commit), each decided in order. */
    ingestMany: (batches: IngestBatch[]): Promise<IngestResult[]> =>
      transaction(pool, async (client) => {
        const results: IngestResult[] = [];
        for (const batch of batches) results.push(await ingestIn(client, x, sequenceOf, batch));
        return results;
      }),
  };
}
