import type pg from 'pg';
import { SpillwayError } from '@spillway/core';
import { accountFromRow, alphaNameFromRow, apiKeyFromRow, loginKey, walletTransactionFromRow } from '@spillway/core/storage';
import type { AccountStorage, WalletTransaction } from '@spillway/core';
import type { AccountRow, AlphaNameRow, ApiKeyRow, WalletTransactionRow } from '@spillway/core/storage';
import { accountInserts } from './account-inserts.ts';
import { alphaNameList } from './alpha-name-list.ts';
import { CREDENTIAL_REVISION_KEY, bumpRevisionCte, credentialRevisionReader } from './credential-revision.ts';
import { row, rows, run, transaction } from './pg-util.ts';
import { lockWallets, walletMove } from './wallet-move.ts';

/** Accounts, keys, alpha-names, wallets and settings over a pg pool, in the tables of `x` (the schema prefix). */
export function createAccountStore(pool: pg.Pool, x: string): AccountStorage {
  const revision = credentialRevisionReader(pool, x);
  // Every send reads its account's alpha-names: the sends handled in one turn share one query.
  const alphaNames = alphaNameList(pool, x);
  const addTransaction = walletMove(pool, x);
  const insert = accountInserts(pool, x);

  return {
    async createAccount(input, at) {
      return insert.account(input, at);
    },
    async getAccount(id) {
      const found = await row<AccountRow>(pool, `SELECT * FROM ${x}accounts WHERE id = $1`, [id]);
      return found ? accountFromRow(found) : null;
    },
    async findAccountByLogin(login) {
      // The login as spelt, or else one that differs by case only: two rows only where logins that
      // differ by case were kept from before they were one (login-keys.ts), and then the exact one wins.
      const found = await row<AccountRow>(
        pool,
        `SELECT * FROM ${x}accounts WHERE login = $1 OR login_key = $2 ORDER BY login = $1 DESC LIMIT 1`,
        [login, loginKey(login)],
      );
      return found ? { account: accountFromRow(found), passwordHash: found.password_hash } : null;
    },
    async setPasswordHash(accountId, passwordHash) {
      await run(
        pool,
        `WITH changed AS (UPDATE ${x}accounts SET password_hash = $1 WHERE id = $2 RETURNING id), ${bumpRevisionCte(x, 'changed')}
         SELECT 1`,
        [passwordHash, accountId],
      );
      revision.clear();
    },
    async setRateLimit(accountId, category, limit) {
      // One statement edits the JSONB in place: no read-modify-write race between processes.
      // Authentication caches keep the account with its limits: the same statement bumps the revision.
      const changed = await rows(
        pool,
        `WITH changed AS (
           UPDATE ${x}accounts SET rate_limits = CASE WHEN $3::jsonb IS NULL THEN rate_limits - $2::text
             ELSE rate_limits || jsonb_build_object($2::text, $3::jsonb) END
           WHERE id = $1 RETURNING id
         ), ${bumpRevisionCte(x, 'changed')}
         SELECT id FROM changed`,
        [accountId, category, limit ? JSON.stringify({ perSecond: limit.perSecond, burst: limit.burst }) : null],
      );
      revision.clear();
      if (changed.length === 0) throw new SpillwayError('not_found', `account ${accountId} does not exist`);
    },

    async createApiKey(input, at) {
      return insert.apiKey(input, at);
    },
    async findAccountByKeyHash(keyHash) {
      const found = await row<AccountRow>(
        pool,
        `SELECT a.* FROM ${x}api_keys k JOIN ${x}accounts a ON a.id = k.account_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        [keyHash],
      );
      return found ? accountFromRow(found) : null;
    },
    async listApiKeys(accountId) {
      return (
        await rows<ApiKeyRow>(pool, `SELECT * FROM ${x}api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id`, [accountId])
      ).map(apiKeyFromRow);
    },
    async revokeApiKey(accountId, keyId) {
      // The storage has no clock; the revocation time only documents the row.
      const revoked = await row<{ n: number }>(
        pool,
        `WITH changed AS (
           UPDATE ${x}api_keys SET revoked_at = $1 WHERE account_id = $2 AND id = $3 AND revoked_at IS NULL RETURNING id
         ), ${bumpRevisionCte(x, 'changed')}
         SELECT count(*)::int AS n FROM changed`,
        [Date.now(), accountId, keyId],
      );
      revision.clear();
      return (revoked?.n ?? 0) > 0;
    },
    async credentialRevision() {
      return revision.get(CREDENTIAL_REVISION_KEY);
    },

    async upsertAlphaName(input) {
      const upserted = await insert.alphaName(input);
      alphaNames.clear();
      return upserted;
    },
    async getAlphaName(accountId, name) {
      const found = await row<AlphaNameRow>(pool, `SELECT * FROM ${x}alpha_names WHERE account_id = $1 AND name = $2`, [accountId, name]);
      return found ? alphaNameFromRow(found) : null;
    },
    async listAlphaNames(accountId) {
      return (await alphaNames.get(accountId)).map(alphaNameFromRow);
    },
    async setAlphaNameCallback(accountId, name, url) {
      const updated = await row<AlphaNameRow>(
        pool,
        `UPDATE ${x}alpha_names SET callback_url = $1 WHERE account_id = $2 AND name = $3 RETURNING *`,
        [url, accountId, name],
      );
      alphaNames.clear();
      return updated ? alphaNameFromRow(updated) : null;
    },

    async getBalance(accountId) {
      return (await row<{ balance: number }>(pool, `SELECT balance FROM ${x}accounts WHERE id = $1`, [accountId]))?.balance ?? 0;
    },
    async addWalletTransaction(tx, at) {
      return (await addTransaction(tx, at, false))!;
    },
    async tryCharge(tx, at) {
      return addTransaction(tx, at, true);
    },
    async topUpTo(tx, target, at) {
      return transaction(pool, async (client) => {
        // The account's row stays locked from this read to the commit: a concurrent top-up waits, then reads the new balance.
        const found = await row<{ balance: number }>(client, `SELECT balance FROM ${x}accounts WHERE id = $1 FOR UPDATE`, [tx.accountId]);
        if (!found) throw new SpillwayError('not_found', `account ${tx.accountId} does not exist`);
        return found.balance < target ? addTransaction({ ...tx, amount: target - found.balance }, at, false, client) : null;
      });
    },
    async transferBalance(debit, credit, at) {
      return transaction(pool, async (client): Promise<[WalletTransaction, WalletTransaction] | null> => {
        await lockWallets(client, x, [debit.accountId, credit.accountId]);
        // Each row names the other's account.
        const taken = await addTransaction({ ...debit, counterpartAccountId: credit.accountId }, at, true, client);
        return taken ? [taken, (await addTransaction({ ...credit, counterpartAccountId: debit.accountId }, at, false, client))!] : null;
      });
    },
    async listWalletTransactions(accountId, query) {
      const kinds = query.kinds && query.kinds.length > 0 ? query.kinds : null;
      const pageSize = Math.max(1, Math.floor(query.pageSize));
      const offset = (Math.max(1, Math.floor(query.page)) - 1) * pageSize;
      const where = `account_id = $1 AND ($2::text[] IS NULL OR kind = ANY($2::text[]))`;
      // One snapshot, so that the page and the total agree.
      return transaction(
        pool,
        async (client) => ({
          items: (
            await rows<WalletTransactionRow>(
              client,
              `SELECT * FROM ${x}wallet_transactions WHERE ${where} ORDER BY id DESC LIMIT $3 OFFSET $4`,
              [accountId, kinds, pageSize, offset],
            )
          ).map(walletTransactionFromRow),
          total: (await row<{ total: number }>(client, `SELECT COUNT(*) AS total FROM ${x}wallet_transactions WHERE ${where}`, [
            accountId,
            kinds,
          ]))!.total,
        }),
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      );
    },

    async getSetting(key) {
      return (await row<{ value: string }>(pool, `SELECT value FROM ${x}settings WHERE key = $1`, [key]))?.value ?? null;
    },
    async setSettingIfAbsent(key, value) {
      await run(pool, `INSERT INTO ${x}settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, value]);
      // A separate statement: its snapshot sees the row, whichever process inserted it.
      return (await row<{ value: string }>(pool, `SELECT value FROM ${x}settings WHERE key = $1`, [key]))!.value;
    },
    async setSetting(key, value) {
      await run(pool, `INSERT INTO ${x}settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
        key,
        value,
      ]);
    },
  };
}
