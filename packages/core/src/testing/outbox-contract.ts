import { describe, expect, it } from 'vitest';
import type { NewEffect } from '../types/effect.ts';
import type { Commit, ScheduledChange } from '../ports/message-storage.ts';
import { FAR, createFundedAccount, ingestAccepted, newMessage, step, type StorageRef } from './storage-contract-fixtures.ts';

const timer = (messageId: number, stepIndex: number, dueAt: number): NewEffect => ({
  messageId,
  kind: 'event',
  step: stepIndex,
  event: { type: 'TIMER', step: stepIndex, timer: 'expiry' },
  dueAt,
});

/** A commit that writes only what `parts` gives. */
const commitOf = (parts: Partial<Commit>): Commit => ({
  at: 1,
  updates: [],
  history: [],
  doneEffects: [],
  cancelTimers: [],
  newEffects: [],
  ...parts,
});

/** Message reads, `commit` and the effect outbox: the rest of {@link runStorageContract}. */
export function describeOutbox(storage: StorageRef): void {
  /** Ingests `count` messages without effects and answers their ids. */
  const messages = async (count: number) => {
    const account = await createFundedAccount(storage(), 1_000_000);
    const result = await ingestAccepted(
      storage(),
      account.id,
      Array.from({ length: count }, () => newMessage({ effects: [] })),
    );
    return { accountId: account.id, ids: result.ids };
  };
  const effectsAt = async (now: number) => (await storage().claimDueEffects(now, 1000, 1)).map(({ id: _id, ...e }) => e);

  describe('message reads', () => {
    it('finds messages by guid, by newest trackinId of the account, and by ids in the order asked', async () => {
      const account = await createFundedAccount(storage(), 1_000_000);
      const other = await createFundedAccount(storage(), 1_000_000);
      const { ids } = await ingestAccepted(storage(), account.id, [
        newMessage({ kind: 'cascade', guid: 'g-1', trackinId: 't-1' }),
        newMessage({ kind: 'cascade', guid: 'g-2', trackinId: 't-1' }),
      ]);
      await ingestAccepted(storage(), other.id, [newMessage({ kind: 'cascade', guid: 'g-3', trackinId: 't-1' })]);
      expect((await storage().getMessageByGuid('g-2'))?.id).toBe(ids[1]);
      expect(await storage().getMessageByGuid('nope')).toBeNull();
      expect((await storage().getMessageByTrackinId(account.id, 't-1'))?.guid).toBe('g-2');
      expect((await storage().getMessageByTrackinId(other.id, 't-1'))?.guid).toBe('g-3');
      expect(await storage().getMessageByTrackinId(account.id, 't-2')).toBeNull();
      expect((await storage().getMessages([ids[1]!, 999_999, ids[0]!])).map((m) => m.id)).toEqual([ids[1], ids[0]]);
      expect(await storage().getMessages([])).toEqual([]);
    });
  });

  describe('commit', () => {
    it('updates status, snapshot and cost, appends history in order, swaps effects', async () => {
      const { ids } = await messages(2);
      const [a, b] = ids as [number, number];
      await storage().appendHistory([{ messageId: a, step: 0, channel: 'sms', status: 'Clicked', at: 2_100, error: null }]);
      await storage().commit({
        at: 2_200,
        updates: [],
        history: [],
        doneEffects: [],
        newEffects: [{ messageId: a, kind: 'send', step: 0, event: null, dueAt: 2_200 }, timer(b, 0, 2_300)],
        cancelTimers: [],
      });
      const claimed = await storage().claimDueEffects(2_300, 10, 1_000);
      expect(claimed.map((e) => e.messageId)).toEqual([a, b]);

      await storage().commit({
        at: 3_000,
        updates: [
          {
            id: a,
            version: 0,
            status: 'processing',
            snapshot: { value: { sending: 'sms' }, context: { step: 0, attempt: 1 } },
            addCost: 7,
          },
        ],
        history: [
          { messageId: a, step: 0, channel: 'sms', status: 'Sent', at: 3_000, error: null },
          { messageId: a, step: 0, channel: 'sms', status: 'Delivered', at: 3_001, error: null },
        ],
        doneEffects: [claimed[0]!.id],
        newEffects: [{ messageId: a, kind: 'event', step: 0, event: { type: 'DELIVERED', step: 0 }, dueAt: 3_500 }],
        cancelTimers: [],
      });
      const message = await storage().getMessage(a);
      expect(message).toMatchObject({
        status: 'processing',
        snapshot: { value: { sending: 'sms' }, context: { step: 0, attempt: 1 } },
        cost: 50_007,
        updatedAt: 3_000,
        createdAt: 2_000,
      });
      expect((await storage().getMessage(b))?.updatedAt).toBe(2_000);
      expect((await storage().history(a)).map((h) => h.status)).toEqual(['Clicked', 'Sent', 'Delivered']);
      // After the lease ran out, the done effect is gone and the other comes back.
      expect(await effectsAt(10_000)).toEqual([
        timer(b, 0, 2_300),
        { messageId: a, kind: 'event', step: 0, event: { type: 'DELIVERED', step: 0 }, dueAt: 3_500 },
      ]);
    });

    it('cancelTimers drops only pending TIMER events of the message (and step), never sends or DUE', async () => {
      const { ids } = await messages(2);
      const [a, b] = ids as [number, number];
      const kept: NewEffect[] = [
        { messageId: a, kind: 'send', step: 1, event: null, dueAt: 100 },
        { messageId: a, kind: 'event', step: 0, event: { type: 'DUE' }, dueAt: 101 },
        { messageId: a, kind: 'event', step: 1, event: { type: 'FAILED', step: 1, failure: 'temporary' }, dueAt: 102 },
        timer(b, 1, 103),
      ];
      const base = { updates: [], history: [], doneEffects: [] };
      await storage().commit({ ...base, at: 10, newEffects: [...kept, timer(a, 0, 200), timer(a, 1, 201)], cancelTimers: [] });

      await storage().commit({ ...base, at: 11, newEffects: [], cancelTimers: [{ messageId: a, step: 1 }] });
      await storage().commit({ ...base, at: 12, newEffects: [], cancelTimers: [{ messageId: 999_999 }] });
      // Cancelling and arming in one step keeps the timer armed by that step.
      await storage().commit({ ...base, at: 13, newEffects: [timer(a, 2, 300)], cancelTimers: [{ messageId: a, step: 2 }] });
      expect(await storage().nextDueAt(0)).toBe(100);
      const afterStep = await effectsAt(FAR);
      expect(afterStep).toEqual([...kept, timer(a, 0, 200), timer(a, 2, 300)]);
    });

    it('cancelTimers without a step drops every TIMER of the message', async () => {
      const { ids } = await messages(2);
      const [a, b] = ids as [number, number];
      const base = { updates: [], history: [], doneEffects: [] };
      await storage().commit({ ...base, at: 10, newEffects: [timer(a, 0, 200), timer(a, 1, 201), timer(b, 0, 202)], cancelTimers: [] });
      await storage().commit({ ...base, at: 11, newEffects: [], cancelTimers: [{ messageId: a }] });
      expect(await effectsAt(FAR)).toEqual([timer(b, 0, 202)]);
    });
  });

  describe('claimDueEffects', () => {
    it('hands out due effects by dueAt then id, honours the limit, and leases them', async () => {
      const { ids } = await messages(1);
      const m = ids[0]!;
      const send = (dueAt: number): NewEffect => ({ messageId: m, kind: 'send', step: dueAt, event: null, dueAt });
      await storage().commit(commitOf({ at: 1, newEffects: [send(300), send(100), send(200), send(100), send(5_000)] }));
      expect(await storage().nextDueAt(0)).toBe(100);

      const firstTwo = await storage().claimDueEffects(250, 2, 1_000);
      expect(firstTwo.map((e) => e.dueAt)).toEqual([100, 100]);
      expect(firstTwo[0]!.id).toBeLessThan(firstTwo[1]!.id);
      expect(await storage().nextDueAt(250)).toBe(200);

      const rest = await storage().claimDueEffects(250, 10, 1_000);
      expect(rest.map((e) => e.dueAt)).toEqual([200]);
      expect(await storage().claimDueEffects(300, 10, 1_000)).toEqual([expect.objectContaining({ dueAt: 300 })]);
      expect(await storage().claimDueEffects(1_249, 10, 1_000)).toEqual([]);
      expect(await storage().nextDueAt(1_249)).toBe(5_000);

      // The leases taken at 250 ran out at 1_250: those effects come back, still in order.
      const again = await storage().claimDueEffects(1_250, 10, 1_000);
      expect(again.map((e) => e.id)).toEqual([...firstTwo, ...rest].map((e) => e.id));
      expect(await storage().claimDueEffects(1_250, 0, 1_000)).toEqual([]);
    });

    it('answers null from nextDueAt when the outbox is empty', async () => {
      expect(await storage().nextDueAt(0)).toBeNull();
    });
  });

  describe('optimistic concurrency', () => {
    it('applies an update only over the version it read; a conflicted message gets nothing written and its effects back', async () => {
      const { ids } = await messages(2);
      const [a, b] = ids as [number, number];
      const snapshot = (step: number) => ({ value: { processing: 'awaiting' }, context: { step } });
      const timerA = timer(a, 0, 6_000);
      await storage().commit(commitOf({ at: 1, newEffects: [timerA, timer(b, 0, 6_000)] }));
      const claimed = await storage().claimDueEffects(6_000, 10, 60_000);
      const effectOf = (messageId: number) => claimed.find((e) => e.messageId === messageId)!.id;
      expect((await storage().getMessage(a))?.version).toBe(0);

      // A first worker moves message a on.
      const first = await storage().commit({
        at: 7_000,
        updates: [{ id: a, version: 0, status: 'processing', snapshot: snapshot(1) }],
        history: [],
        doneEffects: [],
        cancelTimers: [],
        newEffects: [],
      });
      expect(first).toEqual({ conflicts: [] });
      expect((await storage().getMessage(a))?.version).toBe(1);

      // A second worker read a at version 0: its step for a is refused whole, b's applies.
      const entry = (messageId: number) => ({
        messageId,
        step: 0,
        channel: 'sms' as const,
        status: 'Expired' as const,
        at: 7_500,
        error: null,
      });
      const second = await storage().commit({
        at: 7_500,
        updates: [
          { id: a, version: 0, status: 'undeliverable', snapshot: snapshot(0) },
          { id: b, version: 0, status: 'undeliverable', snapshot: snapshot(0) },
        ],
        history: [entry(a), entry(b)],
        doneEffects: [effectOf(a), effectOf(b)],
        cancelTimers: [{ messageId: a }],
        newEffects: [timer(a, 1, 9_000)],
      });
      expect(second).toEqual({ conflicts: [a] });
      expect(await storage().getMessage(a)).toMatchObject({ status: 'processing', snapshot: snapshot(1), version: 1 });
      expect(await storage().getMessage(b)).toMatchObject({ status: 'undeliverable', version: 1 });
      expect(await storage().history(a)).toEqual([]);
      expect(await storage().history(b)).toEqual([entry(b)]);
      // a's consumed timer is claimable again at once (lease released), b's is gone, a's new one never came.
      expect(await effectsAt(7_500)).toEqual([timerA]);
    });

    it('bumps the version on updateScheduled', async () => {
      const { ids } = await messages(1);
      const message = (await storage().getMessage(ids[0]!))!;
      const changed = await storage().updateScheduled(
        message.id,
        {
          steps: message.steps,
          content: message.content,
          dueAt: 9_000,
          expiresAt: null,
          status: 'scheduled',
          snapshot: message.snapshot,
          addCost: 0,
          history: [],
        },
        3_000,
      );
      expect(changed).toBe(true);
      expect((await storage().getMessage(message.id))?.version).toBe(message.version + 1);
    });
  });

  describe('scheduled messages', () => {
    const change = (overrides: Partial<ScheduledChange> = {}): ScheduledChange => ({
      steps: [step('999111111111', { text: 'changed' })],
      content: '{"changed":true}',
      dueAt: 8_000,
      expiresAt: 68_000,
      status: 'scheduled',
      snapshot: { value: 'scheduled', context: { step: 0, last: 1, retries: 0 } },
      addCost: 10,
      history: [],
      ...overrides,
    });
    const due = (messageId: number, dueAt: number): NewEffect => ({ messageId, kind: 'event', step: 0, event: { type: 'DUE' }, dueAt });

    it('updateScheduled changes a scheduled message and moves its DUE effect, and nothing else', async () => {
      const { ids } = await messages(2);
      const [a, b] = ids as [number, number];
      await storage().commit(commitOf({ at: 1, newEffects: [due(a, 5_000), timer(a, 0, 6_000), due(b, 5_000)] }));
      const before = await storage().getMessage(a);
      expect(await storage().updateScheduled(a, change(), 3_000)).toBe(true);
      expect(await storage().getMessage(a)).toMatchObject({
        steps: change().steps,
        content: '{"changed":true}',
        dueAt: 8_000,
        expiresAt: 68_000,
        status: 'scheduled',
        snapshot: change().snapshot,
        cost: before!.cost + 10,
        updatedAt: 3_000,
      });
      expect(await effectsAt(FAR)).toEqual([due(b, 5_000), timer(a, 0, 6_000), due(a, 8_000)]);
    });

    it('updateScheduled cancels: final status, its history, and the DUE effect dropped', async () => {
      const { ids } = await messages(1);
      const [a] = ids as [number];
      await storage().commit({ at: 1, updates: [], history: [], doneEffects: [], cancelTimers: [], newEffects: [due(a, 5_000)] });
      const entry = { messageId: a, step: 0, channel: 'sms' as const, status: 'Cancelled' as const, at: 3_000, error: null };
      const cancelled = change({ status: 'cancelled', snapshot: { value: 'cancelled', context: {} }, history: [entry], addCost: -50_000 });
      expect(await storage().updateScheduled(a, cancelled, 3_000)).toBe(true);
      expect(await storage().getMessage(a)).toMatchObject({ status: 'cancelled', cost: 0 });
      expect(await storage().history(a)).toEqual([entry]);
      expect(await effectsAt(FAR)).toEqual([]);
    });

    it('updateScheduled changes nothing once the message is no longer scheduled', async () => {
      const { ids } = await messages(1);
      const [a] = ids as [number];
      await storage().commit({
        at: 1,
        updates: [{ id: a, version: 0, status: 'processing', snapshot: { value: { processing: 'sending' }, context: { step: 0 } } }],
        history: [],
        doneEffects: [],
        cancelTimers: [],
        newEffects: [],
      });
      const before = await storage().getMessage(a);
      expect(
        await storage().updateScheduled(
          a,
          change({ history: [{ messageId: a, step: 0, channel: 'sms', status: 'Cancelled', at: 3_000, error: null }] }),
          3_000,
        ),
      ).toBe(false);
      expect(await storage().getMessage(a)).toEqual(before);
      expect(await storage().history(a)).toEqual([]);
    });
  });
}
