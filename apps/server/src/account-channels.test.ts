import { createSimulator } from '@spillway/channels';
import { createSqliteStorage } from '@spillway/sqlite';
import { expect, it } from 'vitest';
import { createConfiguredAccountChannels } from './account-channels.ts';

// Logins are one regardless of case: a `SPILLWAY_CONFIG` account named `Shop` is the account
// `shop`, whose sends must get its drivers as its incoming messages get routed to it.
it('gives an account the drivers of its login configured in another case, and not to an older account differing by case', async () => {
  const storage = createSqliteStorage();
  try {
    const shop = await storage.createAccount({ login: 'shop', name: 'Shop', passwordHash: 'h', currency: 'EUR' }, 1);
    // An account kept from before logins were one regardless of case: found by its exact spelling only.
    const legacy = storage.db
      .prepare(`INSERT INTO accounts (login, name, password_hash, currency, created_at) VALUES ('SHOP', 'Old', 'h', 'EUR', 0) RETURNING id`)
      .get() as { id: number };
    const drivers = [createSimulator()];
    const channels = createConfiguredAccountChannels(new Map([['Shop', drivers]]), storage);

    expect(await channels.forAccount(shop.id)).toBe(drivers);
    expect(await channels.forAccount(legacy.id)).toBeUndefined();
    expect(await channels.unknownLogins()).toEqual([]);
  } finally {
    await storage.close();
  }
});
