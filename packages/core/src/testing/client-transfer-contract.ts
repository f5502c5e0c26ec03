import { describe, expect, it } from 'vitest';
import type { NewWalletTransaction } from '../ports/account-storage.ts';
import type { ClientStorage, NewClientTransfer } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';

type Store = Storage & ClientStorage;

const T0 = Date.UTC(2026, 0, 1);
const EUR = 1_000_000;

/** The wallet rows of a transfer: the paying wallet's, then the other's. */
function rows(t: NewClientTransfer): [NewWalletTransaction, NewWalletTransaction] {
  const [payer, payee] = t.direction === 'to_client' ? [t.accountId, t.clientId] : [t.clientId, t.accountId];
  return [
    { accountId: payer, kind: 'adjustment', amount: -t.amount, messageId: null, description: `to ${payee}` },
    { accountId: payee, kind: 'topup', amount: t.amount, messageId: null, description: `from ${payer}` },
  ];
}

/**
 * The keyed transfers between a parent and its sub-client (`transferBalanceOnce`) of the client
 * storage contract. Declared by {@link runClientStorageContract} with its fresh-storage wrapper;
 * `share` opens a second handle on a storage's database, as another process would.
 */
export function describeClientTransfers(
  withStore: (fn: (s: Store) => Promise<void>) => () => Promise<void>,
  accounts: (s: Store, n: number) => Promise<number[]>,
  share?: (s: Store) => Promise<Store>,
): void {
  /** `n` parents holding `balance` each, each with a sub-client holding nothing. */
  const families = async (s: Store, n: number, balance = 100 * EUR) => {
    const ids = await accounts(s, 2 * n);
    const out: Array<{ parent: number; client: number }> = [];
    for (let i = 0; i < n; i++) {
      const [parent, client] = [ids[2 * i]!, ids[2 * i + 1]!];
      await s.addWalletTransaction({ accountId: parent, kind: 'topup', amount: balance, messageId: null, description: 'top' }, T0);
      out.push({ parent, client });
    }
    return out;
  };
  const family = async (s: Store, balance?: number) => (await families(s, 1, balance))[0]!;
  const once = (s: Store, t: NewClientTransfer, at = T0) => s.transferBalanceOnce(t, ...rows(t), at);
  const balances = async (s: Store, ...ids: number[]) => Promise.all(ids.map((id) => s.getBalance(id)));
  const walletRows = async (s: Store, id: number) => (await s.listWalletTransactions(id, { page: 1, pageSize: 100 })).total;

  describe('keyed transfers between a parent and its sub-client', () => {
    it(
      'moves money once per key: the same key again answers the recorded move, replayed, and moves nothing',
      withStore(async (s) => {
        const { parent, client } = await family(s);
        const t: NewClientTransfer = {
          accountId: parent,
          idempotencyKey: 'k-1',
          clientId: client,
          direction: 'to_client',
          amount: 30 * EUR,
        };
        const first = await once(s, t);
        const recorded = { ...t, balance: 70 * EUR, clientBalance: 30 * EUR, createdAt: T0 };
        expect(first).toEqual({ transfer: recorded, replayed: false });
        expect(await balances(s, parent, client)).toEqual([70 * EUR, 30 * EUR]);
        const history = [await walletRows(s, parent), await walletRows(s, client)];

        expect(await once(s, t, T0 + 1000)).toEqual({ transfer: recorded, replayed: true });
        // Another transfer under the key: the recorded one is answered (the caller compares), nothing moves.
        expect(await once(s, { ...t, amount: 5 * EUR, direction: 'from_client' }, T0 + 2000)).toEqual({
          transfer: recorded,
          replayed: true,
        });
        expect(await balances(s, parent, client)).toEqual([70 * EUR, 30 * EUR]);
        expect([await walletRows(s, parent), await walletRows(s, client)]).toEqual(history);

        // Back from the client under a new key: the record names the parent's balance and the client's.
        const back = await once(s, { ...t, idempotencyKey: 'k-2', direction: 'from_client', amount: 10 * EUR }, T0 + 3000);
        expect(back).toEqual({
          transfer: {
            ...t,
            idempotencyKey: 'k-2',
            direction: 'from_client',
            amount: 10 * EUR,
            balance: 80 * EUR,
            clientBalance: 20 * EUR,
            createdAt: T0 + 3000,
          },
          replayed: false,
        });
      }),
    );

    it(
      'writes the two wallet rows of a move naming each other’s account, either way; a replay writes none',
      withStore(async (s) => {
        const { parent, client } = await family(s);
        const t: NewClientTransfer = {
          accountId: parent,
          idempotencyKey: 'k-to',
          clientId: client,
          direction: 'to_client',
          amount: 5 * EUR,
        };
        await once(s, t);
        await once(s, { ...t, idempotencyKey: 'k-back', direction: 'from_client', amount: 2 * EUR }, T0 + 1);
        await once(s, t, T0 + 2);
        const named = async (id: number) =>
          (await s.listWalletTransactions(id, { page: 1, pageSize: 100 })).items.map((w) => [w.amount, w.counterpartAccountId]);
        // Newest first; the parent's funding names no account.
        expect(await named(parent)).toEqual([
          [2 * EUR, client],
          [-5 * EUR, client],
          [100 * EUR, null],
        ]);
        expect(await named(client)).toEqual([
          [-2 * EUR, parent],
          [5 * EUR, parent],
        ]);
      }),
    );

    it(
      'keeps keys per account: another account’s same key is its own',
      withStore(async (s) => {
        const [{ parent, client }, other] = (await families(s, 2)) as [
          { parent: number; client: number },
          { parent: number; client: number },
        ];
        const t: NewClientTransfer = { accountId: parent, idempotencyKey: 'same', clientId: client, direction: 'to_client', amount: EUR };
        expect((await once(s, t))?.replayed).toBe(false);
        const theirs = await once(s, { ...t, accountId: other.parent, clientId: other.client });
        expect(theirs).toMatchObject({ replayed: false, transfer: { accountId: other.parent, balance: 99 * EUR, clientBalance: EUR } });
        // Keys are compared exactly: another case is another key.
        expect((await once(s, { ...t, idempotencyKey: 'SAME' }))?.replayed).toBe(false);
        expect(await balances(s, parent, client)).toEqual([98 * EUR, 2 * EUR]);
      }),
    );

    it(
      'writes nothing when the paying wallet does not cover the amount, and leaves the key free',
      withStore(async (s) => {
        const { parent, client } = await family(s, 10 * EUR);
        const t: NewClientTransfer = {
          accountId: parent,
          idempotencyKey: 'k-poor',
          clientId: client,
          direction: 'to_client',
          amount: 10 * EUR + 1,
        };
        const history = await walletRows(s, parent);
        expect(await once(s, t)).toBeNull();
        expect(await balances(s, parent, client)).toEqual([10 * EUR, 0]);
        expect(await walletRows(s, parent)).toBe(history);
        // The same key moves once the wallet covers it.
        await s.addWalletTransaction({ accountId: parent, kind: 'topup', amount: 1, messageId: null, description: 'top' }, T0);
        expect(await once(s, t)).toMatchObject({ replayed: false, transfer: { balance: 0, clientBalance: 10 * EUR + 1 } });
        expect(await once(s, { ...t, idempotencyKey: 'k-empty', direction: 'to_client', amount: 1 })).toBeNull();
      }),
    );

    it(
      'prunes the keys recorded before the given time, of every account: such a key then moves money anew',
      withStore(async (s) => {
        const [a, b] = (await families(s, 2)) as [{ parent: number; client: number }, { parent: number; client: number }];
        const t: NewClientTransfer = {
          accountId: a.parent,
          idempotencyKey: 'k-old',
          clientId: a.client,
          direction: 'to_client',
          amount: EUR,
        };
        await once(s, t, T0);
        await once(s, { ...t, idempotencyKey: 'k-new' }, T0 + 1000);
        await once(s, { ...t, accountId: b.parent, clientId: b.client }, T0 + 500);

        // Strictly before: a key recorded at the given time is kept.
        expect(await s.pruneClientTransfers(T0)).toBe(0);
        expect(await s.pruneClientTransfers(T0 + 1000)).toBe(2);
        expect(await s.pruneClientTransfers(T0 + 1000)).toBe(0);
        expect(await once(s, t, T0 + 2000)).toMatchObject({ replayed: false, transfer: { balance: 97 * EUR, createdAt: T0 + 2000 } });
        expect(await once(s, { ...t, idempotencyKey: 'k-new' }, T0 + 3000)).toMatchObject({
          replayed: true,
          transfer: { balance: 98 * EUR, createdAt: T0 + 1000 },
        });
        expect(await balances(s, a.parent, a.client, b.parent, b.client)).toEqual([97 * EUR, 3 * EUR, 99 * EUR, EUR]);
      }),
    );

    it(
      'moves once when requests with the same key come in at once, on one handle and on another',
      withStore(async (s) => {
        const { parent, client } = await family(s);
        const other = share ? await share(s) : s;
        try {
          const t: NewClientTransfer = {
            accountId: parent,
            idempotencyKey: 'k-race',
            clientId: client,
            direction: 'to_client',
            amount: 7 * EUR,
          };
          const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => once(i % 2 ? other : s, t, T0 + i)));
          expect(answers.filter((a) => a?.replayed === false)).toHaveLength(1);
          const moved = answers.find((a) => a?.replayed === false)!.transfer;
          expect(moved).toMatchObject({ balance: 93 * EUR, clientBalance: 7 * EUR });
          expect(answers.map((a) => a?.transfer)).toEqual(answers.map(() => moved));
          expect(await balances(s, parent, client)).toEqual([93 * EUR, 7 * EUR]);
          expect(await balances(other, parent, client)).toEqual([93 * EUR, 7 * EUR]);

          // Transfers either way between the two at once, under different keys: each moves once, none is lost.
          const mixed = await Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              once(i % 2 ? other : s, {
                ...t,
                idempotencyKey: `k-mixed-${i}`,
                direction: i % 2 ? 'from_client' : 'to_client',
                amount: EUR,
              }),
            ),
          );
          expect(mixed.every((a) => a?.replayed === false)).toBe(true);
          expect(await balances(s, parent, client)).toEqual([93 * EUR, 7 * EUR]);
        } finally {
          if (other !== s) await other.close();
        }
      }),
    );
  });
}
