import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import type { AccountService } from '../engine/engine-types.ts';
import type { ClientStorage, NewOrganization } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import { createClientService } from './client-service.ts';

describe('the client-management services, called by an embedder', () => {
  // They refused U+0000 as the engine's own services do, but handed a lone UTF-16 surrogate to the
  // storage as given (PostgreSQL stores U+FFFD for it, SQLite its WTF-8 bytes): the same wrapper
  // now looks through their arguments once for both.
  it('hand the storage strings made well-formed, and refuse U+0000 before it', async () => {
    const stored: NewOrganization[] = [];
    const storage = {
      createOrganization: async (input: NewOrganization, at: number) => {
        stored.push(input);
        return { id: 1, ...input, createdAt: at };
      },
    } as unknown as Storage & ClientStorage;
    const clients = createClientService({ storage, accounts: {} as AccountService, clock: createFakeClock() });
    const org = await clients.addOrganization(7, { name: 'Sh\ud800op', taxId: '1234' });
    expect(org.name).toBe('Sh\uFFFDop');
    await expect(clients.addOrganization(7, { name: 'Shop\u0000', taxId: '1234' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'name' }],
    });
    expect(stored.map((o) => o.name)).toEqual(['Sh\uFFFDop']);
  });
});
