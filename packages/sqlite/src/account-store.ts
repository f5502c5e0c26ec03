import type Database from 'better-sqlite3';
import { SpillwayError } from '@spillway/core';
import { apiKeyFromRow, loginKey, walletTransactionFromRow } from '@spillway/core/storage';
import type { AccountStorage, RateLimit, WalletTransaction } from '@spillway/core';
import type { ApiKeyRow, NewWalletTransaction, WalletTransactionRow } from '@spillway/core/storage';
import { toAccount, toAlphaName, type SqliteAccountRow, type SqliteAlphaNameRow } from './rows.ts';
import { accountInserts } from './account-inserts.ts';
import { alphaNameList } from './alpha-name-list.ts';
import { createCredentialRevision } from './credential-revision.ts';
import { lazy } from './sqlite-util.ts';
import { walletMove } from './wallet-move.ts';

function prepare(db: Database.Database) {
  return {
    accountById: db.prepare<[number], SqliteAccountRow>(`SELECT * FROM accounts WHERE id = ?`),
    // The login as spelt, or else one that differs by case only: two rows only where logins that
    // differ by case were kept from before they were one (login-keys.ts), and then the exact one wins.
    accountByLogin: db.prepare<[{ login: string; key: string }], SqliteAccountRow>(
      `SELECT * FROM accounts WHERE login = @login OR login_key = @key ORDER BY login = @login DESC LIMIT 1`,
    ),
    setPasswordHash: db.prepare<[string, number]>(`UPDATE accounts SET password_hash = ? WHERE id = ?`),
    setRateLimits: db.prepare<[string, number]>(`UPDATE accounts SET rate_limits = ? WHERE id = ?`),

    accountByKeyHash: db.prepare<[string], SqliteAccountRow>(
      `SELECT a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    ),
    listKeys: db.prepare<[number], ApiKeyRow>(`SELECT * FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY id`),
    revokeKey: db.prepare<[number, number, number]>(
      `UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND id = ? AND revoked_at IS NULL`,
    ),

    alphaName: db.prepare<[number, string], SqliteAlphaNameRow>(`SELECT * FROM alpha_names WHERE account_id = ? AND name = ?`),
    setCallback: db.prepare<[string | null, number, string], SqliteAlphaNameRow>(
      `UPDATE alpha_names SET callback_url = ? WHERE account_id = ? AND name = ? RETURNING *`,
    ),

    balance: db.prepare<[number], { balance: number }>(`SELECT balance FROM accounts WHERE id = ?`),
    // kinds is a JSON array, or NULL for every kind: one statement for both cases.
    listTransactions: db.prepare<[number, string | null, string | null, number, number], WalletTransactionRow>(
      `SELECT * FROM wallet_transactions
       WHERE account_id = ? AND (? IS NULL OR kind IN (SELECT value FROM json_each(?)))
       ORDER BY id DESC LIMIT ? OFFSET ?`,
    ),
    countTransactions: db.prepare<[number, string | null, string | null], { total: number }>(
      `SELECT COUNT(*) AS total FROM wallet_transactions
       WHERE account_id = ? AND (? IS NULL OR kind IN (SELECT value FROM json_each(?)))`,
    ),

    getSetting: db.prepare<[string], { value: string }>(`SELECT value FROM settings WHERE key = ?`),
    insertSettingIfAbsent: db.prepare<[string, string]>(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`),
    setSetting: db.prepare<[string, string]>(
      `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ),
  };
}

/** Accounts, keys, alpha-names, wallets and settings over one better-sqlite3 handle. */
export function createAccountStore(db: Database.Database): AccountStorage {
  // Prepared on first use: the tables exist only once migrate() has run.
  const st = lazy(() => prepare(db));
  const insert = accountInserts(db);

  const revision = createCredentialRevision(db);
  // Every send reads its account's alpha-names: the sends that arrived together share one read.
  const alphaNames = alphaNameList(db);
  const setPasswordHashTx = db.transaction((passwordHash: string, accountId: number) => {
    if (st().setPasswordHash.run(passwordHash, accountId).changes > 0) revision.bump();
  });
  const revokeKeyTx = db.transaction((accountId: number, keyId: number): boolean => {
    // The storage has no clock; the revocation time only documents the row.
    const revoked = st().revokeKey.run(Date.now(), accountId, keyId).changes > 0;
    if (revoked) revision.bump();
    return revoked;
  });

  const addTransaction = walletMove(db);
  const addTransactionTx = db.transaction(addTransaction);
  // Run with BEGIN IMMEDIATE: the write lock is held from the read of the balance to the credit.
  const topUpToTx = db.transaction((tx: Omit<NewWalletTransaction, 'amount'>, target: number, at: number): WalletTransaction | null => {
    const found = st().balance.get(tx.accountId);
    if (!found) throw new SpillwayError('not_found', `account ${tx.accountId} does not exist`);
    return found.balance < target ? addTransaction({ ...tx, amount: target - found.balance }, at, false) : null;
  });
  const transferTx = db.transaction(
    (debit: NewWalletTransaction, credit: NewWalletTransaction, at: number): [WalletTransaction, WalletTransaction] | null => {
      // Each row names the other's account.
      const taken = addTransaction({ ...debit, counterpartAccountId: credit.accountId }, at, true);
      return taken ? [taken, addTransaction({ ...credit, counterpartAccountId: debit.accountId }, at, false)!] : null;
    },
  );

  const setRateLimitTx = db.transaction((accountId: number, category: string, limit: RateLimit | null) => {
    const row = st().accountById.get(accountId);
    if (!row) throw new SpillwayError('not_found', `account ${accountId} does not exist`);
    const limits = JSON.parse(row.rate_limits) as Record<string, RateLimit>;
    if (limit) limits[category] = { perSecond: limit.perSecond, burst: limit.burst };
    else delete limits[category];
    st().setRateLimits.run(JSON.stringify(limits), accountId);
    // Authentication caches keep the account with its limits: they verify it again.
    revision.bump();
  });

  // One read transaction, so that the page and the total agree.
  const listTransactionsTx = db.transaction((accountId: number, kinds: string | null, pageSize: number, offset: number) => ({
    items: st().listTransactions.all(accountId, kinds, kinds, pageSize, offset).map(walletTransactionFromRow),
    total: st().countTransactions.get(accountId, kinds, kinds)!.total,
  }));

  const setSettingIfAbsentTx = db.transaction((key: string, value: string): string => {
    st().insertSettingIfAbsent.run(key, value);
    return st().getSetting.get(key)!.value;
  });

  return {
    async createAccount(input, at) {
      return insert.account(input, at);
    },
    async getAccount(id) {
      const row = st().accountById.get(id);
      return row ? toAccount(row) : null;
    },
    async findAccountByLogin(login) {
      const row = st().accountByLogin.get({ login, key: loginKey(login) });
      return row ? { account: toAccount(row), passwordHash: row.password_hash } : null;
    },
    async setPasswordHash(accountId, passwordHash) {
      setPasswordHashTx.immediate(passwordHash, accountId);
    },
    async setRateLimit(accountId, category, limit) {
      setRateLimitTx.immediate(accountId, category, limit);
    },

    async createApiKey(input, at) {
      return insert.apiKey(input, at);
    },
    async findAccountByKeyHash(keyHash) {
      const row = st().accountByKeyHash.get(keyHash);
      return row ? toAccount(row) : null;
    },
    async listApiKeys(accountId) {
      return st().listKeys.all(accountId).map(apiKeyFromRow);
    },
    async revokeApiKey(accountId, keyId) {
      return revokeKeyTx.immediate(accountId, keyId);
    },
    async credentialRevision() {
      return revision.read();
    },

    async upsertAlphaName(input) {
      alphaNames.clear();
      return insert.alphaName(input);
    },
    async getAlphaName(accountId, name) {
      const row = st().alphaName.get(accountId, name);
      return row ? toAlphaName(row) : null;
    },
    async listAlphaNames(accountId) {
      return alphaNames.get(accountId).map(toAlphaName);
    },
    async setAlphaNameCallback(accountId, name, url) {
      alphaNames.clear();
      const row = st().setCallback.get(url, accountId, name);
      return row ? toAlphaName(row) : null;
    },

    async getBalance(accountId) {
      return st().balance.get(accountId)?.balance ?? 0;
    },
    async addWalletTransaction(tx, at) {
      return addTransactionTx.immediate(tx, at, false)!;
    },
    async tryCharge(tx, at) {
      return addTransactionTx.immediate(tx, at, true);
    },
    async topUpTo(tx, target, at) {
      return topUpToTx.immediate(tx, target, at);
    },
    async transferBalance(debit, credit, at) {
      return transferTx.immediate(debit, credit, at);
    },
    async listWalletTransactions(accountId, query) {
      const kinds = query.kinds && query.kinds.length > 0 ? JSON.stringify(query.kinds) : null;
      const pageSize = Math.max(1, Math.floor(query.pageSize));
      const offset = (Math.max(1, Math.floor(query.page)) - 1) * pageSize;
      return listTransactionsTx(accountId, kinds, pageSize, offset);
    },

    async getSetting(key) {
      return st().getSetting.get(key)?.value ?? null;
    },
    async setSettingIfAbsent(key, value) {
      return setSettingIfAbsentTx.immediate(key, value);
    },
    async setSetting(key, value) {
      st().setSetting.run(key, value);
    },
  };
}
