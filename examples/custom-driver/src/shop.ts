import { createSpillway } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { createBeaconDriver } from './beacon-driver.ts';

/**
 * Spillway with SMS carried by the Beacon driver: its delivery-report route is mounted by
 * createSpillway under `/channels/beacon/dlr`, and the callback URL follows the port once known.
 */
export async function startShop(options: { beaconUrl: string; apiToken: string; callbackToken: string; port?: number; filename?: string }) {
  let publicUrl = 'http://127.0.0.1';
  const spillway = createSpillway({
    storage: createSqliteStorage({ filename: options.filename ?? ':memory:' }),
    channels: [
      createBeaconDriver({
        baseUrl: options.beaconUrl,
        apiToken: options.apiToken,
        callbackToken: options.callbackToken,
        callbackUrl: () => `${publicUrl}/channels/beacon/dlr`,
      }),
    ],
    publicUrl: () => publicUrl,
  });
  const server = await spillway.listen({ port: options.port ?? 0 });
  publicUrl = `http://127.0.0.1:${server.port}`;
  const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
  await spillway.engine.accounts.approveAlphaName(account.id, 'MyShop');
  return { spillway, url: publicUrl, account };
}
