import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { usage } from '../../apps/server/src/cli-commands.ts';
import { cli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-alphanames-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spillway alphanames', () => {
  it('approves a name on more channels keeping the ones it has, and prints its channels and the ones it added', async () => {
    // `approve --channels sms` on a name with more channels left it with ["sms"], silently.
    const db = join(dir, 'approve.db');
    await cli(db, 'accounts', 'create', '--login', 'shop', '--password', 'shop-password');
    expect(await cli(db, 'alphanames', 'approve', '--login', 'shop', '--name', 'Acme', '--channels', 'sms,chatapp')).toMatchObject({
      name: 'Acme',
      channels: ['sms', 'chatapp'],
      added: ['sms', 'chatapp'],
    });
    expect(await cli(db, 'alphanames', 'approve', '--login', 'shop', '--name', 'Acme', '--channels', 'sms')).toMatchObject({
      channels: ['sms', 'chatapp'],
      added: [],
    });
    expect(await cli(db, 'alphanames', 'approve', '--login', 'shop', '--name', 'Acme', '--channels', 'rcs')).toMatchObject({
      channels: ['sms', 'chatapp', 'rcs'],
      added: ['rcs'],
    });

    // Narrowing is a revocation, with a reason: the name keeps the other channels.
    expect(
      await cli(
        db,
        'alphanames',
        'revoke',
        '--login',
        'shop',
        '--name',
        'Acme',
        '--channels',
        'chatapp',
        '--reason',
        'chat-app account closed',
      ),
    ).toMatchObject({
      alphaName: 'Acme',
      reason: 'chat-app account closed',
      accounts: [{ channels: ['chatapp'], channelsLeft: ['sms', 'rcs'] }],
    });
    expect(await cli(db, 'alphanames', 'list', '--login', 'shop')).toEqual([
      expect.objectContaining({ name: 'Acme', channels: ['sms', 'rcs'] }),
    ]);
    await expect(cli(db, 'alphanames', 'revoke', '--login', 'shop', '--name', 'Acme')).rejects.toThrow(/--reason is required/);
    expect(await cli(db, 'alphanames', 'revoke', '--login', 'shop', '--name', 'Acme', '--reason', 'brand sold')).toMatchObject({
      accounts: [{ channels: ['sms', 'rcs'], channelsLeft: [] }],
    });
    expect(await cli(db, 'alphanames', 'list', '--login', 'shop')).toEqual([]);
  }, 120_000);

  it('says in its help that approve adds channels and revoke withdraws them', () => {
    const lines = usage().split('\n');
    expect(lines.find((l) => l.includes('alphanames approve'))).toMatch(/adds .*keeps/);
    expect(lines.find((l) => l.includes('alphanames revoke'))).toMatch(/--reason R/);
  });
});
