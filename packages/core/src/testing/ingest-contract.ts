import { describe, expect, it } from 'vitest';
import { FAR, createFundedAccount, ingestAccepted, newMessage, step, type StorageRef } from './storage-contract-fixtures.ts';
import type { IngestResult, NewMessage } from '../ports/message-storage.ts';

/** The `ingest` part of {@link runStorageContract}. */
export function describeIngest(storage: StorageRef): void {
  describe('ingest', () => {
    it('stores every field and answers ids in batch order with the list id', async () => {
      const account = await createFundedAccount(storage(), 10_000_000);
      const cascade = newMessage({
        kind: 'cascade',
        guid: '7d1c5f0e-3c4b-4f7a-9d53-2b1e0f0a9c11',
        trackinId: 'track-1',
        customerMessageId: 'cm-1',
        content: '{"a":1}',
        steps: [
          step('999000000001', { channel: 'messenger', type: 'messenger', messageData: { buttons: [{ text: 'ok' }] }, ttl: 60 }),
          step('999000000001'),
        ],
        status: 'processing',
        snapshot: { value: { attempt: 'waiting' }, context: { step: 1, attempt: 2, revision: 'r1' } },
        routeRef: 'route-1@3',
        dueAt: 7_000,
        expiresAt: 99_000,
        charge: 120_000,
        meta: { referral: 'x', customerData: { nested: [1, 'two', null, true] } },
      });
      const plain = newMessage({ charge: 0 });
      const result = await ingestAccepted(storage(), account.id, [cascade, plain], 2_500);
      expect(result.replays).toEqual([]);
      expect(result.ids).toHaveLength(2);
      expect(result.ids[1]).toBeGreaterThan(result.ids[0]!);

      const [first, second] = await storage().getMessages(result.ids);
      const { history: _h, charge: _c, ...stored } = cascade;
      expect(first).toEqual({
        ...stored,
        id: result.ids[0],
        listId: result.listId,
        accountId: account.id,
        createdAt: 2_500,
        updatedAt: 2_500,
        cost: 120_000,
        version: 0,
        charged: 1,
      });
      expect(second).toMatchObject({ id: result.ids[1], listId: result.listId, kind: 'message', meta: null, cost: 0, guid: null });
      expect(await storage().getMessage(result.ids[0]!)).toEqual(first);
      expect(await storage().getMessage(result.ids[1]! + 1000)).toBeNull();
    });

    it('records one charge transaction per charged message, linked to it', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const result = await ingestAccepted(
        storage(),
        account.id,
        [newMessage({ charge: 100_000 }), newMessage({ charge: 0 }), newMessage({ charge: 250_000 })],
        3_000,
      );
      expect(await storage().getBalance(account.id)).toBe(650_000);
      const charges = await storage().listWalletTransactions(account.id, { kinds: ['charge'], page: 1, pageSize: 10 });
      expect(charges.total).toBe(2);
      const byMessage = new Map(charges.items.map((t) => [t.messageId, t]));
      expect(byMessage.get(result.ids[0]!)).toMatchObject({ kind: 'charge', amount: -100_000, description: 'SMS', createdAt: 3_000 });
      expect(byMessage.get(result.ids[2]!)).toMatchObject({ kind: 'charge', amount: -250_000 });
      // balanceAfter runs down in batch order, ending at the final balance.
      expect(byMessage.get(result.ids[0]!)?.balanceAfter).toBe(900_000);
      expect(byMessage.get(result.ids[2]!)?.balanceAfter).toBe(650_000);
    });

    it('inserts work and history under the right message id', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const result = await ingestAccepted(storage(), account.id, [
        newMessage({
          work: [{ kind: 'send', step: 0, dueAt: 2_000 }],
          history: [{ step: 0, channel: 'sms', status: 'Sent', at: 2_000, error: null }],
        }),
        newMessage({
          work: [
            { kind: 'event', event: { type: 'DUE' }, dueAt: 9_000 },
            { kind: 'event', event: { type: 'TIMER', step: 0, timer: 'expiry' }, dueAt: 12_000 },
          ],
          history: [
            { step: 0, channel: 'sms', status: 'Skipped', at: 2_000, error: 'no route' },
            { step: 1, channel: 'rcs', status: 'Sent', at: 2_001, error: null },
          ],
        }),
      ]);
      const [a, b] = result.ids as [number, number];
      const claimed = await storage().claimDue(FAR, 100, 1, 'w1');
      expect(claimed.map((m) => [m.id, m.work])).toEqual([
        [a, [{ kind: 'send', step: 0, dueAt: 2_000 }]],
        [
          b,
          [
            { kind: 'event', event: { type: 'DUE' }, dueAt: 9_000 },
            { kind: 'event', event: { type: 'TIMER', step: 0, timer: 'expiry' }, dueAt: 12_000 },
          ],
        ],
      ]);
      expect(await storage().nextDueAt(0)).toBeNull();
      expect(await storage().history(a)).toEqual([{ messageId: a, step: 0, channel: 'sms', status: 'Sent', at: 2_000, error: null }]);
      expect((await storage().getMessageWithHistory(b))?.history).toHaveLength(2);
      expect((await storage().history(b)).map((h) => [h.messageId, h.status, h.error])).toEqual([
        [b, 'Skipped', 'no route'],
        [b, 'Sent', null],
      ]);
    });

    it('replays a customerMessageId with the same content: original id, nothing inserted, no charge', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const original = newMessage({
        customerMessageId: 'order-1',
        content: '{"to":"1"}',
        history: [{ step: 0, channel: 'sms', status: 'Sent', at: 1, error: null }],
      });
      const first = await ingestAccepted(storage(), account.id, [original]);

      const fresh = newMessage({ charge: 10_000 });
      const again = await ingestAccepted(storage(), account.id, [fresh, { ...original, charge: 50_000 }]);
      expect(again.replays).toEqual([1]);
      expect(again.ids[1]).toBe(first.ids[0]);
      expect(again.ids[0]).not.toBe(first.ids[0]);
      expect(await storage().getBalance(account.id)).toBe(1_000_000 - 50_000 - 10_000);
      expect((await storage().listWalletTransactions(account.id, { kinds: ['charge'], page: 1, pageSize: 10 })).total).toBe(2);
      expect(await storage().history(first.ids[0]!)).toHaveLength(1);
      expect(await storage().claimDue(FAR, 100, 1, 'w1')).toHaveLength(2);

      // A request made only of replays answers the original list.
      const onlyReplay = await ingestAccepted(storage(), account.id, [original]);
      expect(onlyReplay).toEqual({ status: 'accepted', listId: first.listId, ids: first.ids, replays: [0] });
    });

    it('needs no funds for replays', async () => {
      const account = await createFundedAccount(storage(), 50_000);
      const original = newMessage({ customerMessageId: 'order-1', charge: 50_000 });
      const first = await ingestAccepted(storage(), account.id, [original]);
      expect(await storage().getBalance(account.id)).toBe(0);
      const again = await ingestAccepted(storage(), account.id, [newMessage({ charge: 0 }), original]);
      expect(again.ids[1]).toBe(first.ids[0]);
      expect(await storage().getBalance(account.id)).toBe(0);
    });

    it('scopes customerMessageId to the account', async () => {
      const one = await createFundedAccount(storage(), 1_000_000);
      const two = await createFundedAccount(storage(), 1_000_000);
      await ingestAccepted(storage(), one.id, [newMessage({ customerMessageId: 'shared', content: 'a' })]);
      const other = await ingestAccepted(storage(), two.id, [newMessage({ customerMessageId: 'shared', content: 'b' })]);
      expect(other.replays).toEqual([]);
    });

    it('refuses a known customerMessageId with other content and stores nothing', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      await ingestAccepted(storage(), account.id, [newMessage({ customerMessageId: 'order-1', content: 'one' })]);
      const before = await storage().getBalance(account.id);
      const result = await storage().ingest({
        accountId: account.id,
        at: 3_000,
        chargeDescription: 'SMS',
        messages: [newMessage({ guid: 'g-new', dueAt: 1 }), newMessage({ customerMessageId: 'order-1', content: 'two' })],
      });
      expect(result).toEqual({ status: 'conflict', indexes: [1] });
      expect(await storage().getBalance(account.id)).toBe(before);
      expect(await storage().getMessageByGuid('g-new')).toBeNull();
      expect(await storage().nextDueAt(0)).toBe(5_000);
    });

    it('refuses one customerMessageId twice in one batch and stores nothing', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const result = await storage().ingest({
        accountId: account.id,
        at: 3_000,
        chargeDescription: 'SMS',
        messages: [
          newMessage({ customerMessageId: 'dup', content: 'one' }),
          newMessage({ guid: 'g-ok' }),
          newMessage({ customerMessageId: 'dup', content: 'two' }),
        ],
      });
      expect(result).toEqual({ status: 'conflict', indexes: [0, 2] });
      expect(await storage().getBalance(account.id)).toBe(1_000_000);
      expect(await storage().getMessageByGuid('g-ok')).toBeNull();
      expect(await storage().nextDueAt(0)).toBeNull();
    });

    it('refuses a batch the balance does not cover and stores nothing', async () => {
      const account = await createFundedAccount(storage(), 120_000);
      const result = await storage().ingest({
        accountId: account.id,
        at: 3_000,
        chargeDescription: 'SMS',
        messages: [newMessage({ charge: 100_000, guid: 'g-1' }), newMessage({ charge: 50_000 })],
      });
      expect(result).toEqual({ status: 'insufficient_funds', balance: 120_000, required: 150_000 });
      expect(await storage().getBalance(account.id)).toBe(120_000);
      expect(await storage().getMessageByGuid('g-1')).toBeNull();
      expect((await storage().listWalletTransactions(account.id, { page: 1, pageSize: 10 })).total).toBe(1);
      expect(await storage().nextDueAt(0)).toBeNull();
    });

    it('ingestMany decides each request in order, in one call', async () => {
      const account = await createFundedAccount(storage(), 120_000);
      const batch = (messages: ReturnType<typeof newMessage>[]) => ({
        accountId: account.id,
        at: 3_000,
        chargeDescription: 'SMS',
        messages,
      });
      const results = await storage().ingestMany([
        batch([newMessage({ charge: 100_000, customerMessageId: 'm-1' })]),
        // Decided after the first: the balance left (20_000) does not cover it.
        batch([newMessage({ charge: 50_000 })]),
        batch([newMessage({ charge: 20_000 })]),
      ]);
      expect(results.map((r) => r.status)).toEqual(['accepted', 'insufficient_funds', 'accepted']);
      expect(results[1]).toEqual({ status: 'insufficient_funds', balance: 20_000, required: 50_000 });
      expect(await storage().getBalance(account.id)).toBe(0);
      expect(await storage().ingestMany([])).toEqual([]);
    });

    it('ingestMany sees the customerMessageIds of the requests before it: a replay, a conflict, ids in order', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const batch = (messages: ReturnType<typeof newMessage>[]) => ({
        accountId: account.id,
        at: 3_000,
        chargeDescription: 'SMS',
        messages,
      });
      const original = newMessage({ charge: 10_000, customerMessageId: 'order-7', content: 'same' });
      const results = await storage().ingestMany([
        batch([original, newMessage({ charge: 10_000 })]),
        batch([{ ...original }]),
        batch([newMessage({ charge: 10_000, customerMessageId: 'order-7', content: 'other' })]),
        batch([newMessage({ charge: 10_000 })]),
      ]);
      expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'conflict', 'accepted']);
      const [first, replay, , last] = results as Array<Extract<IngestResult, { status: 'accepted' }>>;
      expect(replay!.ids).toEqual([first!.ids[0]]);
      expect(replay!.replays).toEqual([0]);
      expect(last!.ids[0]).toBe(first!.ids[1]! + 1);
      expect(last!.listId).not.toBe(first!.listId);
      expect(await storage().getBalance(account.id)).toBe(1_000_000 - 30_000);
      expect((await storage().getMessage(last!.ids[0]!))?.listId).toBe(last!.listId);
    });

    it('stores a prepared request (prepareIngest) as it stores one not prepared, alone, grouped or replayed', async () => {
      const store = storage();
      /** Two accounts' stored messages, charges and history, side by side, without their ids. */
      const written = async (accountId: number, ids: number[]) => {
        const messages = await store.getMessages(ids);
        const charges = await store.listWalletTransactions(accountId, { kinds: ['charge'], page: 1, pageSize: 50 });
        return {
          messages: messages.map(({ id: _id, listId: _l, accountId: _a, ...m }) => m),
          charges: charges.items.map((t) => [ids.indexOf(t.messageId!), t.amount, t.balanceAfter]).sort((a, b) => a[0]! - b[0]!),
          history: await Promise.all(
            ids.map(async (id) =>
              (await store.history(id)).map(({ messageId, ...h }) => {
                expect(messageId).toBe(id);
                return h;
              }),
            ),
          ),
        };
      };
      // The same messages for both accounts: requests of three, one and two messages.
      const requests = [
        [
          newMessage({
            customerMessageId: 'p-1',
            content: 'same',
            history: [{ step: 0, channel: 'sms', status: 'Sent', at: 2_000, error: null }],
          }),
          newMessage({ charge: 0, meta: { referral: 'p' } }),
          newMessage({ charge: 70_000, work: [{ kind: 'send', step: 0, dueAt: 2_000 }] }),
        ],
        [newMessage({ charge: 30_000 })],
        [newMessage()],
      ] as const;
      const ingest = async (prepared: boolean) => {
        const account = await createFundedAccount(store, 1_000_000);
        const batch = (m: readonly NewMessage[]) => ({
          accountId: account.id,
          at: 2_000,
          chargeDescription: 'SMS',
          messages: m.map((x) => ({ ...x })),
          lease: { owner: 'w1', until: 9_000 },
        });
        const first = batch(requests[0]);
        const grouped = [batch(requests[0].slice(1)), batch(requests[1])];
        // A replay of the first request's first message: its plan inserts fewer than the batch holds.
        const replay = batch([requests[0][0], ...requests[2]]);
        if (prepared) for (const b of [first, ...grouped, replay]) store.prepareIngest?.(b);
        const results = [await store.ingest(first), ...(await store.ingestMany(grouped)), await store.ingest(replay)];
        const ids = results.flatMap((r) => (r.status === 'accepted' ? r.ids : []));
        expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
        expect(new Set(ids).size).toBe(ids.length - 1);
        return written(account.id, [...new Set(ids)]);
      };
      expect(await ingest(true)).toEqual(await ingest(false));
    });

    it('ingests 5000 messages in one call', async () => {
      const account = await createFundedAccount(storage(), 5000 * 50_000);
      const messages = Array.from({ length: 5000 }, () => newMessage());
      const result = await ingestAccepted(storage(), account.id, messages);
      expect(result.ids).toHaveLength(5000);
      expect(new Set(result.ids).size).toBe(5000);
      expect(await storage().getBalance(account.id)).toBe(0);
      expect((await storage().listWalletTransactions(account.id, { kinds: ['charge'], page: 1, pageSize: 1 })).total).toBe(5000);
      expect(await storage().claimDue(FAR, 10_000, 1, 'w1')).toHaveLength(5000);
      const last = await storage().getMessage(result.ids[4999]!);
      expect(last?.steps).toEqual(messages[4999]!.steps);
    });
  });
}
