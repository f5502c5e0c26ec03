import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage, NewLinkedClient } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';

type Store = Storage & ClientStorage;

const T0 = Date.UTC(2026, 0, 1);
const EUR = 1_000_000;

/** A sub-client of `parentId` to create, with `opening` micro-units from the parent (none for 0). */
export function subClient(parentId: number, login: string, opening = 0): NewLinkedClient {
  return {
    account: { login, name: `Client ${login}`, passwordHash: `hash-of-${login}`, currency: 'EUR' },
    link: { parentId, kind: 'sub', referralId: null, createdAt: T0 },
    alphaNames: [
      { name: 'Shop', channels: ['sms', 'chatapp'] },
      { name: 'Promo', channels: ['sms'] },
    ],
    apiKey: { keyHash: `key-hash-of-${login}`, prefix: 'sk_0123456', label: 'provisioned' },
    opening:
      opening > 0
        ? {
            debit: { accountId: parentId, kind: 'adjustment', amount: -opening, messageId: null, description: `to ${login}` },
            credit: { kind: 'topup', amount: opening, messageId: null, description: 'from the parent' },
          }
        : null,
  };
}

/**
 * The creation of a client whole (`createLinkedClient`) of the client storage contract: all of it
 * or nothing. Declared by {@link runClientStorageContract} with its fresh-storage wrapper; `share`
 * opens a second handle on a storage's database, as another process would.
 */
export function describeLinkedClients(
  withStore: (fn: (s: Store) => Promise<void>) => () => Promise<void>,
  accounts: (s: Store, n: number) => Promise<number[]>,
  share?: (s: Store) => Promise<Store>,
): void {
  /** A parent holding `balance` micro-units. */
  const parentWith = async (s: Store, balance: number) => {
    const [parent] = await accounts(s, 1);
    await s.addWalletTransaction({ accountId: parent!, kind: 'topup', amount: balance, messageId: null, description: 'top' }, T0);
    return parent!;
  };
  /** Nothing of the client `login` exists. */
  const absent = async (s: Store, login: string) => {
    expect(await s.findAccountByLogin(login)).toBeNull();
    expect(await s.findAccountByKeyHash(`key-hash-of-${login}`)).toBeNull();
  };
  const walletRows = async (s: Store, id: number) => (await s.listWalletTransactions(id, { page: 1, pageSize: 100 })).total;

  describe('clients created whole', () => {
    it(
      'creates the account, its link, its alpha-names, its key and its opening balance in one call',
      withStore(async (s) => {
        const parent = await parentWith(s, 10 * EUR);
        const made = await s.createLinkedClient(subClient(parent, 'shop-eu', 3 * EUR), T0 + 1);
        const id = made!.account.id;
        expect(made).toEqual({
          account: { id, login: 'shop-eu', name: 'Client shop-eu', currency: 'EUR', rateLimits: {}, createdAt: T0 + 1 },
          link: { childId: id, parentId: parent, kind: 'sub', referralId: null, createdAt: T0 },
          alphaNames: [
            { accountId: id, name: 'Shop', channels: ['sms', 'chatapp'], callbackUrl: null },
            { accountId: id, name: 'Promo', channels: ['sms'], callbackUrl: null },
          ],
          apiKey: { id: made!.apiKey!.id, accountId: id, label: 'provisioned', prefix: 'sk_0123456', createdAt: T0 + 1 },
          opening: [
            expect.objectContaining({
              accountId: parent,
              kind: 'adjustment',
              amount: -3 * EUR,
              balanceAfter: 7 * EUR,
              counterpartAccountId: id,
              createdAt: T0 + 1,
            }),
            expect.objectContaining({
              accountId: id,
              kind: 'topup',
              amount: 3 * EUR,
              balanceAfter: 3 * EUR,
              description: 'from the parent',
              counterpartAccountId: parent,
            }),
          ],
        });
        // The opening pair reads back naming each other's account; the parent's funding names none.
        const named = async (of: number) =>
          (await s.listWalletTransactions(of, { page: 1, pageSize: 100 })).items.map((w) => [w.amount, w.counterpartAccountId]);
        expect(await named(parent)).toEqual([
          [-3 * EUR, id],
          [10 * EUR, null],
        ]);
        expect(await named(id)).toEqual([[3 * EUR, parent]]);

        // Each part reads back as the port's other calls store it.
        expect(await s.findAccountByLogin('shop-eu')).toEqual({ account: made!.account, passwordHash: 'hash-of-shop-eu' });
        expect(await s.findAccountByKeyHash('key-hash-of-shop-eu')).toEqual(made!.account);
        expect(await s.listApiKeys(id)).toEqual([made!.apiKey]);
        expect(await s.getClientLink(id)).toEqual(made!.link);
        expect(await s.listClientLinks(parent)).toEqual([made!.link]);
        expect(await s.listAlphaNames(id)).toEqual([made!.alphaNames[1], made!.alphaNames[0]]);
        expect(await s.getAlphaName(id, 'Shop')).toEqual(made!.alphaNames[0]);
        expect([await s.getBalance(parent), await s.getBalance(id)]).toEqual([7 * EUR, 3 * EUR]);

        // A referred client: no names, no key, no money.
        const referralId = 'a7f3c1de-0000-4000-8000-000000000001';
        const referred = await s.createLinkedClient(
          {
            ...subClient(parent, 'friend'),
            link: { parentId: parent, kind: 'referral', referralId, createdAt: T0 + 2 },
            alphaNames: [],
            apiKey: null,
          },
          T0 + 2,
        );
        expect(referred).toMatchObject({ alphaNames: [], apiKey: null, opening: null, link: { kind: 'referral', referralId } });
        expect(await s.getClientLinkByReferral(parent, referralId)).toEqual(referred!.link);
        expect(await s.listAlphaNames(referred!.account.id)).toEqual([]);
        expect(await s.listApiKeys(referred!.account.id)).toEqual([]);
        expect(await s.getBalance(parent)).toBe(7 * EUR);
      }),
    );

    it(
      'writes nothing of the client when its login, its referral id or its key is taken, or the opening balance is not covered',
      withStore(async (s) => {
        const parent = await parentWith(s, 10 * EUR);
        const first = await s.createLinkedClient(
          { ...subClient(parent, 'first', EUR), link: { parentId: parent, kind: 'referral', referralId: 'ref-1', createdAt: T0 } },
          T0,
        );
        const history = await walletRows(s, parent);
        const unchanged = async (login: string) => {
          await absent(s, login);
          expect(await s.getBalance(parent)).toBe(9 * EUR);
          expect(await walletRows(s, parent)).toBe(history);
          expect(await s.listClientLinks(parent)).toEqual([first!.link]);
        };

        const taken = s.createLinkedClient({ ...subClient(parent, 'first', EUR), apiKey: null }, T0 + 1);
        await expect(taken).rejects.toBeInstanceOf(SpillwayError);
        await expect(taken).rejects.toMatchObject({ code: 'conflict' });
        expect(await s.findAccountByLogin('first')).toMatchObject({ account: first!.account });

        const referralTaken = {
          ...subClient(parent, 'second', EUR),
          link: { parentId: parent, kind: 'referral' as const, referralId: 'ref-1', createdAt: T0 },
        };
        await expect(s.createLinkedClient(referralTaken, T0 + 1)).rejects.toMatchObject({ code: 'conflict' });
        await unchanged('second');

        const keyTaken = { ...subClient(parent, 'third', EUR), apiKey: { ...subClient(parent, 'first').apiKey! } };
        await expect(s.createLinkedClient(keyTaken, T0 + 1)).rejects.toMatchObject({ code: 'conflict' });
        await unchanged('third');

        expect(await s.createLinkedClient(subClient(parent, 'fourth', 9 * EUR + 1), T0 + 1)).toBeNull();
        await unchanged('fourth');

        // Every one of them may be created once its cause is gone.
        expect(await s.createLinkedClient(subClient(parent, 'fourth', 9 * EUR), T0 + 2)).toMatchObject({
          account: { login: 'fourth' },
          opening: [{ balanceAfter: 0 }, { balanceAfter: 9 * EUR }],
        });
        expect(await s.createLinkedClient(subClient(parent, 'second'), T0 + 2)).toMatchObject({ account: { login: 'second' } });
      }),
    );

    it(
      'creates a login once, and debits no more than the parent holds, when creations come in at once, on one handle and on another',
      withStore(async (s) => {
        const parent = await parentWith(s, 10 * EUR);
        const other = share ? await share(s) : s;
        try {
          const on = (i: number) => (i % 2 ? other : s);
          const twins = await Promise.allSettled(
            Array.from({ length: 6 }, (_, i) => on(i).createLinkedClient(subClient(parent, 'twin', EUR), T0 + i)),
          );
          expect(twins.filter((t) => t.status === 'fulfilled')).toHaveLength(1);
          for (const t of twins) if (t.status === 'rejected') expect(t.reason).toMatchObject({ code: 'conflict' });
          expect(await s.getBalance(parent)).toBe(9 * EUR);

          // Four openings of 4 EUR from 9: two are made, two are not, and nothing is left of those.
          const logins = ['rich-0', 'rich-1', 'rich-2', 'rich-3'];
          const rich = await Promise.all(logins.map((login, i) => on(i).createLinkedClient(subClient(parent, login, 4 * EUR), T0 + i)));
          expect(rich.filter((r) => r !== null)).toHaveLength(2);
          expect(await s.getBalance(parent)).toBe(EUR);
          for (const [i, r] of rich.entries()) if (r === null) await absent(s, logins[i]!);
          expect(await s.listClientLinks(parent)).toHaveLength(3);
        } finally {
          if (other !== s) await other.close();
        }
      }),
    );
  });
}
