import type pg from 'pg';
import type { ClientStorage, WalletTransaction } from '@spillway/core';
import { clientProvisionRecord } from '@spillway/core/storage';
import type { LinkedClientRecord } from '@spillway/core/storage';
import { accountInserts } from './account-inserts.ts';
import { alphaNameList } from './alpha-name-list.ts';
import { clientProvisionInsert } from './client-provision-store.ts';
import { transaction } from './pg-util.ts';
import { walletMove } from './wallet-move.ts';

/** Thrown inside the transaction to roll the client back when the opening balance is not covered. */
const NOT_COVERED = Symbol('not covered');

/** `ClientStorage.createLinkedClient` over a pg pool, in the tables of `x` (the schema prefix): the client whole in one transaction. */
export function createLinkedClientCreation(pool: pg.Pool, x: string): ClientStorage['createLinkedClient'] {
  const insert = accountInserts(pool, x);
  const move = walletMove(pool, x);
  const list = alphaNameList(pool, x);
  const record = clientProvisionInsert(x);

  return async (c, at) => {
    try {
      return await transaction(pool, async (client): Promise<LinkedClientRecord> => {
        // A login inserted by a transaction still open (another provision of it) makes this insert
        // wait for it: taken when it commits, free when it rolls back.
        const account = await insert.account(c.account, at, client);
        const link = await insert.link({ ...c.link, childId: account.id }, client);
        const alphaNames = [];
        for (const a of c.alphaNames) alphaNames.push(await insert.alphaName({ ...a, accountId: account.id }, client));
        const apiKey = c.apiKey ? await insert.apiKey({ ...c.apiKey, accountId: account.id }, at, client) : null;
        // The paying wallet last: its row stays locked only for the two moves and the commit.
        let opening: [WalletTransaction, WalletTransaction] | null = null;
        if (c.opening) {
          // Each row names the other's account.
          const { debit, credit } = c.opening;
          const taken = await move({ ...debit, counterpartAccountId: account.id }, at, true, client);
          if (!taken) throw NOT_COVERED;
          opening = [taken, (await move({ ...credit, accountId: account.id, counterpartAccountId: debit.accountId }, at, false, client))!];
        }
        // The parent's key last, with what was written: a key another transaction recorded rolls
        // all of it back, and one it is recording makes this insert wait for its end.
        if (c.idempotencyKey) {
          await record(clientProvisionRecord({ ...c, idempotencyKey: c.idempotencyKey }, account, apiKey?.id ?? null, at), client);
        }
        return { account, link, alphaNames, apiKey, opening };
      });
    } catch (error) {
      if (error === NOT_COVERED) return null;
      throw error;
    } finally {
      // Sends read the list through the memo: the new account's names are read from the next read on.
      list.clear();
    }
  };
}
