import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, readConfig } from '@spillway/server';
import { cli, runCli } from '../support/cli.ts';
import { bootstrapDatabase } from '../support/bootstrap-database.ts';
import { WARN, capturedLog } from '../support/server-log.ts';
import type { LogLine } from '../support/server-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spillway CLI', () => {
  it('creates an account, an API key and an approved alpha-name that the server then accepts', async () => {
    const db = join(dir, 'cli.db');
    // Times as the API writes them (ISO 8601), not the storage's milliseconds.
    const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    expect(await cli(db, 'accounts', 'create', '--login', 'shop', '--password', 'shop-password', '--balance', '5')).toMatchObject({
      login: 'shop',
      createdAt: expect.stringMatching(ISO),
    });
    const { key, apiKey } = (await cli(db, 'keys', 'create', '--login', 'shop')) as { key: string; apiKey: { createdAt: unknown } };
    expect(key).toMatch(/^sk_/);
    expect(apiKey.createdAt).toMatch(ISO);
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
    const { env } = bootstrapDatabase(dir, 'boot-together');
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

  /** The server's log, and the warnings in it that show the demo account's credentials. */
  const warnings = () => {
    const { logger, lines } = capturedLog();
    type Credentials = LogLine & { login?: string; password?: string; apiKey?: string };
    const demo = () => lines.filter((l): l is Credentials => l.level === WARN && l.msg.startsWith('created the demo account'));
    return { logger, demo };
  };

  it('creates one demo account, and logs its credentials once, when processes start together on a fresh database', async () => {
    const { logger, demo } = warnings();
    const env = {
      SPILLWAY_DB: join(dir, 'demo-together.db'),
      PORT: '0',
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_WORKER_THREAD: 'false',
      SPILLWAY_HTTP_THREADS: '1',
    };
    const started = await Promise.allSettled(
      [1, 2, 3].map(async () => {
        const server = await createServer(readConfig(env), { logger });
        await server.listen();
        return server;
      }),
    );
    try {
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const shown = demo();
      expect(shown).toHaveLength(1);
      const { engine } = (started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createServer>>>).value;
      // The credentials logged are the ones that work.
      expect((await engine.accounts.authenticatePassword('demo', shown[0]!.password!))?.login).toBe('demo');
      expect((await engine.accounts.authenticateKey(shown[0]!.apiKey!))?.login).toBe('demo');
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.close();
    }
  });

  // Regression: a first start whose port was taken logged the demo account's credentials, then
  // failed; the next start found the account, and nobody ever saw credentials that worked.
  it('logs the demo credentials once the server listens: a first start that cannot listen creates no account', async () => {
    const taken = createHttpServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const port = (taken.address() as AddressInfo).port;
    const env = {
      SPILLWAY_DB: join(dir, 'demo-port-taken.db'),
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_WORKER_THREAD: 'false',
      SPILLWAY_HTTP_THREADS: '1',
    };
    const first = warnings();
    const failed = await createServer(readConfig({ ...env, PORT: String(port) }), { logger: first.logger, designerDir: false });
    try {
      await expect(failed.listen()).rejects.toThrow(/^PORT, HOST: cannot listen on 127\.0\.0\.1:\d+: listen EADDRINUSE/);
      expect(first.demo()).toEqual([]);
      expect(await failed.engine.accounts.getByLogin('demo')).toBeNull();
    } finally {
      await failed.close();
      await new Promise<void>((done) => taken.close(() => done()));
    }
    const next = warnings();
    const server = await createServer(readConfig({ ...env, PORT: '0' }), { logger: next.logger, designerDir: false });
    try {
      // Not before it listens.
      expect(next.demo()).toEqual([]);
      await server.listen();
      const [shown] = next.demo();
      expect(shown?.login).toBe('demo');
      expect((await server.engine.accounts.authenticatePassword('demo', shown!.password!))?.login).toBe('demo');
      expect((await server.engine.accounts.authenticateKey(shown!.apiKey!))?.login).toBe('demo');
    } finally {
      await server.close();
    }
  });

  it('refuses a bad configuration naming the variable', () => {
    expect(() => readConfig({ SPILLWAY_RATE_MESSAGING: 'fast' })).toThrow(/SPILLWAY_RATE_MESSAGING/);
    expect(() => readConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('reads boolean variables in the usual spellings and refuses anything else, naming the variable', () => {
    const flags = (value: string | undefined) => {
      const c = readConfig({ SPILLWAY_ALLOW_PRIVATE_URLS: value, SPILLWAY_WORKER_THREAD: value });
      return [c.SPILLWAY_ALLOW_PRIVATE_URLS, c.SPILLWAY_WORKER_THREAD];
    };
    for (const yes of ['true', 'TRUE', '1', 'yes', 'Yes', 'on', ' ON ']) expect(flags(yes)).toEqual([true, true]);
    for (const no of ['false', 'False', '0', 'no', 'NO', 'off', 'Off']) expect(flags(no)).toEqual([false, false]);
    // Empty or unset: the default (private URLs refused, workers on their own thread).
    expect(flags('')).toEqual([false, true]);
    expect(flags(undefined)).toEqual([false, true]);
    // `yes` was read as false and `maybe` as true, silently.
    expect(() => readConfig({ SPILLWAY_ALLOW_PRIVATE_URLS: 'enabled' })).toThrow(
      /SPILLWAY_ALLOW_PRIVATE_URLS: expected true\/false, 1\/0, yes\/no or on\/off, got "enabled"/,
    );
    expect(() => readConfig({ SPILLWAY_WORKER_THREAD: 'maybe' })).toThrow(/SPILLWAY_WORKER_THREAD: .*got "maybe"/);
  });

  it('stops `serve` at start on an unrecognised boolean variable, naming it', async () => {
    const failed = (await runCli(['serve'], {
      SPILLWAY_DB: join(dir, 'bool.db'),
      PORT: '0',
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_WORKER_THREAD: 'maybe',
    }).catch((error: unknown) => error)) as { code: number; stderr: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^invalid configuration:\n {2}SPILLWAY_WORKER_THREAD: expected true\/false, .*got "maybe"$/m);
  }, 30_000);

  it('names SPILLWAY_RATE_CARD and what is wrong in it, and refuses a DATABASE_URL that is not PostgreSQL', () => {
    expect(() => readConfig({ SPILLWAY_RATE_CARD: '{bad' })).toThrow(/SPILLWAY_RATE_CARD: not valid JSON/i);
    expect(() => readConfig({ SPILLWAY_RATE_CARD: '{"currency":"EUR","types":{"sms":-1}}' })).toThrow(/SPILLWAY_RATE_CARD: types\.sms: /);
    expect(readConfig({ SPILLWAY_RATE_CARD: '{"currency":"EUR","types":{"sms":70000}}' }).SPILLWAY_RATE_CARD).toBeDefined();
    // Any other URL was silently ignored: the server ran on the SQLite file instead.
    expect(() => readConfig({ DATABASE_URL: 'mysql://root@db/spillway' })).toThrow(/DATABASE_URL: .*postgres/);
    expect(readConfig({ DATABASE_URL: 'postgresql://u@db/x' }).DATABASE_URL).toBe('postgresql://u@db/x');
    expect(readConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
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

  it('accepts an opening balance of 0 and still refuses a negative or malformed one', async () => {
    const db = join(dir, 'balance.db');
    // A new account with no money was refused: "--balance must be a positive amount".
    expect(await cli(db, 'accounts', 'create', '--login', 'empty', '--password', 'empty-password', '--balance', '0')).toMatchObject({
      login: 'empty',
    });
    for (const bad of ['--balance=-5', '--balance=abc', '--balance=', '--balance=0x10']) {
      await expect(cli(db, 'accounts', 'create', '--login', 'bad', '--password', 'bad-password', bad)).rejects.toThrow(
        /--balance must be an amount of 0 or more/,
      );
    }
    await expect(cli(db, 'accounts', 'topup', '--login', 'empty', '--amount', '0')).rejects.toThrow(/--amount must be a positive amount/);
    const server = await createServer(readConfig({ SPILLWAY_DB: db, PORT: '0', SPILLWAY_LOG_LEVEL: 'silent' }), { demoAccount: false });
    try {
      const account = await server.engine.accounts.getByLogin('empty');
      expect(await server.engine.accounts.balance(account!.id)).toEqual({ balance: 0, currency: 'EUR' });
      expect(await server.engine.accounts.getByLogin('bad')).toBeNull();
    } finally {
      await server.close();
    }
  }, 60_000);

  it('exits 1 naming the key or signing key when `keys revoke` or `tokens retire` finds nothing to do', async () => {
    const db = join(dir, 'nothing-done.db');
    const env = { DATABASE_URL: '', SPILLWAY_DB: db, SPILLWAY_LOG_LEVEL: 'silent' };
    await cli(db, 'accounts', 'create', '--login', 'ops', '--password', 'ops-password');
    const { apiKey } = (await cli(db, 'keys', 'create', '--login', 'ops')) as { apiKey: { id: number } };
    const failed = (args: string[]) =>
      runCli(args, env).then(
        (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    // They printed `{ "revoked": false }` / `{ "retired": false }` and exited 0.
    const unknownKey = await failed(['keys', 'revoke', '--login', 'ops', '--id', String(apiKey.id + 100)]);
    expect(unknownKey).toMatchObject({ code: 1, stdout: '' });
    expect(unknownKey.stderr).toMatch(
      new RegExp(`^no active API key ${apiKey.id + 100} of "ops" \\(never one of its keys, or already revoked: see \`keys list\`\\)$`, 'm'),
    );
    expect(await cli(db, 'keys', 'revoke', '--login', 'ops', '--id', String(apiKey.id))).toEqual({ revoked: true });
    expect((await failed(['keys', 'revoke', '--login', 'ops', '--id', String(apiKey.id)])).code).toBe(1);

    const unknownKid = await failed(['tokens', 'retire', '--kid', 'no-such-kid']);
    expect(unknownKid).toMatchObject({ code: 1, stdout: '' });
    expect(unknownKid.stderr).toMatch(/^no signing key "no-such-kid" \(see `tokens keys`\)$/m);
    const [first] = (await cli(db, 'tokens', 'keys')) as Array<{ kid: string }>;
    await cli(db, 'tokens', 'rotate');
    expect(await cli(db, 'tokens', 'retire', '--kid', first!.kid)).toEqual({ retired: true });
    const again = await failed(['tokens', 'retire', '--kid', first!.kid]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^signing key "${first!.kid}" is already retired$`, 'm'));
    // A dozen CLI commands from source, one after the other: 42-44 s on CI today, 60 beside other work.
  }, 120_000);

  it('applies a rate limit changed with the CLI to a running server at its next request (the cached authentication held the old one 30 s)', async () => {
    const db = join(dir, 'rate-live.db');
    const key = 'sk_rate_live_0123456789';
    const server = await createServer(
      readConfig({
        SPILLWAY_DB: db,
        PORT: '0',
        SPILLWAY_LOG_LEVEL: 'silent',
        SPILLWAY_HTTP_THREADS: '1',
        SPILLWAY_BOOTSTRAP_LOGIN: 'live',
        SPILLWAY_BOOTSTRAP_PASSWORD: 'live-password',
        SPILLWAY_BOOTSTRAP_API_KEY: key,
      }),
    );
    try {
      const { url } = await server.listen();
      const balance = () => fetch(`${url}/bat/balance`, { headers: { 'x-authorization-key': key } }).then((r) => r.status);
      // Authenticated, and so cached, under the default limit of 50/75.
      expect([await balance(), await balance()]).toEqual([200, 200]);
      expect(await cli(db, 'accounts', 'rate-limit', '--login', 'live', '--category', 'data', '--rate', '1/1')).toEqual({ ok: true });
      expect([await balance(), await balance()]).toEqual([200, 429]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('names the --role flag the user typed, not the variable it stands for', async () => {
    const failed = (await runCli(['serve', '--role', 'workers'], { SPILLWAY_DB: join(dir, 'role.db'), SPILLWAY_LOG_LEVEL: 'silent' }).catch(
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^--role is all, api or worker, got "workers"/m);
  }, 30_000);
});
