import { describe, expect, it } from 'vitest';
import type { ClientStorage, NewLinkedClient } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import { subClient } from './linked-client-contract.ts';

type Store = Storage & ClientStorage;

const T0 = Date.UTC(2026, 0, 1);
const EUR = 1_000_000;

/** A sub-client of `parentId` (with one alpha-name) to create under the parent's `key`, with `opening` micro-units from the parent. */
function keyed(parentId: number, login: string, key: string, opening = 0): NewLinkedClient {
  return { ...subClient(parentId, login, opening), alphaNames: [{ name: 'Shop', channels: ['sms', 'chatapp'] }], idempotencyKey: key };
}

/**
 * The sub-clients created under an idempotency key of their parent (`createLinkedClient` with
 * `idempotencyKey`, `getClientProvision`, `pruneClientProvisions`) of the client storage contract.
 * Declared by {@link runClientStorageContract} with its fresh-storage wrapper; `share` opens a
 * second handle on a storage's database, as another process would.
 */
export function describeClientProvisions(
  withStore: (fn: (s: Store) => Promise<void>) => () => Promise<void>,
  accounts: (s: Store, n: number) => Promise<number[]>,
  share?: (s: Store) => Promise<Store>,
): void {
  /** `n` parents holding `balance` micro-units each. */
  const parents = async (s: Store, n: number, balance = 10 * EUR) => {
    const ids = await accounts(s, n);
    for (const id of ids) {
      await s.addWalletTransaction({ accountId: id, kind: 'topup', amount: balance, messageId: null, description: 'top' }, T0);
    }
    return ids;
  };

  describe('sub-clients created under an idempotency key', () => {
    it(
      'records the creation under the parent’s key in its transaction, without the clear key, and reads it back',
      withStore(async (s) => {
        const [parent] = await parents(s, 1);
        expect(await s.getClientProvision(parent!, 'prov-1')).toBeNull();
        const made = await s.createLinkedClient(keyed(parent!, 'shop-idem', 'prov-1', 3 * EUR), T0 + 5);
        const recorded = {
          accountId: parent!,
          idempotencyKey: 'prov-1',
          clientId: made!.account.id,
          login: 'shop-idem',
          name: 'Client shop-idem',
          balance: 3 * EUR,
          alphaNames: [{ name: 'Shop', channels: ['sms', 'chatapp'] }],
          keyId: made!.apiKey!.id,
          createdAt: T0 + 5,
        };
        expect(await s.getClientProvision(parent!, 'prov-1')).toEqual(recorded);
        // Keys are the parent's and compared exactly.
        expect(await s.getClientProvision(made!.account.id, 'prov-1')).toBeNull();
        expect(await s.getClientProvision(parent!, 'PROV-1')).toBeNull();

        // Without a key and without a key's API key: nothing recorded, a record without key id.
        await s.createLinkedClient({ ...keyed(parent!, 'shop-plain', 'unused'), idempotencyKey: null }, T0 + 6);
        expect(await s.getClientProvision(parent!, 'unused')).toBeNull();
        const bare = await s.createLinkedClient({ ...keyed(parent!, 'shop-bare', 'prov-2'), apiKey: null, alphaNames: [] }, T0 + 7);
        expect(await s.getClientProvision(parent!, 'prov-2')).toEqual({
          ...recorded,
          idempotencyKey: 'prov-2',
          clientId: bare!.account.id,
          login: 'shop-bare',
          name: 'Client shop-bare',
          balance: 0,
          alphaNames: [],
          keyId: null,
          createdAt: T0 + 7,
        });
      }),
    );

    it(
      'writes nothing when the parent’s key is recorded already (a conflict), nor when the opening is not covered (the key stays free)',
      withStore(async (s) => {
        const [parent, other] = await parents(s, 2);
        const first = await s.createLinkedClient(keyed(parent!, 'first', 'k', EUR), T0);
        const again = s.createLinkedClient(keyed(parent!, 'second', 'k', EUR), T0 + 1);
        await expect(again).rejects.toMatchObject({ code: 'conflict' });
        expect(await s.findAccountByLogin('second')).toBeNull();
        expect(await s.getBalance(parent!)).toBe(9 * EUR);
        expect(await s.getClientProvision(parent!, 'k')).toMatchObject({ clientId: first!.account.id, login: 'first' });

        // Another parent's same key is its own.
        expect(await s.createLinkedClient(keyed(other!, 'theirs', 'k'), T0 + 2)).toMatchObject({ account: { login: 'theirs' } });

        // Not covered: nothing of the client, and the key may be used again.
        expect(await s.createLinkedClient(keyed(parent!, 'rich', 'k-poor', 9 * EUR + 1), T0 + 3)).toBeNull();
        expect(await s.getClientProvision(parent!, 'k-poor')).toBeNull();
        expect(await s.findAccountByLogin('rich')).toBeNull();
        expect(await s.createLinkedClient(keyed(parent!, 'rich', 'k-poor', 9 * EUR), T0 + 4)).toMatchObject({ account: { login: 'rich' } });
        expect(await s.getClientProvision(parent!, 'k-poor')).toMatchObject({ login: 'rich', balance: 9 * EUR });

        // A taken login under a new key: the key stays free.
        await expect(s.createLinkedClient(keyed(parent!, 'first', 'k-taken'), T0 + 5)).rejects.toMatchObject({ code: 'conflict' });
        expect(await s.getClientProvision(parent!, 'k-taken')).toBeNull();
      }),
    );

    it(
      'prunes the keys recorded before the given time, of every parent: such a key then creates anew',
      withStore(async (s) => {
        const [a, b] = await parents(s, 2);
        await s.createLinkedClient(keyed(a!, 'old', 'k-old'), T0);
        await s.createLinkedClient(keyed(a!, 'new', 'k-new'), T0 + 1000);
        await s.createLinkedClient(keyed(b!, 'other', 'k-old'), T0 + 500);
        // Strictly before: a key recorded at the given time is kept.
        expect(await s.pruneClientProvisions(T0)).toBe(0);
        expect(await s.pruneClientProvisions(T0 + 1000)).toBe(2);
        expect(await s.pruneClientProvisions(T0 + 1000)).toBe(0);
        expect(await s.getClientProvision(a!, 'k-old')).toBeNull();
        expect(await s.getClientProvision(b!, 'k-old')).toBeNull();
        expect(await s.getClientProvision(a!, 'k-new')).toMatchObject({ login: 'new' });
        // The clients stay; only their keys are forgotten.
        expect(await s.findAccountByLogin('old')).not.toBeNull();
        expect(await s.createLinkedClient(keyed(a!, 'old-again', 'k-old'), T0 + 2000)).toMatchObject({ account: { login: 'old-again' } });
      }),
    );

    it(
      'creates one client when creations under the same key come in at once, on one handle and on another',
      withStore(async (s) => {
        const [parent] = await parents(s, 1);
        const other = share ? await share(s) : s;
        try {
          // The same login (a retry) and other logins (another request under the key): one is made.
          const logins = ['twin', 'twin', 'twin-b', 'twin', 'twin-c', 'twin'];
          const answers = await Promise.allSettled(
            logins.map((login, i) => (i % 2 ? other : s).createLinkedClient(keyed(parent!, login, 'k-race', EUR), T0 + i)),
          );
          const made = answers.filter((a) => a.status === 'fulfilled');
          expect(made).toHaveLength(1);
          for (const a of answers) if (a.status === 'rejected') expect(a.reason).toMatchObject({ code: 'conflict' });
          const login = (made[0] as PromiseFulfilledResult<Awaited<ReturnType<Store['createLinkedClient']>>>).value!.account.login;
          expect(await s.getClientProvision(parent!, 'k-race')).toMatchObject({ login });
          expect(await s.getBalance(parent!)).toBe(9 * EUR);
          expect(await s.listClientLinks(parent!)).toHaveLength(1);
        } finally {
          if (other !== s) await other.close();
        }
      }),
    );
  });
}
