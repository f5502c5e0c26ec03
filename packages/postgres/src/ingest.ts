import type pg from 'pg';
import { MESSAGE_ROW_COLUMNS, WALLET_ROW_COLUMNS, customerMessageIdsOf, ingestRows, planIngest } from '@spillway/core/storage';
import type { IngestBatch, IngestResult, KnownCustomerMessage } from '@spillway/core/storage';
import { bulkInsert, HISTORY_COLUMNS, typedColumns } from './bulk-insert.ts';
import { isDeadlock, isUniqueViolation, row, rows, run, transaction } from './pg-util.ts';

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
  lease_until: 'bigint',
  lease_owner: 'text',
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

/** The optimistic attempt's balance moved under it (another process spent it): the locked attempt decides. */
class BalanceMoved extends Error {}

/** Where `balance_after` sits in a wallet row. */
const BALANCE_AFTER = WALLET_ROW_COLUMNS.indexOf('balance_after');

/** The wallet rows with every `balance_after` moved by `shift` (the balance they run down from was not the one read). */
function shiftedWallet(wallet: unknown[], shift: number): unknown[] {
  if (shift === 0) return wallet;
  const out = wallet.slice();
  for (let i = BALANCE_AFTER; i < out.length; i += WALLET_ROW_COLUMNS.length) out[i] = (out[i] as number) + shift;
  return out;
}

/**
 * The ingest transaction body, in one of two ways.
 *
 * Locked: the account row is locked first (`FOR UPDATE`), which serialises the ingests of one
 * account across processes: the customerMessageId checks and the balance check both see every
 * earlier ingest of the account.
 *
 * Optimistic (tried first): the balance and the customerMessageIds are read without a lock, the
 * message and history rows copied, and only then the balance taken by a conditional `UPDATE`,
 * the wallet rows copied after it (their ids and `balance_after` then run in the order the
 * balance moved). The account row is locked for the end of the transaction only, so that two
 * processes ingesting for one account copy their rows side by side. When the balance no longer
 * covers the charge, or another process wrote one of the customerMessageIds meanwhile (a unique
 * violation), the attempt is rolled back and the locked way decides: the answer is the same as if
 * the requests had come one after the other. The decision itself is core's planIngest.
 */
async function ingestIn(
  client: pg.PoolClient,
  x: string,
  sequenceOf: (client: pg.PoolClient) => Promise<string>,
  batch: IngestBatch,
  locked: boolean,
): Promise<IngestResult> {
  const { accountId, at } = batch;
  const balance =
    (await row<{ balance: number }>(client, `SELECT balance FROM ${x}accounts WHERE id = $1${locked ? ' FOR UPDATE' : ''}`, [accountId]))
      ?.balance ?? 0;

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
  await bulkInsert(client, `${x}history`, HISTORY_COLUMNS, written.history);
  let wallet = written.wallet;
  if (plan.required !== 0) {
    if (locked) {
      await run(client, `UPDATE ${x}accounts SET balance = $1 WHERE id = $2`, [written.balance, accountId]);
    } else {
      const taken = await row<{ balance: number }>(
        client,
        `UPDATE ${x}accounts SET balance = balance - $1 WHERE id = $2 AND balance >= $1 RETURNING balance`,
        [plan.required, accountId],
      );
      if (!taken) throw new BalanceMoved();
      wallet = shiftedWallet(wallet, taken.balance - written.balance);
    }
  }
  await bulkInsert(client, `${x}wallet_transactions`, WALLET_COLUMNS, wallet);
  return { status: 'accepted', listId, ids: plan.ids, replays: plan.replays };
}

/**
 * Whether a failed optimistic attempt is decided again the locked way (rather than failing the
 * request): its balance moved, a customerMessageId was taken meanwhile, or PostgreSQL chose it as
 * a deadlock's victim (an optimistic attempt's foreign-key share lock on the account row, then its
 * balance update, can meet a locked attempt waiting for that row).
 */
function lockedDecides(error: unknown): boolean {
  return error instanceof BalanceMoved || isUniqueViolation(error) || isDeadlock(error);
}

/**
 * Locked attempts made again when PostgreSQL aborts one to break a deadlock (against an optimistic
 * attempt, whose foreign-key share lock and balance update take an account row in another order),
 * before the request fails as busy (503 with Retry-After): the aborted transaction wrote nothing,
 * so it is simply made again.
 */
const DEADLOCK_RETRIES = 2;

/**
 * A locked attempt of a group of several accounts takes their rows up front, in id order: two
 * groups then never hold one account each while waiting for the other's (each request's own
 * `FOR UPDATE` finds its row already held).
 */
async function lockAccounts(client: pg.PoolClient, x: string, batches: readonly IngestBatch[]): Promise<void> {
  const accounts = [...new Set(batches.map((b) => b.accountId))];
  if (accounts.length < 2) return;
  // Rows are locked as the sorted scan returns them.
  await run(client, `SELECT id FROM ${x}accounts WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`, [accounts]);
}

/** Creates the `ingest` (one transaction per request) and `ingestMany` operations of the message store. */
export function createIngest(pool: pg.Pool, x: string) {
  const sequenceOf = sequenceOnce(x);
  /** The batches in order in one transaction: optimistic first, locked if that one cannot decide. */
  const write = async (batches: IngestBatch[]): Promise<IngestResult[]> => {
    const attempt = (locked: boolean) =>
      transaction(pool, async (client) => {
        if (locked) await lockAccounts(client, x, batches);
        const results: IngestResult[] = [];
        for (const batch of batches) results.push(await ingestIn(client, x, sequenceOf, batch, locked));
        return results;
      });
    try {
      return await attempt(false);
    } catch (error) {
      if (!lockedDecides(error)) throw error;
    }
    for (let retry = 0; ; retry++) {
      try {
        return await attempt(true);
      } catch (error) {
        if (!isDeadlock(error) || retry >= DEADLOCK_RETRIES) throw error;
      }
    }
  };
  return {
    ingest: async (batch: IngestBatch): Promise<IngestResult> => (await write([batch]))[0]!,
    /** Requests that arrived together, in one transaction (one commit), each decided in order. */
    ingestMany: write,
  };
}
