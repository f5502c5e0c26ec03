import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.ts';
import type { InboundMessage, InboundStorage } from '../ports/inbound-storage.ts';

/** Options of {@link runInboundStorageContract}. */
export interface InboundStorageContractOptions {
  /** A fresh, migrated, empty store for each test. */
  create: () => Promise<InboundStorage> | InboundStorage;
  /** Called after each test with the store `create` answered. */
  dispose?: (store: InboundStorage) => Promise<void> | void;
}

const T0 = Date.UTC(2026, 0, 1);
const LEASE = 60_000;

function message(idUuid: string, overrides: Partial<InboundMessage> = {}): InboundMessage {
  return { idUuid, accountId: 1, alphaName: 'Shop', phoneNumber: '79991234567', text: 'hello', receivedAt: T0, ...overrides };
}

/**
 * The conformance suite of the inbound part of the storage port (incoming messages and the
 * webhook outbox); every adapter's test file calls it.
 * @example runInboundStorageContract({ create: () => createInboundStore(freshDb()) })
 */
export function runInboundStorageContract(options: InboundStorageContractOptions): void {
  const withStore = (fn: (s: InboundStorage) => Promise<void>) => async () => {
    const store = await options.create();
    try {
      await fn(store);
    } finally {
      await options.dispose?.(store);
    }
  };

  describe('inbound storage contract', () => {
    it(
      'records a message without delivery and reads it back for its account only',
      withStore(async (s) => {
        expect(await s.recordInbound(message('a'), null)).toBeNull();
        expect(await s.getInbound(1, 'a')).toEqual({ inbound: message('a'), delivery: null });
        expect(await s.getInbound(2, 'a')).toBeNull();
        expect(await s.getInbound(1, 'b')).toBeNull();
        expect(await s.claimDueDeliveries(T0 + 1e9, 10, LEASE)).toEqual([]);
      }),
    );

    it(
      'answers the last time a number wrote to an alpha-name of an account',
      withStore(async (s) => {
        expect(await s.lastInboundAt(1, 'Shop', '79991234567')).toBeNull();
        await s.recordInbound(message('a', { receivedAt: T0 + 5 }), null);
        await s.recordInbound(message('b', { receivedAt: T0 + 9 }), null);
        await s.recordInbound(message('c', { receivedAt: T0 + 7 }), null);
        await s.recordInbound(message('d', { receivedAt: T0 + 50, accountId: 2 }), null);
        await s.recordInbound(message('e', { receivedAt: T0 + 60, alphaName: 'Other' }), null);
        await s.recordInbound(message('f', { receivedAt: T0 + 70, phoneNumber: '79990000000' }), null);
        expect(await s.lastInboundAt(1, 'Shop', '79991234567')).toBe(T0 + 9);
        expect(await s.lastInboundAt(2, 'Shop', '79991234567')).toBe(T0 + 50);
        expect(await s.lastInboundAt(3, 'Shop', '79991234567')).toBeNull();
      }),
    );

    it(
      'writes the delivery with the message and hands it out once it is due',
      withStore(async (s) => {
        const stored = await s.recordInbound(message('a'), { url: 'https://example.com/hook', dueAt: T0 + 100 });
        expect(stored).toMatchObject({
          inboundId: 'a',
          accountId: 1,
          url: 'https://example.com/hook',
          status: 'pending',
          attempts: 0,
          lastError: null,
          dueAt: T0 + 100,
          deliveredAt: null,
        });
        expect(Number.isInteger(stored?.id)).toBe(true);
        expect((await s.getInbound(1, 'a'))?.delivery).toEqual(stored);
        expect(await s.claimDueDeliveries(T0 + 99, 10, LEASE)).toEqual([]);
        const claimed = await s.claimDueDeliveries(T0 + 100, 10, LEASE);
        expect(claimed).toEqual([{ ...stored, inbound: message('a') }]);
      }),
    );

    it(
      'leases claimed deliveries and hands them out again when the lease runs out (crash)',
      withStore(async (s) => {
        await s.recordInbound(message('a'), { url: 'https://example.com/hook', dueAt: T0 });
        expect(await s.claimDueDeliveries(T0, 10, LEASE)).toHaveLength(1);
        expect(await s.claimDueDeliveries(T0 + LEASE - 1, 10, LEASE)).toEqual([]);
        const again = await s.claimDueDeliveries(T0 + LEASE, 10, LEASE);
        expect(again.map((d) => d.inboundId)).toEqual(['a']);
        // The crashed attempt never completed, so it is not counted.
        expect(again[0]?.attempts).toBe(0);
      }),
    );

    it(
      'claims the oldest due first, up to the limit',
      withStore(async (s) => {
        await s.recordInbound(message('late'), { url: 'https://example.com/1', dueAt: T0 + 30 });
        await s.recordInbound(message('early'), { url: 'https://example.com/2', dueAt: T0 + 10 });
        await s.recordInbound(message('middle'), { url: 'https://example.com/3', dueAt: T0 + 20 });
        await s.recordInbound(message('future'), { url: 'https://example.com/4', dueAt: T0 + 1000 });
        expect((await s.claimDueDeliveries(T0 + 100, 2, LEASE)).map((d) => d.inboundId)).toEqual(['early', 'middle']);
        expect((await s.claimDueDeliveries(T0 + 100, 10, LEASE)).map((d) => d.inboundId)).toEqual(['late']);
      }),
    );

    it(
      'completes a delivery: delivered is final and counted',
      withStore(async (s) => {
        const d = await s.recordInbound(message('a'), { url: 'https://example.com/hook', dueAt: T0 });
        await s.claimDueDeliveries(T0, 10, LEASE);
        await s.completeDelivery(d!.id, { status: 'delivered' }, T0 + 5);
        expect((await s.getInbound(1, 'a'))?.delivery).toMatchObject({
          status: 'delivered',
          attempts: 1,
          deliveredAt: T0 + 5,
          lastError: null,
        });
        expect(await s.claimDueDeliveries(T0 + 10 * LEASE, 10, LEASE)).toEqual([]);
      }),
    );

    it(
      'schedules a retry: counts the attempt, keeps the error, releases the lease until the new due time',
      withStore(async (s) => {
        const d = await s.recordInbound(message('a'), { url: 'https://example.com/hook', dueAt: T0 });
        await s.claimDueDeliveries(T0, 10, LEASE);
        await s.completeDelivery(d!.id, { status: 'retry', dueAt: T0 + 10_000, error: 'HTTP 500' }, T0 + 1);
        expect((await s.getInbound(1, 'a'))?.delivery).toMatchObject({
          status: 'pending',
          attempts: 1,
          lastError: 'HTTP 500',
          dueAt: T0 + 10_000,
        });
        expect(await s.claimDueDeliveries(T0 + 9_999, 10, LEASE)).toEqual([]);
        const again = await s.claimDueDeliveries(T0 + 10_000, 10, LEASE);
        expect(again.map((x) => [x.inboundId, x.attempts])).toEqual([['a', 1]]);
        await s.completeDelivery(d!.id, { status: 'failed', error: 'HTTP 404' }, T0 + 10_001);
        expect((await s.getInbound(1, 'a'))?.delivery).toMatchObject({
          status: 'failed',
          attempts: 2,
          lastError: 'HTTP 404',
          deliveredAt: null,
        });
        expect(await s.claimDueDeliveries(T0 + 10 * LEASE, 10, LEASE)).toEqual([]);
      }),
    );

    it(
      'ignores the completion of a delivery that is no longer pending',
      withStore(async (s) => {
        const d = await s.recordInbound(message('a'), { url: 'https://example.com/hook', dueAt: T0 });
        await s.completeDelivery(d!.id, { status: 'delivered' }, T0 + 1);
        await s.completeDelivery(d!.id, { status: 'failed', error: 'late worker' }, T0 + 2);
        expect((await s.getInbound(1, 'a'))?.delivery).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
      }),
    );

    it(
      'rejects a reused idUuid with a conflict and leaves no delivery behind',
      withStore(async (s) => {
        await s.recordInbound(message('a'), null);
        const error = await s
          .recordInbound(message('a', { text: 'again' }), { url: 'https://example.com/hook', dueAt: T0 })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SpillwayError);
        expect((error as SpillwayError).code).toBe('conflict');
        expect(await s.getInbound(1, 'a')).toEqual({ inbound: message('a'), delivery: null });
        expect(await s.claimDueDeliveries(T0 + 1e9, 10, LEASE)).toEqual([]);
      }),
    );
  });
}
