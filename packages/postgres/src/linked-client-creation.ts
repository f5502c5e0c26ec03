import type pg from 'pg';
import { accountFromRow, alphaNameFromRow, apiKeyFromRow } from '@spillway/core/storage';
import type { ClientStorage, WalletTransaction } from '@spillway/core';
import type { AccountRow, AlphaNameRow, ApiKeyRow, LinkedClientRecord } from '@spillway/core/storage';
import { alphaNameList } from './alpha-name-list.ts';
import { conflictOnUnique, row, run, transaction } from './pg-util.ts';
import { walletMove } from './wallet-move.ts';

/** Thrown inside the transaction to roll the client back when the opening balance is not covered. */
const NOT_COVERED = Symbol('not covered');

/** `ClientStorage.createLinkedClient` over a pg pool, in the tables of `x` (the schema prefix): the client whole in one transaction. */
export function createLinkedClientCreation(pool: pg.Pool, x: string): ClientStorage['createLinkedClient'] {
  const move = walletMove(pool, x);
  const list = alphaNameList(pool, x);

  return async (c, at) => {
    try {
      return await transaction(pool, async (client): Promise<LinkedClientRecord> => {
        // A login inserted by a transaction still open (another provision of it) makes this insert
        // wait for it: taken when it commits, free when it rolls back.
        const { login, name, passwordHash, currency } = c.account;
        const account = accountFromRow(
          (await conflictOnUnique(
            () =>
              row<AccountRow>(
                client,
                `INSERT INTO ${x}accounts (login, name, password_hash, currency, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
                [login, name, passwordHash, currency, at],
              ),
            `login ${login} is taken`,
          ))!,
        );
        const link = { ...c.link, childId: account.id };
        await conflictOnUnique(
          () =>
            run(client, `INSERT INTO ${x}client_links (child_id, parent_id, kind, referral_id, created_at) VALUES ($1, $2, $3, $4, $5)`, [
              link.childId,
              link.parentId,
              link.kind,
              link.referralId,
              link.createdAt,
            ]),
          'the client is linked already, or the referral id is taken',
        );
        const alphaNames = [];
        for (const a of c.alphaNames) {
          const stored = await row<AlphaNameRow>(
            client,
            `INSERT INTO ${x}alpha_names (account_id, name, channels) VALUES ($1, $2, $3::jsonb)
             ON CONFLICT (account_id, name) DO UPDATE SET channels = excluded.channels RETURNING *`,
            [account.id, a.name, JSON.stringify(a.channels)],
          );
          alphaNames.push(alphaNameFromRow(stored!));
        }
        const key = c.apiKey;
        const apiKey = key
          ? apiKeyFromRow(
              (await conflictOnUnique(
                () =>
                  row<ApiKeyRow>(
                    client,
                    `INSERT INTO ${x}api_keys (account_id, key_hash, prefix, label, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
                    [account.id, key.keyHash, key.prefix, key.label, at],
                  ),
                'this API key is already registered',
              ))!,
            )
          : null;
        // The paying wallet last: its row stays locked only for the two moves and the commit.
        let opening: [WalletTransaction, WalletTransaction] | null = null;
        if (c.opening) {
          const taken = await move(c.opening.debit, at, true, client);
          if (!taken) throw NOT_COVERED;
          opening = [taken, (await move({ ...c.opening.credit, accountId: account.id }, at, false, client))!];
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
