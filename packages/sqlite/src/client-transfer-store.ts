import type Database from 'better-sqlite3';
import { clientTransferFromRow } from '@spillway/core/storage';
import type { ClientStorage, ClientTransferRecord } from '@spillway/core';
import type { ClientTransferRow, NewClientTransfer, NewWalletTransaction } from '@spillway/core/storage';
import { lazy } from './sqlite-util.ts';
import { walletMove } from './wallet-move.ts';

/**
 * The moves between a parent and its sub-client made under an idempotency key of the parent: one
 * row per key, written in the transaction that moves the money (appended to the storage's migrations).
 */
export const CLIENT_TRANSFERS_MIGRATION = `
  CREATE TABLE client_transfers (
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    idempotency_key TEXT NOT NULL,
    client_id       INTEGER NOT NULL REFERENCES accounts(id),
    direction       TEXT NOT NULL,
    amount          INTEGER NOT NULL,
    balance         INTEGER NOT NULL,
    client_balance  INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (account_id, idempotency_key)
  ) WITHOUT ROWID;
`;

/** The index the pruning of old keys (`pruneClientTransfers`) reads (appended to the storage's migrations). */
export const CLIENT_TRANSFERS_CREATED_MIGRATION = `CREATE INDEX client_transfers_created ON client_transfers(created_at);`;

/** `ClientStorage.transferBalanceOnce` and `pruneClientTransfers` over one better-sqlite3 handle. */
export function createClientTransferStore(db: Database.Database): Pick<ClientStorage, 'transferBalanceOnce' | 'pruneClientTransfers'> {
  const st = lazy(() => ({
    select: db.prepare<[number, string], ClientTransferRow>('SELECT * FROM client_transfers WHERE account_id = ? AND idempotency_key = ?'),
    insert: db.prepare<[number, string, number, string, number, number, number, number], ClientTransferRow>(
      `INSERT INTO client_transfers (account_id, idempotency_key, client_id, direction, amount, balance, client_balance, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    prune: db.prepare<[number]>('DELETE FROM client_transfers WHERE created_at < ?'),
  }));
  const move = walletMove(db);
  // IMMEDIATE: the key is looked up under the write lock, so a second process with the same key
  // waits for this transaction and then finds its row.
  const transferTx = db.transaction(
    (
      t: NewClientTransfer,
      debit: NewWalletTransaction,
      credit: NewWalletTransaction,
      at: number,
    ): { transfer: ClientTransferRecord; replayed: boolean } | null => {
      const known = st().select.get(t.accountId, t.idempotencyKey);
      if (known) return { transfer: clientTransferFromRow(known), replayed: true };
      // Each row names the other's account.
      const taken = move({ ...debit, counterpartAccountId: credit.accountId }, at, true);
      if (!taken) return null;
      const given = move({ ...credit, counterpartAccountId: debit.accountId }, at, false)!;
      const [mine, theirs] = taken.accountId === t.accountId ? [taken, given] : [given, taken];
      const row = st().insert.get(
        t.accountId,
        t.idempotencyKey,
        t.clientId,
        t.direction,
        t.amount,
        mine.balanceAfter,
        theirs.balanceAfter,
        at,
      );
      return { transfer: clientTransferFromRow(row!), replayed: false };
    },
  );
  return {
    transferBalanceOnce: async (transfer, debit, credit, at) => transferTx.immediate(transfer, debit, credit, at),
    pruneClientTransfers: async (before) => st().prune.run(before).changes,
  };
}
