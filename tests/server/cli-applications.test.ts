import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, readConfig } from '@spillway/server';
import { cli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-apps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spillway applications', () => {
  it('lists pending applications and approves (the name is approved) or rejects them with a reason', async () => {
    const db = join(dir, 'apps.db');
    await cli(db, 'accounts', 'create', '--login', 'shop', '--password', 'shop-password', '--balance', '5');
    const { key } = await cli(db, 'keys', 'create', '--login', 'shop');
    const server = await createServer(readConfig({ SPILLWAY_DB: db, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' }), { demoAccount: false });
    const { url } = await server.listen();
    const apply = (alphaName: string) =>
      fetch(`${url}/api/AlphaName/sms/application`, {
        method: 'POST',
        headers: { 'x-authorization-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ alphaName, companyName: 'Shop Ltd', description: 'Receipts' }),
      }).then(async (r) => (await r.json()) as { id: number });
    const good = await apply('ShopNews');
    const bad = await apply('Bank');
    await server.close();

    const pending = await cli(db, 'applications', 'list', '--status', 'pending');
    expect(pending.map((a: { name: string }) => a.name).sort()).toEqual(['Bank', 'ShopNews']);
    expect(await cli(db, 'applications', 'approve', '--id', String(good.id))).toMatchObject({ status: 'approved' });
    await expect(cli(db, 'applications', 'reject', '--id', String(bad.id))).rejects.toThrow(/--reason is required/);
    expect(await cli(db, 'applications', 'reject', '--id', String(bad.id), '--reason', 'misleading name')).toMatchObject({
      status: 'rejected',
      reason: 'misleading name',
    });
    await expect(cli(db, 'applications', 'approve', '--id', String(bad.id))).rejects.toThrow(/rejected already/);
    expect(await cli(db, 'alphanames', 'list', '--login', 'shop')).toEqual([
      expect.objectContaining({ name: 'ShopNews', channels: ['sms'] }),
    ]);
  }, 60_000);
});
