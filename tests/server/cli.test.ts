import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, readConfig } from '@spillway/server';
import type { CreateServerOptions } from '@spillway/server';
import { cli, runCli } from '../support/cli.ts';

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

  it('starts processes that bootstrap one fresh database at the same time (an API and its workers started together)', async () => {
    const env = {
      SPILLWAY_DB: join(dir, 'boot-together.db'),
      PORT: '0',
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_BOOTSTRAP_LOGIN: 'ops',
      SPILLWAY_BOOTSTRAP_PASSWORD: 'ops-password',
      SPILLWAY_BOOTSTRAP_API_KEY: 'sk_ops_key_0123456789',
      SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Ops',
      SPILLWAY_BOOTSTRAP_BALANCE: '20',
    };
    const started = await Promise.allSettled([1, 2, 3].map(() => createServer(readConfig(env))));
    try {
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const server = (started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createServer>>>).value;
      const account = await server.engine.accounts.authenticateKey('sk_ops_key_0123456789');
      expect(account?.login).toBe('ops');
      expect(await server.engine.accounts.listKeys(account!.id)).toHaveLength(1);
      expect((await server.engine.accounts.listAlphaNames(account!.id)).map((a) => a.name)).toEqual(['Ops']);
      // Topped up to the configured balance once, not once per process.
      expect(await server.engine.accounts.balance(account!.id)).toEqual({ balance: 20, currency: 'EUR' });
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.close();
    }
  });

  it('creates one demo account, and logs its credentials once, when processes start together on a fresh database', async () => {
    const logged: Array<{ msg: string; password?: string; apiKey?: string }> = [];
    const quiet = () => {};
    // The server's warnings, as its pino logger is called (merge object first, message second).
    const logger = {
      warn: (meta: { password?: string; apiKey?: string }, msg: string) => logged.push({ ...meta, msg }),
      info: quiet,
      error: quiet,
      debug: quiet,
      trace: quiet,
      fatal: quiet,
    } as unknown as CreateServerOptions['logger'];
    const env = { SPILLWAY_DB: join(dir, 'demo-together.db'), PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' };
    const started = await Promise.allSettled([1, 2, 3].map(() => createServer(readConfig(env), { ...(logger ? { logger } : {}) })));
    try {
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const shown = logged.filter((l) => l.msg.startsWith('created the demo account'));
      expect(shown).toHaveLength(1);
      const { engine } = (started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createServer>>>).value;
      // The credentials logged are the ones that work.
      expect((await engine.accounts.authenticatePassword('demo', shown[0]!.password!))?.login).toBe('demo');
      expect((await engine.accounts.authenticateKey(shown[0]!.apiKey!))?.login).toBe('demo');
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.close();
    }
  });

  it('refuses a bad configuration naming the variable', () => {
    expect(() => readConfig({ SPILLWAY_RATE_MESSAGING: 'fast' })).toThrow(/SPILLWAY_RATE_MESSAGING/);
    expect(() => readConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('names SPILLWAY_RATE_CARD and what is wrong in it, and refuses a DATABASE_URL that is not PostgreSQL', () => {
    expect(() => readConfig({ SPILLWAY_RATE_CARD: '{bad' })).toThrow(/SPILLWAY_RATE_CARD: not valid JSON/i);
    expect(() => readConfig({ SPILLWAY_RATE_CARD: '{"currency":"EUR","types":{"sms":-1}}' })).toThrow(/SPILLWAY_RATE_CARD: types\.sms: /);
    expect(readConfig({ SPILLWAY_RATE_CARD: '{"currency":"EUR","types":{"sms":70000}}' }).SPILLWAY_RATE_CARD).toBeDefined();
    // Any other URL was silently ignored: the server ran on the SQLite file instead.
    expect(() => readConfig({ DATABASE_URL: 'mysql://root@db/spillway' })).toThrow(/DATABASE_URL: .*postgres/);
    expect(readConfig({ DATABASE_URL: 'postgresql://u@db/x' }).DATABASE_URL).toBe('postgresql://u@db/x');
    expect(readConfig({ DATABASE_URL: '' }).DATABASE_URL).toBe('');
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

  it('names the --role flag the user typed, not the variable it stands for', async () => {
    const failed = (await runCli(['serve', '--role', 'workers'], { SPILLWAY_DB: join(dir, 'role.db'), SPILLWAY_LOG_LEVEL: 'silent' }).catch(
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^--role is all, api or worker, got "workers"/m);
  }, 30_000);
});
