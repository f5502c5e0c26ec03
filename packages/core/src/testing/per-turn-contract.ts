import { describe, expect, it } from 'vitest';
import type { Storage } from '../ports/storage.ts';

/** Options of {@link runPerTurnReadsContract}. */
export interface PerTurnReadsContractOptions {
  name: string;
  /** Two migrated storages on one database, as two processes would open it; `close` ends both. */
  openTwo: () => Promise<{ a: Storage; b: Storage; close: () => Promise<void> }>;
  /** Skip the suite (no database configured). */
  skip?: boolean;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The reads an adapter memoizes for a turn of the event loop (an account's alpha-names, the
 * credential revision) still answer every write at once: through the same storage in the same
 * turn, and through another storage on the same database from the next turn on.
 */
export function runPerTurnReadsContract(options: PerTurnReadsContractOptions): void {
  describe.skipIf(options.skip ?? false)(`reads memoized per turn (${options.name})`, () => {
    async function opened() {
      const two = await options.openTwo();
      const account = await two.a.createAccount({ login: 'shop', name: 'Shop', passwordHash: 'x', currency: 'EUR' }, 0);
      return { ...two, account };
    }

    it('a write through this storage is read back at once, whichever store made it', async () => {
      const { a, account, close } = await opened();
      try {
        expect(await a.listAlphaNames(account.id)).toEqual([]);
        await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
        expect((await a.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Shop']);
        await a.setAlphaNameCallback(account.id, 'Shop', 'https://example.com/cb');
        expect((await a.listAlphaNames(account.id))[0]!.callbackUrl).toBe('https://example.com/cb');

        const before = await a.credentialRevision();
        const key = await a.createApiKey({ accountId: account.id, keyHash: 'h', prefix: 'p', label: 'k' }, 0);
        await a.revokeApiKey(account.id, key.id);
        const afterKey = await a.credentialRevision();
        expect(afterKey).toBeGreaterThan(before);
        // The chat hub store bumps the revision through its own reader of the same database handle.
        await a.revokeToken({ jti: 'token-1', expiresAt: null }, 0);
        expect(await a.credentialRevision()).toBeGreaterThan(afterKey);
      } finally {
        await close();
      }
    });

    it("another storage's change is seen by the reads of the next turn", async () => {
      const { a, b, account, close } = await opened();
      try {
        expect(await b.listAlphaNames(account.id)).toEqual([]);
        const revision = await b.credentialRevision();
        await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
        const key = await a.createApiKey({ accountId: account.id, keyHash: 'h', prefix: 'p', label: 'k' }, 0);
        await a.revokeApiKey(account.id, key.id);
        await nextTurn();
        expect((await b.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Shop']);
        expect(await b.credentialRevision()).toBeGreaterThan(revision);
      } finally {
        await close();
      }
    });

    it("one alpha-name is read at once, another storage's change included, whatever the turn's list holds", async () => {
      const { a, b, account, close } = await opened();
      try {
        expect(await b.listAlphaNames(account.id)).toEqual([]);
        // Read once before the change, so that a memo of this read too would answer it stale.
        expect(await b.getAlphaName(account.id, 'Shop')).toBeNull();
        await a.upsertAlphaName({ accountId: account.id, name: 'Shop', channels: ['sms'] });
        expect(await b.getAlphaName(account.id, 'Shop')).toMatchObject({ name: 'Shop', channels: ['sms'] });
      } finally {
        await close();
      }
    });
  });
}
