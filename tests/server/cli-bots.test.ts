import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, readConfig } from '@spillway/server';
import { usage } from '../../apps/server/src/cli-commands.ts';
import { cli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-bots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spillway bots', () => {
  it('revokes an approved bot of an account with a reason, of one kind or of both', async () => {
    const db = join(dir, 'bots.db');
    await cli(db, 'accounts', 'create', '--login', 'shop', '--password', 'shop-password');
    const { key } = await cli(db, 'keys', 'create', '--login', 'shop');
    const server = await createServer(readConfig({ SPILLWAY_DB: db, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' }), { demoAccount: false });
    const { url } = await server.listen();
    const apply = (botName: string, kind: string) =>
      fetch(`${url}/bots/application`, {
        method: 'POST',
        headers: { 'x-authorization-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ botName, kind, companyName: 'Shop Ltd', description: 'Support' }),
      }).then(async (r) => (await r.json()) as { id: number });
    const messenger = await apply('support', 'messenger_bot');
    const chatapp = await apply('support', 'chatapp_bot');
    await server.close();
    for (const app of [messenger, chatapp]) await cli(db, 'applications', 'approve', '--id', String(app.id));

    await expect(cli(db, 'bots', 'revoke', '--login', 'shop', '--name', 'support')).rejects.toThrow(/--reason is required/);
    await expect(cli(db, 'bots', 'revoke', '--login', 'shop', '--name', 'support', '--reason', 'x', '--kind', 'sms')).rejects.toThrow(
      /--kind is messenger_bot or chatapp_bot/,
    );
    const one = await cli(db, 'bots', 'revoke', '--login', 'shop', '--name', 'support', '--kind', 'chatapp_bot', '--reason', 'closed');
    expect(one).toMatchObject({ botName: 'support', reason: 'closed', revokedAt: expect.any(String) });
    expect(one.applications).toEqual([
      expect.objectContaining({ id: chatapp.id, kind: 'chatapp_bot', status: 'revoked', reason: 'closed' }),
    ]);
    // Times are ISO text, as the other commands print them.
    expect(one.applications[0].decidedAt).toBe(one.revokedAt);

    const rest = await cli(db, 'bots', 'revoke', '--login', 'shop', '--name', 'support', '--reason', 'Bot token leaked');
    expect(rest.applications.map((a: { id: number }) => a.id)).toEqual([messenger.id]);
    await expect(cli(db, 'bots', 'revoke', '--login', 'shop', '--name', 'support', '--reason', 'again')).rejects.toThrow(
      /not an approved bot/,
    );
    const revoked = await cli(db, 'applications', 'list', '--status', 'revoked');
    expect(revoked.map((a: { id: number }) => a.id).sort()).toEqual([messenger.id, chatapp.id].sort());
  }, 120_000);

  it('says in its help that revoke takes a reason and a kind', () => {
    expect(
      usage()
        .split('\n')
        .find((l) => l.includes('bots revoke')),
    ).toMatch(/--name N --reason R \[--kind messenger_bot\|chatapp_bot\]/);
  });
});
