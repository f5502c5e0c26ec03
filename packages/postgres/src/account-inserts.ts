import type pg from 'pg';
import { accountFromRow, alphaNameFromRow, apiKeyFromRow, loginKey } from '@spillway/core/storage';
import type { Account, AlphaName, ApiKey, ChannelId, ClientLink } from '@spillway/core';
import type { AccountRow, AlphaNameRow, ApiKeyRow, NewAccount } from '@spillway/core/storage';
import { conflictOnUnique, row, run, type Queryable } from './pg-util.ts';

/**
 * The rows of an account and what belongs to it, each insert written once for the account store,
 * the client store and `createLinkedClient` (which writes them all in one transaction), on `db`
 * (the pool, or the client of the caller's transaction). A unique violation is a `conflict` with
 * the message of the storage port.
 */
export interface AccountInserts {
  /** A new account; a taken login, in any case, is a `conflict`. */
  account(input: NewAccount, at: number, db?: Queryable): Promise<Account>;
  /** A new API key of the account; a registered key is a `conflict`. */
  apiKey(input: { accountId: number; keyHash: string; prefix: string; label: string }, at: number, db?: Queryable): Promise<ApiKey>;
  /** Creates the alpha-name or replaces its channels. */
  alphaName(input: { accountId: number; name: string; channels: readonly ChannelId[] }, db?: Queryable): Promise<AlphaName>;
  /** Links the child to its parent; a linked child or a taken referral id is a `conflict`. */
  link(link: ClientLink, db?: Queryable): Promise<ClientLink>;
}

/** The {@link AccountInserts} in the tables of `x` (the schema prefix). */
export function accountInserts(pool: pg.Pool, x: string): AccountInserts {
  /** The inserted row; a unique violation is a `conflict` saying `taken`. */
  const insertRow = async <R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[], taken: string): Promise<R> =>
    (await conflictOnUnique(() => row<R>(db, text, values), taken))!;
  return {
    async account(a, at, db = pool) {
      const created = await insertRow<AccountRow>(
        db,
        `INSERT INTO ${x}accounts (login, login_key, name, password_hash, currency, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [a.login, loginKey(a.login), a.name, a.passwordHash, a.currency, at],
        // The same login, or one that differs by case only (the unique login_key).
        `login ${a.login} is taken`,
      );
      return accountFromRow(created);
    },
    async apiKey(k, at, db = pool) {
      const created = await insertRow<ApiKeyRow>(
        db,
        `INSERT INTO ${x}api_keys (account_id, key_hash, prefix, label, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [k.accountId, k.keyHash, k.prefix, k.label, at],
        'this API key is already registered',
      );
      return apiKeyFromRow(created);
    },
    async alphaName(a, db = pool) {
      const upserted = await row<AlphaNameRow>(
        db,
        `INSERT INTO ${x}alpha_names (account_id, name, channels) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (account_id, name) DO UPDATE SET channels = excluded.channels RETURNING *`,
        [a.accountId, a.name, JSON.stringify(a.channels)],
      );
      return alphaNameFromRow(upserted!);
    },
    async link(l, db = pool) {
      await conflictOnUnique(
        () =>
          run(db, `INSERT INTO ${x}client_links (child_id, parent_id, kind, referral_id, created_at) VALUES ($1, $2, $3, $4, $5)`, [
            l.childId,
            l.parentId,
            l.kind,
            l.referralId,
            l.createdAt,
          ]),
        'the client is linked already, or the referral id is taken',
      );
      return l;
    },
  };
}
