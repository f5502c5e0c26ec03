import type Database from 'better-sqlite3';
import type { ClientStorage, WalletTransaction } from '@spillway/core';
import { clientProvisionRecord } from '@spillway/core/storage';
import type { LinkedClientRecord, NewLinkedClient } from '@spillway/core/storage';
import { accountInserts } from './account-inserts.ts';
import { alphaNameList } from './alpha-name-list.ts';
import { clientProvisionInsert } from './client-provision-store.ts';
import { walletMove } from './wallet-move.ts';

/** Thrown inside the transaction to roll the client back when the opening balance is not covered. */
const NOT_COVERED = Symbol('not covered');

/** `ClientStorage.createLinkedClient` over one better-sqlite3 handle: the client whole in one transaction. */
export function createLinkedClientCreation(db: Database.Database): ClientStorage['createLinkedClient'] {
  const insert = accountInserts(db);
  const move = walletMove(db);
  const list = alphaNameList(db);
  const record = clientProvisionInsert(db);

  // IMMEDIATE: the write lock is held from the login's insert to the debit of the opening balance.
  const createTx = db.transaction((c: NewLinkedClient, at: number): LinkedClientRecord => {
    const account = insert.account(c.account, at);
    const link = insert.link({ ...c.link, childId: account.id });
    const alphaNames = c.alphaNames.map((a) => insert.alphaName({ ...a, accountId: account.id }));
    const apiKey = c.apiKey ? insert.apiKey({ ...c.apiKey, accountId: account.id }, at) : null;
    let opening: [WalletTransaction, WalletTransaction] | null = null;
    if (c.opening) {
      // Each row names the other's account.
      const { debit, credit } = c.opening;
      const taken = move({ ...debit, counterpartAccountId: account.id }, at, true);
      if (!taken) throw NOT_COVERED;
      opening = [taken, move({ ...credit, accountId: account.id, counterpartAccountId: debit.accountId }, at, false)!];
    }
    // The parent's key last, with what was written: a key recorded already rolls all of it back.
    if (c.idempotencyKey) {
      record(clientProvisionRecord({ ...c, idempotencyKey: c.idempotencyKey }, account, apiKey?.id ?? null, at));
    }
    return { account, link, alphaNames, apiKey, opening };
  });

  return async (client, at) => {
    try {
      return createTx.immediate(client, at);
    } catch (error) {
      if (error === NOT_COVERED) return null;
      throw error;
    } finally {
      // Sends read the list through the memo: the new account's names are read from the next read on.
      list.clear();
    }
  };
}
