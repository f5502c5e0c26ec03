import type pg from 'pg';
import { clientTransferFromRow } from '@spillway/core/storage';
import type { ClientStorage } from '@spillway/core';
import type { ClientTransferRow } from '@spillway/core/storage';
import { row, rows, run, transaction } from './pg-util.ts';
import { lockWallets, walletMove } from './wallet-move.ts';

/**
 * The moves between a parent and its sub-client made under an idempotency key of the parent: one
 * row per key, written in the transaction that moves the money (appended to the storage's migrations).
 */
export const CLIENT_TRANSFERS_MIGRATION = `
  CREATE TABLE client_transfers (
    account_id      BIGINT NOT NULL REFERENCES accounts(id),
    idempotency_key TEXT NOT NULL,
    client_id       BIGINT NOT NULL REFERENCES accounts(id),
    direction       TEXT NOT NULL,
    amount          BIGINT NOT NULL,
    balance         BIGINT NOT NULL,
    client_balance  BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (account_id, idempotency_key)
  );
`;

/** Thrown inside the transaction to roll the key's row back when the debit is not covered. */
const NOT_COVERED = Symbol('not covered');

/** The index the pruning of old keys (`pruneClientTransfers`) reads (appended to the storage's migrations). */
export const CLIENT_TRANSFERS_CREATED_MIGRATION = `CREATE INDEX client_transfers_created ON client_transfers(created_at);`;

/** `ClientStorage.transferBalanceOnce` and `pruneClientTransfers` over a pg pool, in the tables of `x` (the schema prefix). */
export function createClientTransferStore(pool: pg.Pool, x: string): Pick<ClientStorage, 'transferBalanceOnce' | 'pruneClientTransfers'> {
  const move = walletMove(pool, x);
  const transferBalanceOnce: ClientStorage['transferBalanceOnce'] = async (t, debit, credit, at) => {
    try {
      return await transaction(pool, async (client) => {
        // The key first: a transaction holding it makes another with the same key (any process)
        // wait here until it commits (then DO NOTHING) or rolls back (then it inserts).
        const claimed = await rows(
          client,
          `INSERT INTO ${x}client_transfers (account_id, idempotency_key, client_id, direction, amount, balance, client_balance, created_at)
           VALUES ($1, $2, $3, $4, $5, 0, 0, $6) ON CONFLICT (account_id, idempotency_key) DO NOTHING RETURNING account_id`,
          [t.accountId, t.idempotencyKey, t.clientId, t.direction, t.amount, at],
        );
        if (claimed.length === 0) {
          // A new statement of READ COMMITTED: it sees the row the other transaction committed.
          const known = await row<ClientTransferRow>(
            client,
            `SELECT * FROM ${x}client_transfers WHERE account_id = $1 AND idempotency_key = $2`,
            [t.accountId, t.idempotencyKey],
          );
          if (!known) throw new Error(`client transfer key of account ${t.accountId} conflicted but is not there`);
          return { transfer: clientTransferFromRow(known), replayed: true };
        }
        await lockWallets(client, x, [debit.accountId, credit.accountId]);
        // Each row names the other's account.
        const taken = await move({ ...debit, counterpartAccountId: credit.accountId }, at, true, client);
        if (!taken) throw NOT_COVERED;
        const given = (await move({ ...credit, counterpartAccountId: debit.accountId }, at, false, client))!;
        const [mine, theirs] = taken.accountId === t.accountId ? [taken, given] : [given, taken];
        const recorded = await row<ClientTransferRow>(
          client,
          `UPDATE ${x}client_transfers SET balance = $3, client_balance = $4 WHERE account_id = $1 AND idempotency_key = $2 RETURNING *`,
          [t.accountId, t.idempotencyKey, mine.balanceAfter, theirs.balanceAfter],
        );
        return { transfer: clientTransferFromRow(recorded!), replayed: false };
      });
    } catch (error) {
      if (error === NOT_COVERED) return null;
      throw error;
    }
  };
  return {
    transferBalanceOnce,
    // Its own statement, outside any transfer's transaction: transfers of other accounts never wait for it.
    pruneClientTransfers: (before) => run(pool, `DELETE FROM ${x}client_transfers WHERE created_at < $1`, [before]),
  };
}
