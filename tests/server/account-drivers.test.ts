import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDrivers, parseDriversConfig } from '../../apps/server/src/drivers-config.ts';
import { startTestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import { startWebhookEndpoint } from '../../packages/channels/src/testing/webhook-endpoint.ts';
import { API_KEY, startServer, until } from '../support/server-fixture.ts';
import { runCli } from '../support/cli.ts';
import { startCallbackReceiver } from '../support/callback-receiver.ts';
import { WARN, capturedLog } from '../support/server-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-account-drivers-'));

/** A configuration file `name` in which the account `acme` sends SMS through its own SMPP bind to 127.0.0.1:`port`. */
function acmeSmscConfig(name: string, port: number): string {
  const file = join(dir, name);
  const smsc = { type: 'smpp', host: '127.0.0.1', port, systemId: 'acme', password: 'acme-smpp-secret' };
  writeFileSync(
    file,
    JSON.stringify({ drivers: {}, channels: {}, accounts: { acme: { drivers: { 'acme-smsc': smsc }, channels: { sms: ['acme-smsc'] } } } }),
  );
  return file;
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SPILLWAY_CONFIG accounts', () => {
  it("validates an account's drivers and channels like the server-wide ones, naming each problem's path", () => {
    const server = { drivers: { shared: { type: 'simulator' } }, channels: { sms: ['shared'] } };
    expect(() =>
      parseDriversConfig({
        ...server,
        accounts: {
          acme: {
            drivers: { 'acme-smsc': { type: 'smpp', host: 'smsc.acme.example', systemId: 'acme' }, Bad: { type: 'simulator' } },
            channels: { sms: ['acme-smsc', 'nope'], pager: ['acme-smsc'] },
          },
        },
      }),
    ).toThrow(
      /accounts\.acme\.drivers\.acme-smsc\.password: [\s\S]*accounts\.acme\.drivers\.Bad: driver names are lower-case[\s\S]*accounts\.acme\.channels: Unrecognized key: "pager"/,
    );
    // An account's channels name its own drivers, never another section's.
    expect(() =>
      parseDriversConfig({ ...server, accounts: { acme: { drivers: { mine: { type: 'simulator' } }, channels: { sms: ['shared'] } } } }),
    ).toThrow(/accounts\.acme\.channels\.sms\.0: no driver named "shared" in accounts\.acme\.drivers/);
    expect(() =>
      parseDriversConfig({
        ...server,
        accounts: {
          acme: { drivers: { shared: { type: 'simulator' } }, channels: { sms: ['shared'] } },
          beta: { drivers: { twin: { type: 'simulator' } }, channels: { sms: { drivers: ['twin'] } } },
          gamma: { drivers: { twin: { type: 'simulator' } }, channels: { sms: ['twin'] } },
        },
      }),
    ).toThrow(
      /accounts\.acme\.drivers\.shared: the driver name "shared" is already used by drivers\.shared[\s\S]*accounts\.gamma\.drivers\.twin: the driver name "twin" is already used by accounts\.beta\.drivers\.twin/,
    );
    expect(() => parseDriversConfig({ ...server, accounts: { acme: { channels: { sms: ['x'] } } } })).toThrow(/accounts\.acme\.drivers: /);
  });

  it("builds each account's drivers apart, behind a failover of its own for several, and reads their env: secrets", () => {
    const config = parseDriversConfig({
      drivers: { shared: { type: 'simulator' } },
      channels: { sms: ['shared'] },
      accounts: {
        acme: {
          drivers: {
            'acme-smsc': { type: 'smpp', host: 'smsc.acme.example', systemId: 'acme', password: 'env:ACME_SMPP_PASSWORD' },
            'acme-backup': { type: 'simulator' },
          },
          channels: { sms: { drivers: ['acme-smsc', 'acme-backup'], consecutiveFailures: 2 } },
        },
        beta: { drivers: { 'beta-sms': { type: 'simulator' } }, channels: { sms: ['beta-sms'] } },
      },
    });
    expect(() => buildDrivers(config, {}, () => 'http://x')).toThrow(/environment variables that are not set: ACME_SMPP_PASSWORD/);
    const built = buildDrivers(config, { ACME_SMPP_PASSWORD: 'p' }, () => 'http://x');
    expect(built.channels.map((d) => d.name)).toEqual(['shared']);
    expect(built.all.map((d) => d.name)).toEqual(['shared', 'acme-smsc', 'acme-backup', 'beta-sms']);
    expect([...built.accounts].map(([login, drivers]) => [login, drivers.map((d) => [d.name, d.channels])])).toEqual([
      ['acme', [['sms-failover@acme', ['sms']]]],
      ['beta', [['beta-sms', ['sms']]]],
    ]);
    expect(Object.fromEntries(built.ownerOf)).toEqual({ 'acme-smsc': 'acme', 'acme-backup': 'acme', 'beta-sms': 'beta' });
  });
});

describe("the server with accounts' own drivers", () => {
  it("sends that account's SMS through its bind and takes the receipts from it; other accounts use the server-wide driver", async () => {
    const smsc = await startTestSmsc({ systemId: 'acme', password: 'acme-smpp-secret' });
    const file = join(dir, 'accounts.json');
    writeFileSync(
      file,
      JSON.stringify({
        drivers: { 'shared-sms': { type: 'simulator', latencyMs: 20 } },
        channels: { sms: ['shared-sms'] },
        accounts: {
          acme: {
            drivers: {
              'acme-smsc': { type: 'smpp', host: '127.0.0.1', port: smsc.port, systemId: 'acme', password: 'env:ACME_SMPP_PASSWORD' },
            },
            channels: { sms: ['acme-smsc'] },
          },
          // Created after the start: its drivers serve it from its first send.
          later: { drivers: { 'later-sms': { type: 'simulator', latencyMs: 20 } }, channels: { sms: ['later-sms'] } },
        },
      }),
    );
    process.env['ACME_SMPP_PASSWORD'] = 'acme-smpp-secret';
    const { logger, lines: logged } = capturedLog();
    const receiver = await startCallbackReceiver();
    const f = await startServer({ SPILLWAY_CONFIG: file, SPILLWAY_ALLOW_PRIVATE_URLS: 'true' }, { logger });
    try {
      expect(logged.filter((l) => l.level === WARN && l.msg.startsWith('SPILLWAY_CONFIG accounts')).map((l) => l.login)).toEqual(['later']);
      const { engine } = f.server;
      const keyOf = async (login: string) => {
        const account = await engine.accounts.create({ login, password: `${login}-password-1`, balance: 100 });
        await engine.accounts.approveAlphaName(account.id, 'Acme');
        return (await engine.accounts.createKey(account.id)).key;
      };
      const keys = { acme: API_KEY, beta: await keyOf('beta'), later: await keyOf('later') };
      const send = async (key: string, to: string) => {
        const res = await f.call('/bat/messagelist', {
          headers: { 'x-authorization-key': key },
          json: { messages: [{ from: 'Acme', to, type: 'sms', text: 'Your code: 1234' }] },
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      };
      const ids = {
        acme: await send(keys.acme, '4915112345601'),
        beta: await send(keys.beta, '4915112345602'),
        later: await send(keys.later, '4915112345603'),
      };
      const record = async (login: keyof typeof keys) => {
        const res = await f.call(`/bat/message/${ids[login]}`, { method: 'GET', headers: { 'x-authorization-key': keys[login] } });
        return (await res.json()) as { deliverystatus: string; extendedStatuses: Array<{ status: string; driver: string | null }> };
      };
      const delivered = async (login: keyof typeof keys) =>
        until(
          () => record(login),
          (r) => r.deliverystatus === 'delivered',
          400,
        );
      const acme = await delivered('acme');
      expect(acme.extendedStatuses.map((s) => [s.status, s.driver])).toEqual([
        ['Sent', 'acme-smsc'],
        ['Delivered', 'acme-smsc'],
      ]);
      expect((await delivered('beta')).extendedStatuses.map((s) => s.driver)).toEqual(['shared-sms', 'shared-sms']);
      expect((await delivered('later')).extendedStatuses.map((s) => s.driver)).toEqual(['later-sms', 'later-sms']);
      // The account's bind carried its message alone.
      expect(smsc.submitted.map((s) => s.to)).toEqual(['4915112345601']);
      expect(smsc.binds).toBeGreaterThanOrEqual(1);
      expect(f.server.drivers.map((d) => d.name)).toEqual(['shared-sms', 'acme-smsc', 'later-sms']);

      // An MO on the account's own bind is the account's, although three accounts own "Acme".
      const acmeAccount = (await engine.accounts.getByLogin('acme'))!;
      await engine.accounts.setAlphaNameCallback(acmeAccount.id, 'Acme', receiver.url);
      smsc.deliverMo('4915100000777', 'Acme', 'STOP');
      const bodies = await until(
        async () => receiver.bodies,
        (b) => b.length > 0,
        400,
      );
      expect(bodies).toEqual([expect.objectContaining({ alphaName: 'Acme', phoneNumber: '4915100000777', text: 'STOP' })]);
    } finally {
      await receiver.close();
      await f.close();
      await smsc.close();
      delete process.env['ACME_SMPP_PASSWORD'];
    }
  }, 30_000);

  it('gives providers a callback origin on 127.0.0.1, not 0.0.0.0, when it listens on every interface without SPILLWAY_PUBLIC_URL, and says so', async () => {
    const secret = 'whsec_' + Buffer.from('spillway-wildcard-webhook-key').toString('base64');
    let serverUrl = '';
    const endpoint = await startWebhookEndpoint({ secret, receiptUrl: () => `${serverUrl}/channels/hook/receipts` });
    const file = join(dir, 'wildcard.json');
    writeFileSync(file, JSON.stringify({ drivers: { hook: { type: 'webhook', url: endpoint.url, secret } }, channels: { sms: ['hook'] } }));
    const { logger, lines } = capturedLog();
    const f = await startServer({ SPILLWAY_CONFIG: file, HOST: '0.0.0.0' }, { logger });
    serverUrl = f.url;
    try {
      const port = new URL(f.url).port;
      await f.call('/bat/messagelist', { json: { messages: [{ from: 'Acme', to: '4915112345678', type: 'sms', text: 'hello' }] } });
      await until(
        async () => endpoint.bodies.length,
        (n) => n > 0,
      );
      expect(endpoint.bodies[0]!['callbackUrl']).toBe(`http://127.0.0.1:${port}/channels/hook/receipts`);
      expect(lines.filter((l) => l.msg.startsWith('SPILLWAY_PUBLIC_URL is not set'))).toEqual([
        expect.objectContaining({ level: WARN, callbackOrigin: `http://127.0.0.1:${port}` }),
      ]);
    } finally {
      await f.close();
      await endpoint.close();
    }
  }, 30_000);

  it.each([
    ['a server-wide failover', (drivers: object, channels: object) => ({ drivers, channels })],
    [
      "an account's own failover",
      (drivers: object, channels: object) => ({ drivers: {}, channels: {}, accounts: { acme: { drivers, channels } } }),
    ],
  ])(
    "mounts a failover member's callback route; its receipts name the member, not %s",
    async (_, section) => {
      const secret = 'whsec_' + Buffer.from('spillway-account-webhook-key').toString('base64');
      let serverUrl = '';
      const endpoint = await startWebhookEndpoint({ secret, receiptUrl: () => `${serverUrl}/channels/acme-webhook/receipts` });
      const file = join(dir, `failover-webhook-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(
        file,
        JSON.stringify(
          section(
            { 'acme-webhook': { type: 'webhook', url: endpoint.url, secret }, 'acme-backup': { type: 'simulator' } },
            {
              sms: ['acme-webhook', 'acme-backup'],
            },
          ),
        ),
      );
      const f = await startServer({ SPILLWAY_CONFIG: file });
      serverUrl = f.url;
      try {
        const send = async (to: string) => {
          const res = await f.call('/bat/messagelist', { json: { messages: [{ from: 'Acme', to, type: 'sms', text: 'hello' }] } });
          return ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
        };
        const record = (id: number) => async () =>
          (await (await f.call(`/bat/message/${id}`, { method: 'GET' })).json()) as {
            deliverystatus: string;
            extendedStatuses: Array<{ status: string; driver: string | null }>;
          };
        // Delivered: the receipt names the message; undeliverable: it names only the provider's id,
        // which the engine stored under the member that carried the attempt.
        const delivered = await until(record(await send('4915112345678')), (r) => r.deliverystatus === 'delivered', 400);
        const failed = await until(record(await send('4915100000002')), (r) => r.deliverystatus === 'undeliverable', 400);
        expect(delivered.extendedStatuses.map((s) => [s.status, s.driver])).toEqual([
          ['Sent', 'acme-webhook'],
          ['Delivered', 'acme-webhook'],
        ]);
        expect(failed.extendedStatuses.map((s) => [s.status, s.driver])).toEqual([
          ['Sent', 'acme-webhook'],
          ['Failed', 'acme-webhook'],
        ]);
        expect(endpoint.bodies.map((b) => b['callbackUrl'])).toEqual([
          `${f.url}/channels/acme-webhook/receipts`,
          `${f.url}/channels/acme-webhook/receipts`,
        ]);
        expect(f.server.simulator.sent).toEqual([]);
      } finally {
        await f.close();
        await endpoint.close();
      }
    },
    30_000,
  );

  it("sends through an account's bind from the workers' thread (a database file: the workers run on a thread of their own)", async () => {
    const smsc = await startTestSmsc({ systemId: 'acme', password: 'acme-smpp-secret' });
    const file = acmeSmscConfig('threaded.json', smsc.port);
    const f = await startServer({ SPILLWAY_CONFIG: file, SPILLWAY_DB: join(dir, 'threaded.db') });
    try {
      const res = await f.call('/bat/messagelist', {
        json: { messages: [{ from: 'Acme', to: '4915112345699', type: 'sms', text: 'hi' }] },
      });
      const id = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
      const record = await until(
        async () =>
          (await (await f.call(`/bat/message/${id}`, { method: 'GET' })).json()) as {
            deliverystatus: string;
            extendedStatuses: Array<{ driver: string | null }>;
          },
        (r) => r.deliverystatus === 'delivered',
        600,
      );
      expect(record.extendedStatuses.map((s) => s.driver)).toEqual(['acme-smsc', 'acme-smsc']);
      expect(smsc.submitted.map((s) => s.to)).toEqual(['4915112345699']);
    } finally {
      await f.close();
      await smsc.close();
    }
  }, 30_000);

  it('stops at start when an account section is invalid', async () => {
    const file = join(dir, 'bad-accounts.json');
    writeFileSync(
      file,
      JSON.stringify({ drivers: {}, channels: {}, accounts: { acme: { drivers: { k: { type: 'kannel' } }, channels: { sms: ['k'] } } } }),
    );
    await expect(startServer({ SPILLWAY_CONFIG: file })).rejects.toThrow(
      /invalid .*bad-accounts\.json:[\s\S]*accounts\.acme\.drivers\.k\.sendsmsUrl/,
    );
  });

  it("spillway drivers check binds an account's own SMPP driver and names its account", async () => {
    const smsc = await startTestSmsc({ systemId: 'acme', password: 'acme-smpp-secret' });
    const file = acmeSmscConfig('check-accounts.json', smsc.port);
    try {
      const result = await runCli(['drivers', 'check'], { SPILLWAY_CONFIG: file, SPILLWAY_LOG_LEVEL: 'silent' });
      expect(result.stdout).toMatch(/^ok +acme-smsc \(sms, account acme\): bound to 127\.0\.0\.1:\d+ as acme; enquire_link answered$/m);
      expect(result.stdout).toMatch(/^- +sms: simulator$/m);
    } finally {
      await smsc.close();
    }
  }, 30_000);
});
