import { describe, expect, it } from 'vitest';
import { createFundedAccount, type StorageRef } from './storage-contract-fixtures.ts';

/** The AccountStorage half of {@link runStorageContract}. */
export function describeAccountStorage(storage: StorageRef): void {
  describe('accounts', () => {
    it('creates an account and reads it back by id and by login', async () => {
      const created = await storage().createAccount({ login: 'alice', name: 'Alice', passwordHash: 'h1', currency: 'EUR' }, 1234);
      expect(created).toEqual({ id: expect.any(Number), login: 'alice', name: 'Alice', currency: 'EUR', rateLimits: {}, createdAt: 1234 });
      expect(await storage().getAccount(created.id)).toEqual(created);
      expect(await storage().findAccountByLogin('alice')).toEqual({ account: created, passwordHash: 'h1' });
      expect(await storage().getAccount(created.id + 1000)).toBeNull();
      expect(await storage().findAccountByLogin('bob')).toBeNull();
    });

    it('refuses a taken login with a conflict error', async () => {
      await storage().createAccount({ login: 'alice', name: 'A', passwordHash: 'h', currency: 'EUR' }, 1);
      await expect(storage().createAccount({ login: 'alice', name: 'B', passwordHash: 'h', currency: 'USD' }, 2)).rejects.toMatchObject({
        name: 'SpillwayError',
        code: 'conflict',
        status: 409,
      });
    });

    it('finds an account by its login in any case, with the spelling it was created with', async () => {
      const created = await storage().createAccount({ login: 'Shop-EU', name: 'Shop', passwordHash: 'h1', currency: 'EUR' }, 1);
      for (const spelling of ['Shop-EU', 'shop-eu', 'SHOP-EU', 'sHoP-eU']) {
        expect(await storage().findAccountByLogin(spelling), spelling).toEqual({ account: created, passwordHash: 'h1' });
      }
      // Beyond ASCII, and whether an accent is one character or two (NFC or NFD).
      const accented = await storage().createAccount({ login: 'Ärger-Café', name: 'Ä', passwordHash: 'h2', currency: 'EUR' }, 2);
      expect((await storage().findAccountByLogin('äRGER-CAFÉ'))?.account).toEqual(accented);
      expect((await storage().findAccountByLogin('ärger-cafe\u0301'))?.account).toEqual(accented);
      expect(await storage().findAccountByLogin('shop-e')).toBeNull();
    });

    it('refuses a login that differs only by case from a taken one', async () => {
      await storage().createAccount({ login: 'alice', name: 'A', passwordHash: 'h', currency: 'EUR' }, 1);
      for (const login of ['Alice', 'ALICE']) {
        await expect(storage().createAccount({ login, name: 'B', passwordHash: 'h', currency: 'EUR' }, 2)).rejects.toMatchObject({
          code: 'conflict',
          message: `login ${login} is taken`,
        });
      }
      expect((await storage().findAccountByLogin('ALICE'))?.account.login).toBe('alice');
    });

    it('changes the password hash', async () => {
      const account = await createFundedAccount(storage());
      await storage().setPasswordHash(account.id, 'new-hash');
      expect((await storage().findAccountByLogin(account.login))?.passwordHash).toBe('new-hash');
    });

    it('sets and clears per-category rate limits', async () => {
      const account = await createFundedAccount(storage());
      await storage().setRateLimit(account.id, 'messaging', { perSecond: 10, burst: 20 });
      await storage().setRateLimit(account.id, 'data', { perSecond: 5, burst: 6 });
      await storage().setRateLimit(account.id, 'messaging', null);
      expect((await storage().getAccount(account.id))?.rateLimits).toEqual({ data: { perSecond: 5, burst: 6 } });
    });
  });

  describe('credential revision', () => {
    it('grows with every revoked key, replaced password, revoked token, changed rate limit and retired signing key, and only then', async () => {
      const account = await createFundedAccount(storage());
      const initial = await storage().credentialRevision();
      expect(Number.isSafeInteger(initial)).toBe(true);
      const key = await storage().createApiKey({ accountId: account.id, keyHash: 'rev-hash', prefix: 'sk_rv', label: '' }, 1);
      expect(await storage().credentialRevision()).toBe(initial);
      // Caches keep the account with its rate limits: a change makes them verify it again.
      await storage().setRateLimit(account.id, 'data', { perSecond: 1, burst: 1 });
      expect(await storage().credentialRevision()).toBe(initial + 1);
      await expect(storage().setRateLimit(987_654, 'data', null)).rejects.toMatchObject({ code: 'not_found' });
      const start = await storage().credentialRevision();
      expect(start).toBe(initial + 1);

      expect(await storage().revokeApiKey(account.id, key.id)).toBe(true);
      expect(await storage().credentialRevision()).toBe(start + 1);
      expect(await storage().revokeApiKey(account.id, key.id)).toBe(false);
      expect(await storage().credentialRevision()).toBe(start + 1);

      await storage().setPasswordHash(account.id, 'other-hash');
      expect(await storage().credentialRevision()).toBe(start + 2);

      await storage().revokeToken({ jti: 'rev-jti', expiresAt: null }, 1);
      expect(await storage().credentialRevision()).toBe(start + 3);
      await storage().revokeToken({ jti: 'rev-jti', expiresAt: null }, 2);
      expect(await storage().credentialRevision()).toBe(start + 3);

      // A retired signing key: every process's key ring reads the keys again.
      await storage().addSigningKey({ kid: 'rev-k1', secret: 's1' }, 1);
      expect(await storage().credentialRevision()).toBe(start + 3);
      expect(await storage().retireSigningKey('rev-k1', 2)).toBe(true);
      expect(await storage().credentialRevision()).toBe(start + 4);
      expect(await storage().retireSigningKey('rev-k1', 3)).toBe(false);
      expect(await storage().credentialRevision()).toBe(start + 4);
    });
  });

  describe('API keys', () => {
    it('finds the account by key hash, lists and revokes keys', async () => {
      const account = await createFundedAccount(storage());
      const other = await createFundedAccount(storage());
      const key = await storage().createApiKey({ accountId: account.id, keyHash: 'hash-1', prefix: 'sk_ab', label: 'ci' }, 50);
      expect(key).toEqual({ id: expect.any(Number), accountId: account.id, label: 'ci', prefix: 'sk_ab', createdAt: 50 });
      const second = await storage().createApiKey({ accountId: account.id, keyHash: 'hash-2', prefix: 'sk_cd', label: '' }, 60);

      expect((await storage().findAccountByKeyHash('hash-1'))?.id).toBe(account.id);
      expect(await storage().findAccountByKeyHash('unknown')).toBeNull();
      expect(await storage().listApiKeys(account.id)).toEqual([key, second]);
      expect(await storage().listApiKeys(other.id)).toEqual([]);

      expect(await storage().revokeApiKey(other.id, key.id)).toBe(false);
      expect(await storage().revokeApiKey(account.id, key.id)).toBe(true);
      expect(await storage().revokeApiKey(account.id, key.id)).toBe(false);
      expect(await storage().findAccountByKeyHash('hash-1')).toBeNull();
      expect((await storage().findAccountByKeyHash('hash-2'))?.id).toBe(account.id);
      expect(await storage().listApiKeys(account.id)).toEqual([second]);
    });
  });

  describe('alpha-names', () => {
    it('upserts, lists by name, and sets the callback', async () => {
      const account = await createFundedAccount(storage());
      const other = await createFundedAccount(storage());
      const zed = await storage().upsertAlphaName({ accountId: account.id, name: 'Zed', channels: ['sms'] });
      expect(zed).toEqual({ accountId: account.id, name: 'Zed', channels: ['sms'], callbackUrl: null });
      await storage().upsertAlphaName({ accountId: account.id, name: 'Acme', channels: ['sms', 'chatapp'] });
      await storage().upsertAlphaName({ accountId: other.id, name: 'Other', channels: ['rcs'] });

      const withUrl = await storage().setAlphaNameCallback(account.id, 'Zed', 'https://example.com/hook');
      expect(withUrl?.callbackUrl).toBe('https://example.com/hook');
      // Upserting replaces the channels and keeps the callback.
      const replaced = await storage().upsertAlphaName({ accountId: account.id, name: 'Zed', channels: ['messenger', 'sms'] });
      expect(replaced).toEqual({
        accountId: account.id,
        name: 'Zed',
        channels: ['messenger', 'sms'],
        callbackUrl: 'https://example.com/hook',
      });

      expect((await storage().listAlphaNames(account.id)).map((a) => a.name)).toEqual(['Acme', 'Zed']);
      expect(await storage().getAlphaName(account.id, 'Zed')).toEqual(replaced);
      expect(await storage().getAlphaName(account.id, 'Other')).toBeNull();
      expect(await storage().setAlphaNameCallback(account.id, 'Missing', 'https://x.test')).toBeNull();
      expect((await storage().setAlphaNameCallback(account.id, 'Zed', null))?.callbackUrl).toBeNull();
    });
  });

  describe('wallet', () => {
    it('answers 0 for an account without transactions', async () => {
      const account = await createFundedAccount(storage());
      expect(await storage().getBalance(account.id)).toBe(0);
    });

    it('moves the balance and records balanceAfter, below zero too', async () => {
      const account = await createFundedAccount(storage());
      const topup = await storage().addWalletTransaction(
        { accountId: account.id, kind: 'topup', amount: 3_000_000, messageId: null, description: 'top' },
        10,
      );
      expect(topup).toEqual({
        id: expect.any(Number),
        accountId: account.id,
        kind: 'topup',
        amount: 3_000_000,
        balanceAfter: 3_000_000,
        messageId: null,
        description: 'top',
        counterpartAccountId: null,
        createdAt: 10,
      });
      const adjustment = await storage().addWalletTransaction(
        { accountId: account.id, kind: 'adjustment', amount: -5_000_000, messageId: null, description: 'fix' },
        11,
      );
      expect(adjustment.balanceAfter).toBe(-2_000_000);
      expect(await storage().getBalance(account.id)).toBe(-2_000_000);
    });

    it('tryCharge refuses when the balance is short and charges otherwise', async () => {
      const account = await createFundedAccount(storage(), 100);
      expect(
        await storage().tryCharge({ accountId: account.id, kind: 'charge', amount: -101, messageId: null, description: 'too much' }, 20),
      ).toBeNull();
      expect(await storage().getBalance(account.id)).toBe(100);
      expect((await storage().listWalletTransactions(account.id, { page: 1, pageSize: 10 })).total).toBe(1);

      const exact = await storage().tryCharge(
        { accountId: account.id, kind: 'charge', amount: -100, messageId: null, description: 'all' },
        21,
      );
      expect(exact).toMatchObject({ kind: 'charge', amount: -100, balanceAfter: 0, createdAt: 21 });
      expect(await storage().getBalance(account.id)).toBe(0);
    });

    it('tryCharge is atomic: of two charges the balance covers once, one succeeds', async () => {
      const account = await createFundedAccount(storage(), 150);
      const charge = () =>
        storage().tryCharge({ accountId: account.id, kind: 'charge', amount: -100, messageId: null, description: 'x' }, 30);
      const results = await Promise.all([charge(), charge()]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect(await storage().getBalance(account.id)).toBe(50);
    });

    it('topUpTo credits what is missing up to the target, and nothing at or above it', async () => {
      const account = await createFundedAccount(storage(), 30);
      const tx = { accountId: account.id, kind: 'topup', messageId: null, description: 'to 100' } as const;
      expect(await storage().topUpTo(tx, 100, 50)).toMatchObject({ kind: 'topup', amount: 70, balanceAfter: 100, createdAt: 50 });
      expect(await storage().topUpTo(tx, 100, 51)).toBeNull();
      expect(await storage().topUpTo(tx, 60, 52)).toBeNull();
      expect(await storage().getBalance(account.id)).toBe(100);
      expect((await storage().listWalletTransactions(account.id, { page: 1, pageSize: 10 })).total).toBe(2);
      await expect(storage().topUpTo({ ...tx, accountId: 987_654 }, 100, 53)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('topUpTo is atomic: two at once credit what is missing once', async () => {
      const account = await createFundedAccount(storage(), 40);
      const topUp = () => storage().topUpTo({ accountId: account.id, kind: 'topup', messageId: null, description: 'x' }, 100, 60);
      const results = await Promise.all([topUp(), topUp(), topUp()]);
      expect(results.filter((r) => r !== null).map((r) => r!.amount)).toEqual([60]);
      expect(await storage().getBalance(account.id)).toBe(100);
    });

    it('transferBalance moves money between two accounts both ways or not at all, and only when the debit is covered', async () => {
      const from = await createFundedAccount(storage(), 150);
      const to = await createFundedAccount(storage());
      const transfer = (amount: number) =>
        storage().transferBalance(
          { accountId: from.id, kind: 'adjustment', amount: -amount, messageId: null, description: 'to child' },
          { accountId: to.id, kind: 'topup', amount, messageId: null, description: 'from parent' },
          41,
        );
      const moved = await transfer(100);
      expect(moved).toMatchObject([
        { accountId: from.id, kind: 'adjustment', amount: -100, balanceAfter: 50, description: 'to child', createdAt: 41 },
        { accountId: to.id, kind: 'topup', amount: 100, balanceAfter: 100, description: 'from parent', createdAt: 41 },
      ]);
      // Not covered: nothing written on either side.
      expect(await transfer(51)).toBeNull();
      // Two at once that the balance covers once: one moves.
      const both = await Promise.all([transfer(30), transfer(30)]);
      expect(both.filter((r) => r !== null)).toHaveLength(1);
      expect([await storage().getBalance(from.id), await storage().getBalance(to.id)]).toEqual([20, 130]);
      expect((await storage().listWalletTransactions(to.id, { page: 1, pageSize: 10 })).total).toBe(2);
      // A credit to an account that does not exist undoes the debit.
      await expect(
        storage().transferBalance(
          { accountId: from.id, kind: 'adjustment', amount: -10, messageId: null, description: 'lost?' },
          { accountId: 987_654, kind: 'topup', amount: 10, messageId: null, description: 'nobody' },
          42,
        ),
      ).rejects.toMatchObject({ code: 'not_found' });
      expect(await storage().getBalance(from.id)).toBe(20);
      expect((await storage().listWalletTransactions(from.id, { page: 1, pageSize: 10 })).items.map((t) => t.description)).not.toContain(
        'lost?',
      );
    });

    it('transferBalance writes two rows that name each other’s account; other rows name none', async () => {
      const from = await createFundedAccount(storage(), 150);
      const to = await createFundedAccount(storage());
      const moved = await storage().transferBalance(
        { accountId: from.id, kind: 'adjustment', amount: -100, messageId: null, description: 'to child' },
        { accountId: to.id, kind: 'topup', amount: 100, messageId: null, description: 'from parent' },
        41,
      );
      expect(moved).toMatchObject([
        { accountId: from.id, counterpartAccountId: to.id },
        { accountId: to.id, counterpartAccountId: from.id },
      ]);
      await storage().addWalletTransaction({ accountId: to.id, kind: 'charge', amount: -1, messageId: null, description: 'sms' }, 42);
      // Read back as stored, newest first: the opening top-up and the charge name no account.
      const history = async (id: number) =>
        (await storage().listWalletTransactions(id, { page: 1, pageSize: 10 })).items.map((t) => [t.description, t.counterpartAccountId]);
      expect(await history(from.id)).toEqual([
        ['to child', to.id],
        ['opening', null],
      ]);
      expect(await history(to.id)).toEqual([
        ['sms', null],
        ['from parent', from.id],
      ]);
    });

    it('transferBalance runs transfers either way between two accounts at once without a deadlock', async () => {
      const a = await createFundedAccount(storage(), 1000);
      const b = await createFundedAccount(storage(), 1000);
      const move = (from: number, to: number) =>
        storage().transferBalance(
          { accountId: from, kind: 'adjustment', amount: -1, messageId: null, description: 'out' },
          { accountId: to, kind: 'topup', amount: 1, messageId: null, description: 'in' },
          43,
        );
      // Each takes the debited wallet's row, then the credited one's: in opposite orders, unless both are taken in one order.
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? move(a.id, b.id) : move(b.id, a.id))));
      expect(results.every((r) => r !== null)).toBe(true);
      expect([await storage().getBalance(a.id), await storage().getBalance(b.id)]).toEqual([1000, 1000]);
    });

    it('lists transactions newest first, filtered by kind, paged, with the total', async () => {
      const account = await createFundedAccount(storage());
      const kinds = ['topup', 'charge', 'charge', 'refund', 'charge', 'adjustment'] as const;
      for (const [i, kind] of kinds.entries()) {
        await storage().addWalletTransaction(
          { accountId: account.id, kind, amount: kind === 'charge' ? -1 : 10, messageId: null, description: `t${i}` },
          100 + i,
        );
      }
      const all = await storage().listWalletTransactions(account.id, { page: 1, pageSize: 100 });
      expect(all.total).toBe(6);
      expect(all.items.map((t) => t.description)).toEqual(['t5', 't4', 't3', 't2', 't1', 't0']);

      const charges = await storage().listWalletTransactions(account.id, { kinds: ['charge', 'refund'], page: 2, pageSize: 2 });
      expect(charges.total).toBe(4);
      expect(charges.items.map((t) => t.description)).toEqual(['t2', 't1']);
      const beyond = await storage().listWalletTransactions(account.id, { kinds: ['charge'], page: 3, pageSize: 2 });
      expect(beyond).toEqual({ items: [], total: 3 });
    });
  });

  describe('settings', () => {
    it('gets, sets, and keeps an existing value on setSettingIfAbsent', async () => {
      expect(await storage().getSetting('secret')).toBeNull();
      expect(await storage().setSettingIfAbsent('secret', 'first')).toBe('first');
      expect(await storage().setSettingIfAbsent('secret', 'second')).toBe('first');
      expect(await storage().getSetting('secret')).toBe('first');
      await storage().setSetting('secret', 'third');
      expect(await storage().getSetting('secret')).toBe('third');
    });
  });
}
