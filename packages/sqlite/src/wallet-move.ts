import type Database from 'better-sqlite3';
import { SpillwayError } from '@spillway/core';
import { walletTransactionFromRow } from '@spillway/core/storage';
import type { WalletTransaction } from '@spillway/core';
import type { NewWalletTransaction, WalletTransactionRow } from '@spillway/core/storage';
import { lazy } from './sqlite-util.ts';

/**
 * Moves an account's balance and records the wallet transaction, for the caller's transaction
 * (the account store's charges and transfers, the client store's keyed transfers). With
 * `requireCover` only while the balance covers it (null otherwise); a missing account is `not_found`.
 */
export type WalletMove = (tx: NewWalletTransaction, at: number, requireCover: boolean) => WalletTransaction | null;

/** The {@link WalletMove} over one better-sqlite3 handle; run it inside a transaction of that handle. */
export function walletMove(db: Database.Database): WalletMove {
  // Prepared on first use: the tables exist only once migrate() has run.
  const st = lazy(() => ({
    balance: db.prepare<[number], { balance: number }>(`SELECT balance FROM accounts WHERE id = ?`),
    moveBalance: db.prepare<[number, number], { balance: number }>(
      `UPDATE accounts SET balance = balance + ? WHERE id = ? RETURNING balance`,
    ),
    // The balance covers the charge exactly when it does not go below zero.
    moveBalanceIfCovered: db.prepare<[number, number, number], { balance: number }>(
      `UPDATE accounts SET balance = balance + ? WHERE id = ? AND balance + ? >= 0 RETURNING balance`,
    ),
    insertTransaction: db.prepare<[number, string, number, number, number | null, string, number | null, number], WalletTransactionRow>(
      `INSERT INTO wallet_transactions (account_id, kind, amount, balance_after, message_id, description, counterpart_account_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
  }));
  return (tx, at, requireCover) => {
    const s = st();
    const moved = requireCover
      ? s.moveBalanceIfCovered.get(tx.amount, tx.accountId, tx.amount)
      : s.moveBalance.get(tx.amount, tx.accountId);
    if (!moved) {
      if (requireCover && s.balance.get(tx.accountId)) return null;
      throw new SpillwayError('not_found', `account ${tx.accountId} does not exist`);
    }
    const row = s.insertTransaction.get(
      tx.accountId,
      tx.kind,
      tx.amount,
      moved.balance,
      tx.messageId,
      tx.description,
      tx.counterpartAccountId ?? null,
      at,
    );
    return walletTransactionFromRow(row!);
  };
}
