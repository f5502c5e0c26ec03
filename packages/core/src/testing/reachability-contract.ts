import { describe, expect, it } from 'vitest';
import type { ReachabilityStorage } from '../ports/reachability-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { UnreachableEntry } from '../types/reachability.ts';

/** Options of {@link runReachabilityStorageContract}. */
export interface ReachabilityStorageContractOptions {
  /** A fresh, migrated, empty storage for each test. */
  create: () => Promise<Storage & ReachabilityStorage> | (Storage & ReachabilityStorage);
  /** Called after each test with the storage `create` answered. */
  dispose?: (storage: Storage & ReachabilityStorage) => Promise<void> | void;
}

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

const entry = (accountId: number, overrides: Partial<UnreachableEntry> = {}): UnreachableEntry => ({
  accountId,
  phoneNumber: '4915100000001',
  channel: 'messenger',
  reason: 'Bot API 403: Forbidden: bot was blocked by the user',
  driver: 'telegram',
  messageId: 7,
  at: T0,
  expiresAt: T0 + DAY,
  ...overrides,
});

/**
 * The conformance suite of the reachability memory's records; every adapter's test file calls it.
 * @example runReachabilityStorageContract({ create: async () => { const s = createSqliteStorage(); await s.migrate(); return s; } })
 */
export function runReachabilityStorageContract(options: ReachabilityStorageContractOptions): void {
  const withStore = (fn: (s: Storage & ReachabilityStorage) => Promise<void>) => async () => {
    const store = await options.create();
    try {
      await fn(store);
    } finally {
      await options.dispose?.(store);
    }
  };
  const accounts = async (s: Storage) => {
    const a = await s.createAccount({ login: 'reach-a', name: 'A', passwordHash: 'h', currency: 'EUR' }, T0);
    const b = await s.createAccount({ login: 'reach-b', name: 'B', passwordHash: 'h', currency: 'EUR' }, T0);
    return [a.id, b.id] as const;
  };

  describe('reachability storage contract', () => {
    it(
      'remembers per account, number and channel until the entry expires',
      withStore(async (s) => {
        const [a, b] = await accounts(s);
        await s.rememberUnreachable([
          entry(a),
          entry(a, { channel: 'chatapp', reason: 'receiverNotRegistered', driver: null, messageId: null }),
          entry(b, { phoneNumber: '4915100000002' }),
        ]);
        const listed = await s.listUnreachable(a, '4915100000001', T0 + 1);
        expect(listed).toEqual([
          entry(a, { channel: 'chatapp', reason: 'receiverNotRegistered', driver: null, messageId: null }),
          entry(a),
        ]);
        // Another account's memory is its own.
        expect(await s.listUnreachable(b, '4915100000001', T0 + 1)).toEqual([]);
        expect(await s.listUnreachable(a, '4915100000002', T0 + 1)).toEqual([]);

        const keys = [
          { accountId: a, phoneNumber: '4915100000001', channel: 'messenger' as const },
          { accountId: a, phoneNumber: '4915100000001', channel: 'messenger' as const },
          { accountId: a, phoneNumber: '4915100000001', channel: 'sms' as const },
          { accountId: b, phoneNumber: '4915100000001', channel: 'messenger' as const },
          { accountId: b, phoneNumber: '4915100000002', channel: 'messenger' as const },
        ];
        const found = await s.findUnreachable(keys, T0 + 1);
        expect(found.map((e) => `${e.accountId === a ? 'a' : 'b'}:${e.phoneNumber}:${e.channel}`).sort()).toEqual([
          'a:4915100000001:messenger',
          'b:4915100000002:messenger',
        ]);
        // Expired at its expiry time: found no more, listed no more.
        expect(await s.findUnreachable(keys, T0 + DAY)).toEqual([]);
        expect(await s.listUnreachable(a, '4915100000001', T0 + DAY)).toEqual([]);
      }),
    );

    it(
      'keeps the latest answer of a key, whatever order the batches come in',
      withStore(async (s) => {
        const [a] = await accounts(s);
        await s.rememberUnreachable([
          entry(a, { at: T0 + 10, expiresAt: T0 + 10 + DAY, reason: 'later' }),
          entry(a, { reason: 'earlier' }),
        ]);
        await s.rememberUnreachable([entry(a, { at: T0 + 5, expiresAt: T0 + 5 + DAY, reason: 'stale' })]);
        expect((await s.listUnreachable(a, '4915100000001', T0 + 20)).map((e) => e.reason)).toEqual(['later']);
        await s.rememberUnreachable([entry(a, { at: T0 + 30, expiresAt: T0 + 30 + DAY, reason: 'newest' })]);
        const [latest] = await s.listUnreachable(a, '4915100000001', T0 + 40);
        expect(latest).toMatchObject({ reason: 'newest', at: T0 + 30, expiresAt: T0 + 30 + DAY });
      }),
    );

    it(
      'clears one channel or the whole number, of one account only, and prunes what expired',
      withStore(async (s) => {
        const [a, b] = await accounts(s);
        await s.rememberUnreachable([
          entry(a),
          entry(a, { channel: 'chatapp_bot' }),
          entry(a, { channel: 'chatapp', expiresAt: T0 + 10 }),
          entry(b),
        ]);
        expect(await s.clearUnreachable(a, '4915100000001', 'chatapp_bot')).toBe(1);
        expect((await s.listUnreachable(a, '4915100000001', T0)).map((e) => e.channel)).toEqual(['chatapp', 'messenger']);
        expect(await s.pruneUnreachable(T0 + 10)).toBe(1);
        expect((await s.listUnreachable(a, '4915100000001', T0)).map((e) => e.channel)).toEqual(['messenger']);
        expect(await s.clearUnreachable(a, '4915100000001')).toBe(1);
        expect(await s.clearUnreachable(a, '4915100000001')).toBe(0);
        expect(await s.listUnreachable(b, '4915100000001', T0)).toHaveLength(1);
      }),
    );
  });
}
