import type Database from 'better-sqlite3';
import { apiKeyFromRow } from '@spillway/core/storage';
import type { ClientStorage, WalletTransaction } from '@spillway/core';
import type { ApiKeyRow, LinkedClientRecord, NewLinkedClient } from '@spillway/core/storage';
import { alphaNameList } from './alpha-name-list.ts';
import { toAccount, toAlphaName } from './rows.ts';
import type { SqliteAccountRow, SqliteAlphaNameRow } from './rows.ts';
import { conflictOnUnique, lazy } from './sqlite-util.ts';
import { walletMove } from './wallet-move.ts';

/** Thrown inside the transaction to roll the client back when the opening balance is not covered. */
const NOT_COVERED = Symbol('not covered');

/** `ClientStorage.createLinkedClient` over one better-sqlite3 handle: the client whole in one transaction. */
export function createLinkedClientCreation(db: Database.Database): ClientStorage['createLinkedClient'] {
  const st = lazy(() => ({
    account: db.prepare<[string, string, string, string, number], SqliteAccountRow>(
      `INSERT INTO accounts (login, name, password_hash, currency, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *`,
    ),
    link: db.prepare<[number, number, string, string | null, number]>(
      'INSERT INTO client_links (child_id, parent_id, kind, referral_id, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    alphaName: db.prepare<[number, string, string], SqliteAlphaNameRow>(
      `INSERT INTO alpha_names (account_id, name, channels) VALUES (?, ?, ?)
       ON CONFLICT (account_id, name) DO UPDATE SET channels = excluded.channels RETURNING *`,
    ),
    key: db.prepare<[number, string, string, string, number], ApiKeyRow>(
      `INSERT INTO api_keys (account_id, key_hash, prefix, label, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *`,
    ),
  }));
  const move = walletMove(db);
  const list = alphaNameList(db);

  // IMMEDIATE: the write lock is held from the login's insert to the debit of the opening balance.
  const createTx = db.transaction((c: NewLinkedClient, at: number): LinkedClientRecord => {
    const s = st();
    const { login, name, passwordHash, currency } = c.account;
    const account = toAccount(conflictOnUnique(() => s.account.get(login, name, passwordHash, currency, at)!, `login ${login} is taken`));
    const link = { ...c.link, childId: account.id };
    conflictOnUnique(
      () => s.link.run(link.childId, link.parentId, link.kind, link.referralId, link.createdAt),
      'the client is linked already, or the referral id is taken',
    );
    const alphaNames = c.alphaNames.map((a) => toAlphaName(s.alphaName.get(account.id, a.name, JSON.stringify(a.channels))!));
    const apiKey = c.apiKey
      ? apiKeyFromRow(
          conflictOnUnique(
            () => s.key.get(account.id, c.apiKey!.keyHash, c.apiKey!.prefix, c.apiKey!.label, at)!,
            'this API key is already registered',
          ),
        )
      : null;
    let opening: [WalletTransaction, WalletTransaction] | null = null;
    if (c.opening) {
      const taken = move(c.opening.debit, at, true);
      if (!taken) throw NOT_COVERED;
      opening = [taken, move({ ...c.opening.credit, accountId: account.id }, at, false)!];
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
