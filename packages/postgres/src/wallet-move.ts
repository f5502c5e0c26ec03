import type pg from 'pg';
import { SpillwayError } from '@spillway/core';
import { walletTransactionFromRow } from '@spillway/core/storage';
import type { WalletTransaction } from '@spillway/core';
import type { NewWalletTransaction, WalletTransactionRow } from '@spillway/core/storage';
import { row, rows, type Queryable } from './pg-util.ts';

/**
 * Moves an account's balance and records the wallet transaction on `db` (the pool, or the client
 * of the caller's transaction). With `requireCover` only while the balance covers it (null
 * otherwise); a missing account is `not_found`.
 */
export type WalletMove = (tx: NewWalletTransaction, at: number, requireCover: boolean, db?: Queryable) => Promise<WalletTransaction | null>;

/** The {@link WalletMove} in the tables of `x` (the schema prefix). */
export function walletMove(pool: pg.Pool, x: string): WalletMove {
  /**
   * Moves the balance and records the transaction in one statement, so that it is atomic without
   * an explicit transaction; with `requireCover` the UPDATE only matches while the balance covers
   * the charge, which makes concurrent charges safe (the row lock serialises them).
   */
  return async (tx, at, requireCover, db = pool) => {
    const inserted = await row<WalletTransactionRow>(
      db,
      `WITH moved AS (
         UPDATE ${x}accounts SET balance = balance + $3 WHERE id = $1 ${requireCover ? 'AND balance + $3 >= 0' : ''} RETURNING balance
       )
       INSERT INTO ${x}wallet_transactions (account_id, kind, amount, balance_after, message_id, description, counterpart_account_id, created_at)
       SELECT $1, $2, $3, moved.balance, $4, $5, $6, $7 FROM moved RETURNING *`,
      [tx.accountId, tx.kind, tx.amount, tx.messageId, tx.description, tx.counterpartAccountId ?? null, at],
    );
    if (inserted) return walletTransactionFromRow(inserted);
    if (requireCover && (await row(db, `SELECT 1 FROM ${x}accounts WHERE id = $1`, [tx.accountId]))) return null;
    throw new SpillwayError('not_found', `account ${tx.accountId} does not exist`);
  };
}

/**
 * Locks the wallets of `accountIds` in id order, for a transaction that moves money between them:
 * moves either way between the same two accounts then wait for each other instead of each taking
 * one row and waiting for the other's (a deadlock). NO KEY UPDATE, the lock the balance UPDATE
 * takes: FOR UPDATE would also wait on the key-share locks of foreign keys to the accounts.
 */
export async function lockWallets(db: Queryable, x: string, accountIds: number[]): Promise<void> {
  await rows(db, `SELECT id FROM ${x}accounts WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE`, [accountIds]);
}
