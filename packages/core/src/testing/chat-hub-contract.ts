import { describe, expect, it } from 'vitest';
import type { ChatHubStorage } from '../ports/chat-hub-storage.ts';

/** Options of {@link runChatHubStorageContract}. */
export interface ChatHubStorageContractOptions {
  /** A fresh, migrated, empty store for each test. */
  create: () => Promise<ChatHubStorage> | ChatHubStorage;
  /** Called after each test with the store `create` answered. */
  dispose?: (store: ChatHubStorage) => Promise<void> | void;
}

/**
 * The conformance suite of the chat hub part of the storage port; every adapter's test file calls it.
 * @example runChatHubStorageContract({ create: () => createChatHubStore(freshDb()) })
 */
export function runChatHubStorageContract(options: ChatHubStorageContractOptions): void {
  const withStore = (fn: (s: ChatHubStorage) => Promise<void>) => async () => {
    const store = await options.create();
    try {
      await fn(store);
    } finally {
      await options.dispose?.(store);
    }
  };

  describe('chat hub storage contract', () => {
    describe('operators', () => {
      it(
        'creates operators with distinct integer ids and reads them back',
        withStore(async (s) => {
          const a = await s.createOperator({ accountId: 1, name: 'Ann' }, 1000);
          const b = await s.createOperator({ accountId: 2, name: 'Bob' }, 2000);
          expect(Number.isInteger(a.id)).toBe(true);
          expect(Number.isInteger(b.id)).toBe(true);
          expect(a.id).not.toBe(b.id);
          expect(a).toEqual({ id: a.id, accountId: 1, name: 'Ann', createdAt: 1000 });
          expect(await s.getOperator(b.id)).toEqual({ id: b.id, accountId: 2, name: 'Bob', createdAt: 2000 });
          expect(await s.getOperator(b.id + 1000)).toBeNull();
        }),
      );

      it(
        'lists only the account operators, oldest first',
        withStore(async (s) => {
          const a1 = await s.createOperator({ accountId: 1, name: 'first' }, 1);
          await s.createOperator({ accountId: 2, name: 'other' }, 2);
          const a2 = await s.createOperator({ accountId: 1, name: 'second' }, 3);
          expect((await s.listOperators(1)).map((o) => o.id)).toEqual([a1.id, a2.id]);
          expect(await s.listOperators(3)).toEqual([]);
        }),
      );

      it(
        'deletes an operator only for its own account',
        withStore(async (s) => {
          const op = await s.createOperator({ accountId: 1, name: 'Ann' }, 1);
          expect(await s.deleteOperator(2, op.id)).toBe(false);
          expect(await s.getOperator(op.id)).not.toBeNull();
          expect(await s.deleteOperator(1, op.id)).toBe(true);
          expect(await s.getOperator(op.id)).toBeNull();
          expect(await s.deleteOperator(1, op.id)).toBe(false);
        }),
      );

      it(
        'never reuses the id of a deleted operator',
        withStore(async (s) => {
          await s.createOperator({ accountId: 1, name: 'a' }, 1);
          const b = await s.createOperator({ accountId: 1, name: 'b' }, 2);
          await s.deleteOperator(1, b.id);
          const c = await s.createOperator({ accountId: 1, name: 'c' }, 3);
          expect(c.id).not.toBe(b.id);
        }),
      );
    });

    describe('revoked tokens', () => {
      it(
        'remembers a revocation by jti and keeps the first one',
        withStore(async (s) => {
          expect(await s.getRevokedToken('j1')).toBeNull();
          await s.revokeToken({ jti: 'j1', expiresAt: 5000 }, 100);
          await s.revokeToken({ jti: 'j1', expiresAt: 9000 }, 200);
          expect(await s.getRevokedToken('j1')).toEqual({ jti: 'j1', revokedAt: 100, expiresAt: 5000 });
          expect(await s.getRevokedToken('j2')).toBeNull();
        }),
      );

      it(
        'prunes only revocations of tokens expired before the given time',
        withStore(async (s) => {
          await s.revokeToken({ jti: 'old', expiresAt: 1000 }, 1);
          await s.revokeToken({ jti: 'live', expiresAt: 5000 }, 1);
          await s.revokeToken({ jti: 'forever', expiresAt: null }, 1);
          expect(await s.pruneRevokedTokens(2000)).toBe(1);
          expect(await s.getRevokedToken('old')).toBeNull();
          expect(await s.getRevokedToken('live')).not.toBeNull();
          expect(await s.getRevokedToken('forever')).not.toBeNull();
        }),
      );
    });

    describe('signing keys', () => {
      it(
        'adds keys and lists the active ones oldest first',
        withStore(async (s) => {
          expect(await s.listActiveSigningKeys()).toEqual([]);
          const k1 = await s.addSigningKey({ kid: 'k1', secret: 's1' }, 10);
          await s.addSigningKey({ kid: 'k2', secret: 's2' }, 10);
          expect(k1).toEqual({ kid: 'k1', secret: 's1', createdAt: 10, retiredAt: null });
          expect((await s.listActiveSigningKeys()).map((k) => k.kid)).toEqual(['k1', 'k2']);
        }),
      );

      it(
        'refuses a taken kid with a conflict',
        withStore(async (s) => {
          await s.addSigningKey({ kid: 'k1', secret: 's1' }, 10);
          await expect(s.addSigningKey({ kid: 'k1', secret: 'other' }, 20)).rejects.toMatchObject({ code: 'conflict' });
          expect((await s.listSigningKeys()).map((k) => k.secret)).toEqual(['s1']);
        }),
      );

      it(
        'retires a key once: it leaves the active list but stays in the full list',
        withStore(async (s) => {
          await s.addSigningKey({ kid: 'k1', secret: 's1' }, 10);
          await s.addSigningKey({ kid: 'k2', secret: 's2' }, 20);
          expect(await s.retireSigningKey('k1', 30)).toBe(true);
          expect(await s.retireSigningKey('k1', 40)).toBe(false);
          expect(await s.retireSigningKey('nope', 40)).toBe(false);
          expect((await s.listActiveSigningKeys()).map((k) => k.kid)).toEqual(['k2']);
          expect(await s.listSigningKeys()).toEqual([
            { kid: 'k1', secret: 's1', createdAt: 10, retiredAt: 30 },
            { kid: 'k2', secret: 's2', createdAt: 20, retiredAt: null },
          ]);
        }),
      );
    });
  });
}
