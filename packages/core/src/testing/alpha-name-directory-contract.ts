import { describe, expect, it } from 'vitest';
import type { AlphaNameDirectory } from '../ports/alpha-name-directory.ts';
import type { Storage } from '../ports/storage.ts';

/** Options of {@link runAlphaNameDirectoryContract}. */
export interface AlphaNameDirectoryContractOptions {
  /** A fresh, migrated, empty storage for each test. */
  create: () => Promise<Storage & AlphaNameDirectory> | (Storage & AlphaNameDirectory);
  dispose?: (storage: Storage & AlphaNameDirectory) => Promise<void> | void;
}

/**
 * The conformance suite of {@link AlphaNameDirectory} (who owns an address an incoming message was
 * sent to); every adapter's test file calls it.
 */
export function runAlphaNameDirectoryContract(options: AlphaNameDirectoryContractOptions): void {
  describe('alpha-name directory contract', () => {
    it('finds every account owning exactly that name, oldest account first, with its channels', async () => {
      const s = await options.create();
      try {
        const a = await s.createAccount({ login: 'dir-a', name: 'A', passwordHash: 'h', currency: 'EUR' }, 1);
        const b = await s.createAccount({ login: 'dir-b', name: 'B', passwordHash: 'h', currency: 'EUR' }, 1);
        await s.upsertAlphaName({ accountId: b.id, name: 'Shop', channels: ['chatapp'] });
        await s.upsertAlphaName({ accountId: a.id, name: 'Shop', channels: ['sms'] });
        await s.upsertAlphaName({ accountId: a.id, name: 'shop', channels: ['sms'] });
        const owners = await s.findAlphaNameOwners('Shop');
        expect(owners.map((o) => [o.accountId, o.name, o.channels])).toEqual([
          [a.id, 'Shop', ['sms']],
          [b.id, 'Shop', ['chatapp']],
        ]);
        expect(await s.findAlphaNameOwners('Nobody')).toEqual([]);
      } finally {
        await options.dispose?.(s);
      }
    });
  });
}
