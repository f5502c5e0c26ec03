import type Database from 'better-sqlite3';
import { apiKeyFromRow, loginKey } from '@spillway/core/storage';
import type { Account, AlphaName, ApiKey, ChannelId, ClientLink } from '@spillway/core';
import type { ApiKeyRow, NewAccount } from '@spillway/core/storage';
import { toAccount, toAlphaName } from './rows.ts';
import type { SqliteAccountRow, SqliteAlphaNameRow } from './rows.ts';
import { conflictOnUnique, lazy } from './sqlite-util.ts';

/**
 * The rows of an account and what belongs to it, each insert written once for the account store,
 * the client store and `createLinkedClient` (which writes them all in one transaction). Each runs
 * alone or inside a transaction of the handle; a UNIQUE violation is a `conflict` with the
 * message of the storage port.
 */
export interface AccountInserts {
  /** A new account; a taken login, in any case, is a `conflict`. */
  account(input: NewAccount, at: number): Account;
  /** A new API key of the account; a registered key is a `conflict`. */
  apiKey(input: { accountId: number; keyHash: string; prefix: string; label: string }, at: number): ApiKey;
  /** Creates the alpha-name or replaces its channels. */
  alphaName(input: { accountId: number; name: string; channels: readonly ChannelId[] }): AlphaName;
  /** Links the child to its parent; a linked child or a taken referral id is a `conflict`. */
  link(link: ClientLink): ClientLink;
}

/** The {@link AccountInserts} over one better-sqlite3 handle. */
export function accountInserts(db: Database.Database): AccountInserts {
  // Prepared on first use: the tables exist only once migrate() has run.
  const st = lazy(() => ({
    account: db.prepare<[string, string, string, string, string, number], SqliteAccountRow>(
      `INSERT INTO accounts (login, login_key, name, password_hash, currency, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
    ),
    apiKey: db.prepare<[number, string, string, string, number], ApiKeyRow>(
      `INSERT INTO api_keys (account_id, key_hash, prefix, label, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *`,
    ),
    alphaName: db.prepare<[number, string, string], SqliteAlphaNameRow>(
      `INSERT INTO alpha_names (account_id, name, channels) VALUES (?, ?, ?)
       ON CONFLICT (account_id, name) DO UPDATE SET channels = excluded.channels RETURNING *`,
    ),
    link: db.prepare<[number, number, string, string | null, number]>(
      'INSERT INTO client_links (child_id, parent_id, kind, referral_id, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
  }));
  return {
    account: (a, at) =>
      toAccount(
        conflictOnUnique(
          () => st().account.get(a.login, loginKey(a.login), a.name, a.passwordHash, a.currency, at)!,
          // The same login, or one that differs by case only (the unique login_key).
          `login ${a.login} is taken`,
        ),
      ),
    apiKey: (k, at) =>
      apiKeyFromRow(
        conflictOnUnique(() => st().apiKey.get(k.accountId, k.keyHash, k.prefix, k.label, at)!, 'this API key is already registered'),
      ),
    alphaName: (a) => toAlphaName(st().alphaName.get(a.accountId, a.name, JSON.stringify(a.channels))!),
    link: (l) => {
      conflictOnUnique(
        () => st().link.run(l.childId, l.parentId, l.kind, l.referralId, l.createdAt),
        'the client is linked already, or the referral id is taken',
      );
      return l;
    },
  };
}
