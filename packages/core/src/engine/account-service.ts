import { SpillwayError, isConflict } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { PasswordHasher } from '../ports/password-hasher.ts';
import type { Storage } from '../ports/storage.ts';
import { MIN_PASSWORD_LENGTH } from '../types/account.ts';
import type { Account } from '../types/account.ts';
import { MAX_FROM } from '../messages/message-item.ts';
import { CHANNELS } from '../types/channel.ts';
import type { AccountService, CreateAccountInput } from './engine-types.ts';
import { fromMicros, toMicros } from './money.ts';

const KEY_BYTES = 24;

function randomKey(): string {
  const bytes = new Uint8Array(KEY_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return `sk_${hex}`;
}

/** Accounts, keys, alpha-names and wallets over the storage port. */
export function createAccountService(deps: { storage: Storage; hasher: PasswordHasher; clock: Clock; currency: string }): AccountService {
  const { storage, hasher, clock } = deps;

  const mustGet = async (accountId: number): Promise<Account> => {
    const account = await storage.getAccount(accountId);
    if (!account) throw new SpillwayError('not_found', `account ${accountId} does not exist`);
    return account;
  };

  /** A new API key: in clear, to answer once, and what the storage keeps of it. */
  const newKey = async (label: string) => {
    const key = randomKey();
    return { key, keyHash: await hasher.hashKey(key), prefix: key.slice(0, 10), label };
  };

  const service: AccountService = {
    async create(input: CreateAccountInput) {
      const { account: row } = await service.prepare(input);
      const account = await storage.createAccount(row, clock.now());
      if (input.balance && input.balance > 0) await service.topUp(account.id, input.balance, 'opening balance');
      return account;
    },
    async prepare(input, keyLabel) {
      if (!input.login.trim())
        throw new SpillwayError('validation_failed', 'login must not be empty', [{ path: 'login', message: 'required' }]);
      if (input.password.length < MIN_PASSWORD_LENGTH)
        throw new SpillwayError('validation_failed', `password must have at least ${MIN_PASSWORD_LENGTH} characters`, [
          { path: 'password', message: 'too short' },
        ]);
      const account = {
        login: input.login,
        name: input.name ?? input.login,
        passwordHash: await hasher.hashPassword(input.password),
        currency: input.currency ?? deps.currency,
      };
      return { account, key: keyLabel === undefined ? null : await newKey(keyLabel) };
    },
    get: (accountId) => storage.getAccount(accountId),
    async getByLogin(login) {
      return (await storage.findAccountByLogin(login))?.account ?? null;
    },
    async ensure(input) {
      const found = await storage.findAccountByLogin(input.login);
      if (!found) {
        try {
          return await service.create(input);
        } catch (error) {
          // Created meanwhile by another process ensuring it too (two apps starting on one database):
          // it is there now, and is ensured as found.
          const created = isConflict(error) ? await storage.findAccountByLogin(input.login) : null;
          if (!created) throw error;
          return created.account;
        }
      }
      // Written only when the stored hash does not verify the password: a restart then takes no lock
      // on the account's row, which the ingest's transactions hold under load.
      if (!(await hasher.verifyPassword(input.password, found.passwordHash))) {
        await storage.setPasswordHash(found.account.id, await hasher.hashPassword(input.password));
      }
      return found.account;
    },
    async authenticatePassword(login, password) {
      const found = await storage.findAccountByLogin(login);
      if (!found) {
        // Spend the same time as a real check so that logins cannot be probed by timing.
        await hasher.verifyPassword(password, (DUMMY_HASH.value ??= await hasher.hashPassword('not-a-password')));
        return null;
      }
      if (!(await hasher.verifyPassword(password, found.passwordHash))) return null;
      // Hashes of an older, cheaper cost are upgraded while the clear password is at hand.
      if (hasher.needsRehash?.(found.passwordHash)) await storage.setPasswordHash(found.account.id, await hasher.hashPassword(password));
      return found.account;
    },
    async authenticateKey(key) {
      if (!key) return null;
      return storage.findAccountByKeyHash(await hasher.hashKey(key));
    },
    async createKey(accountId, label = 'default') {
      await mustGet(accountId);
      const { key, ...stored } = await newKey(label);
      return { key, apiKey: await storage.createApiKey({ accountId, ...stored }, clock.now()) };
    },
    async ensureKey(accountId, key, label = 'bootstrap') {
      const keyHash = await hasher.hashKey(key);
      const owner = await storage.findAccountByKeyHash(keyHash);
      if (owner && owner.id !== accountId) throw new SpillwayError('conflict', 'this API key belongs to another account');
      const kept = async () => (await storage.listApiKeys(accountId)).find((k) => k.prefix === key.slice(0, 10));
      const existing = owner ? await kept() : undefined;
      if (existing) return existing;
      try {
        return await storage.createApiKey({ accountId, keyHash, prefix: key.slice(0, 10), label }, clock.now());
      } catch (error) {
        if (!(error instanceof SpillwayError && error.code === 'conflict')) throw error;
        // The key is registered: by another process meanwhile (it is then answered), or earlier and
        // revoked since, which is never undone here (a revoked key may have leaked).
        const now = await storage.findAccountByKeyHash(keyHash);
        const registered = now?.id === accountId ? await kept() : undefined;
        if (registered) return registered;
        if (now) throw new SpillwayError('conflict', 'this API key belongs to another account');
        throw new SpillwayError('conflict', 'this API key was revoked: a revoked key is not registered again', [
          { path: 'key', message: 'revoked' },
        ]);
      }
    },
    listKeys: (accountId) => storage.listApiKeys(accountId),
    revokeKey: (accountId, keyId) => storage.revokeApiKey(accountId, keyId),
    async approveAlphaName(accountId, name, channels = [...CHANNELS]) {
      await mustGet(accountId);
      if (!name.trim() || name.length > MAX_FROM) {
        throw new SpillwayError('validation_failed', `an alpha-name has 1 to ${MAX_FROM} characters`, [
          { path: 'name', message: 'invalid' },
        ]);
      }
      return storage.upsertAlphaName({ accountId, name, channels });
    },
    listAlphaNames: (accountId) => storage.listAlphaNames(accountId),
    async setAlphaNameCallback(accountId, name, url) {
      const updated = await storage.setAlphaNameCallback(accountId, name, url);
      if (!updated) throw new SpillwayError('not_found', `alpha-name "${name}" is not registered for this account`);
      return updated;
    },
    setRateLimit: (accountId, category, limit) => storage.setRateLimit(accountId, category, limit),
    async topUp(accountId, amount, description = 'top-up') {
      await mustGet(accountId);
      if (!(amount > 0))
        throw new SpillwayError('validation_failed', 'a top-up is a positive amount', [{ path: 'amount', message: 'must be > 0' }]);
      return storage.addWalletTransaction(
        { accountId, kind: 'topup', amount: toMicros(amount), messageId: null, description },
        clock.now(),
      );
    },
    async balance(accountId) {
      const account = await mustGet(accountId);
      return { balance: fromMicros(await storage.getBalance(accountId)), currency: account.currency };
    },
    walletHistory: (accountId, query) =>
      storage.listWalletTransactions(accountId, {
        ...(query.kinds ? { kinds: query.kinds } : {}),
        page: Math.max(1, query.page ?? 1),
        pageSize: Math.min(500, Math.max(1, query.pageSize ?? 50)),
      }),
  };
  return service;
}

const DUMMY_HASH: { value?: string } = {};
