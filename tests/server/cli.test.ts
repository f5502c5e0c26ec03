import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, readConfig } from '@spillway/server';
import { cli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spillway CLI', () => {
  it('creates an account, an API key and an approved alpha-name that the server then accepts', async () => {
    const db = join(dir, 'cli.db');
    expect(await cli(db, 'accounts', 'create', '--login', 'shop', '--password', 'shop-password', '--balance', '5')).toMatchObject({
      login: 'shop',
    });
    const { key } = (await cli(db, 'keys', 'create', '--login', 'shop')) as { key: string };
    expect(key).toMatch(/^sk_/);
    expect(await cli(db, 'alphanames', 'approve', '--login', 'shop', '--name', 'Shop', '--channels', 'sms')).toMatchObject({
      name: 'Shop',
      channels: ['sms'],
    });
    await expect(cli(db, 'alphanames', 'approve', '--login', 'shop', '--name', 'X', '--channels', 'fax')).rejects.toThrow(
      /unknown channel/,
    );

    const server = await createServer(readConfig({ SPILLWAY_DB: db, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' }));
    try {
      const account = await server.engine.accounts.authenticateKey(key);
      expect(account?.login).toBe('shop');
      const sent = await server.engine.messages.send(account!.id, {
        messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'hi' }],
      });
      expect(sent.messages).toHaveLength(1);
      // Approved on sms only: a chat-app message from it is refused.
      await expect(
        server.engine.messages.send(account!.id, { messages: [{ from: 'Shop', to: '99900000000', type: 'chatapp_service', text: 'hi' }] }),
      ).rejects.toMatchObject({ status: 400 });
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('bootstrap', () => {
  it('ensures the account, key, alpha-names and balance at every start without duplicating them', async () => {
    const env = {
      SPILLWAY_DB: join(dir, 'boot.db'),
      PORT: '0',
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_BOOTSTRAP_LOGIN: 'ops',
      SPILLWAY_BOOTSTRAP_PASSWORD: 'ops-password',
      SPILLWAY_BOOTSTRAP_API_KEY: 'sk_ops_key_0123456789',
      SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Ops, Alerts',
      SPILLWAY_BOOTSTRAP_BALANCE: '20',
    };
    for (let start = 0; start < 2; start++) {
      const server = await createServer(readConfig(env));
      const account = await server.engine.accounts.authenticateKey('sk_ops_key_0123456789');
      expect(account?.login).toBe('ops');
      expect(await server.engine.accounts.authenticatePassword('ops', 'ops-password')).not.toBeNull();
      expect((await server.engine.accounts.listAlphaNames(account!.id)).map((a) => a.name)).toEqual(['Alerts', 'Ops']);
      expect(await server.engine.accounts.listKeys(account!.id)).toHaveLength(1);
      expect(await server.engine.accounts.balance(account!.id)).toEqual({ balance: 20, currency: 'EUR' });
      await server.close();
    }
  });

  it('refuses a bad configuration naming the variable', () => {
    expect(() => readConfig({ SPILLWAY_RATE_MESSAGING: 'fast' })).toThrow(/SPILLWAY_RATE_MESSAGING/);
    expect(() => readConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });
});

describe('spillway CLI input checks', () => {
  it('revokes a key, and refuses bad amounts and rates', async () => {
    const db = join(dir, 'checks.db');
    await cli(db, 'accounts', 'create', '--login', 'ops', '--password', 'ops-password');
    const { apiKey } = (await cli(db, 'keys', 'create', '--login', 'ops')) as { apiKey: { id: number } };
    expect(await cli(db, 'keys', 'revoke', '--login', 'ops', '--id', String(apiKey.id))).toEqual({ revoked: true });
    expect(await cli(db, 'keys', 'list', '--login', 'ops')).toEqual([]);
    await expect(cli(db, 'accounts', 'topup', '--login', 'ops', '--amount', 'abc')).rejects.toThrow(/positive amount/);
    await expect(cli(db, 'accounts', 'rate-limit', '--login', 'ops', '--category', 'data', '--rate', '0/0')).rejects.toThrow(/burst/);
  }, 60_000);
});
