import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '@spillway/core';
import type { OutboundAttempt } from '@spillway/core';
import { buildDrivers, parseDriversConfig } from '../../apps/server/src/drivers-config.ts';
import { startWebhookEndpoint } from '../../packages/channels/src/testing/webhook-endpoint.ts';
import { startTestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import { startServer, until } from '../support/server-fixture.ts';
import { runCli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-drivers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const secret = 'whsec_' + Buffer.from('spillway-server-driver-test-key').toString('base64');
const smsAttempt: OutboundAttempt = {
  messageId: 1,
  accountId: 1,
  step: 0,
  try: 0,
  idempotencyKey: '1:0:0',
  partsCount: 1,
  channel: 'sms',
  type: 'sms',
  from: 'Shop',
  to: '4915100000140',
  text: 'hi',
  ttl: 60,
};

describe('SPILLWAY_CONFIG', () => {
  it('names every problem with its path', () => {
    expect(() =>
      parseDriversConfig({
        drivers: { a: { type: 'smpp', host: 'smsc', systemId: 'x' }, b: { type: 'fax' } },
        channels: { sms: ['a', 'c'], pager: ['a'] },
      }),
    ).toThrow(/drivers\.a\.password: .*\n.*drivers\.b\.type: Invalid discriminator value.*\n.*channels: Unrecognized key: "pager"/);
    // The long-MO give-up time of an SMPP driver can be set in the file.
    expect(
      parseDriversConfig({
        drivers: { smsc: { type: 'smpp', host: 'smsc', systemId: 'x', password: 'p', moPartsTimeoutMs: 60_000 } },
        channels: {},
      }).drivers['smsc'],
    ).toMatchObject({ moPartsTimeoutMs: 60_000 });
    // An unknown key is told what it was probably meant to be; the channels are listed.
    expect(() =>
      parseDriversConfig({
        drivers: {
          smsc: { type: 'smpp', host: 'smsc', sytemId: 'x', password: 'p' },
          k: { type: 'kannel', sendsmsUrl: 'http://k', username: 'u', password: 'p', dlrmask: 3 },
        },
        channels: { SMS: { drivers: ['smsc'], consecutiveFailure: 3 } },
        acounts: {},
      }),
    ).toThrow(
      new RegExp(
        [
          'drivers\\.smsc: Unrecognized key: "sytemId" \\(did you mean "systemId"\\?\\)',
          'drivers\\.k: Unrecognized key: "dlrmask" \\(did you mean "dlrMask"\\?\\)',
          'channels: Unrecognized key: "SMS" \\(did you mean "sms"\\?\\); the channels are messenger, chatapp_bot, chatapp, rcs, sms, flashcall',
          '\\(root\\): Unrecognized key: "acounts" \\(did you mean "accounts"\\?\\)',
        ].join('[\\s\\S]*'),
      ),
    );
    expect(() => parseDriversConfig({ drivers: { a: { type: 'simulator' } }, channels: { sms: ['a', 'nope'] } })).toThrow(
      /channels\.sms\.1: no driver named "nope" in drivers/,
    );
    expect(() =>
      parseDriversConfig({ drivers: { w: { type: 'webhook', url: 'https://x.example', secret: 'plain' } }, channels: {} }),
    ).toThrow(/drivers\.w\.secret: a Standard Webhooks secret starts with whsec_/);
  });

  it('reads env: secrets and names the missing ones', () => {
    const config = parseDriversConfig({
      drivers: { smsc: { type: 'smpp', host: 'smsc', systemId: 'x', password: 'env:SMPP_PASSWORD' } },
      channels: { sms: ['smsc'] },
    });
    expect(() => buildDrivers(config, {}, () => 'http://x')).toThrow(/environment variables that are not set: SMPP_PASSWORD/);
    expect(buildDrivers(config, { SMPP_PASSWORD: 'p' }, () => 'http://x').all.map((d) => d.name)).toEqual(['smsc']);
  });

  it('puts several drivers of a channel behind a failover, and leaves the rest to the simulator', () => {
    const built = buildDrivers(
      parseDriversConfig({
        drivers: {
          primary: { type: 'webhook', url: 'https://a.example/send', secret },
          backup: { type: 'simulator' },
        },
        channels: { sms: { drivers: ['primary', 'backup'], consecutiveFailures: 5 }, rcs: ['primary'] },
      }),
      {},
      () => 'http://x',
    );
    expect(built.channels.map((d) => [d.name, d.channels])).toEqual([
      ['sms-failover', ['sms']],
      ['primary', ['rcs']],
    ]);
    expect(built.all.map((d) => [d.name, d.channels])).toEqual([
      ['primary', ['sms', 'rcs']],
      ['backup', ['sms']],
    ]);
    expect(built.unconfigured).toEqual(['messenger', 'chatapp_bot', 'chatapp', 'flashcall']);
  });

  it("passes an SMPP driver's validityPeriod: false through (an SMSC that refuses relative validity times)", async () => {
    const smsc = await startTestSmsc({ systemId: 'x', password: 'p' });
    const drivers = (validityPeriod?: boolean) =>
      buildDrivers(
        parseDriversConfig({
          drivers: { smsc: { type: 'smpp', host: '127.0.0.1', port: smsc.port, systemId: 'x', password: 'p', validityPeriod } },
          channels: { sms: ['smsc'] },
        }),
        {},
        () => 'http://x',
      ).all[0]!;
    const ctx = { clock: systemClock, report: async () => {} };
    try {
      for (const [to, validityPeriod] of [
        ['4915100000140', undefined],
        ['4915100000141', false],
      ] as const) {
        const driver = drivers(validityPeriod);
        await driver.send({ ...smsAttempt, to, ttl: 60 }, ctx);
        await driver.close!();
      }
      expect(smsc.submitted.map((s) => [s.to, s.validityPeriod])).toEqual([
        ['4915100000140', '000000000100000R'],
        ['4915100000141', null],
      ]);
    } finally {
      await smsc.close();
    }
  });
});

describe('the server with a configured driver', () => {
  it('sends SMS through a webhook provider and takes its signed receipt on /channels/{name}/receipts', async () => {
    let serverUrl = '';
    const endpoint = await startWebhookEndpoint({ secret, receiptUrl: () => `${serverUrl}/channels/sms-webhook/receipts` });
    const file = join(dir, 'webhook.json');
    writeFileSync(
      file,
      JSON.stringify({
        drivers: { 'sms-webhook': { type: 'webhook', url: endpoint.url, secret: 'env:TEST_WEBHOOK_SECRET' } },
        channels: { sms: ['sms-webhook'] },
      }),
    );
    process.env['TEST_WEBHOOK_SECRET'] = secret;
    const f = await startServer({ SPILLWAY_CONFIG: file });
    serverUrl = f.url;
    try {
      const account = (await f.server.engine.accounts.getByLogin('acme'))!;
      const { messages } = await f.server.engine.messages.send(account.id, {
        messages: [{ from: 'Acme', to: '4915112345678', type: 'sms', text: 'hello' }],
      });
      const id = messages[0]!.messageId;
      const status = await until(
        () => f.server.engine.messages.status(account.id, id),
        (s) => s.deliverystatus === 'delivered',
      );
      expect(status.deliverystatus).toBe('delivered');
      expect(endpoint.bodies.at(-1)).toMatchObject({
        messageId: id,
        to: '4915112345678',
        text: 'hello',
        callbackUrl: `${f.url}/channels/sms-webhook/receipts`,
      });
      expect(f.server.simulator.sent).toEqual([]);

      // A receipt naming only the provider's id finds its message through the stored attempt.
      const failed = await f.server.engine.messages.send(account.id, {
        messages: [{ from: 'Acme', to: '4915100000002', type: 'sms', text: 'hello' }],
      });
      const failedId = failed.messages[0]!.messageId;
      const failedStatus = await until(
        () => f.server.engine.messages.status(account.id, failedId),
        (s) => s.deliverystatus === 'undeliverable',
      );
      expect(failedStatus.deliverystatus).toBe('undeliverable');

      const forged = await fetch(`${f.url}/channels/sms-webhook/receipts`, {
        method: 'POST',
        body: JSON.stringify({ messageId: id, step: 0, status: 'failed' }),
      });
      expect(forged.status).toBe(401);
      expect(await forged.json()).toMatchObject({ error: 'unauthorized', status: 401 });
    } finally {
      await f.close();
      await endpoint.close();
      delete process.env['TEST_WEBHOOK_SECRET'];
    }
  });

  it('stops at start with a clear error when the configuration is invalid', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ drivers: { k: { type: 'kannel' } }, channels: { sms: ['k'] } }));
    await expect(startServer({ SPILLWAY_CONFIG: file })).rejects.toThrow(/invalid .*bad\.json:[\s\S]*drivers\.k\.sendsmsUrl/);
  });
});

describe('spillway drivers check', () => {
  it('binds or pings every configured driver, prints what works, and exits 1 when one does not', async () => {
    const smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    const file = join(dir, 'check.json');
    writeFileSync(
      file,
      JSON.stringify({
        drivers: {
          smsc: { type: 'smpp', host: '127.0.0.1', port: smsc.port, systemId: 'spillway', password: 'secret' },
          gateway: { type: 'webhook', url: 'http://127.0.0.1:9/send', secret },
        },
        channels: { sms: ['smsc', 'gateway'] },
      }),
    );
    try {
      const result = await runCli(['drivers', 'check'], { SPILLWAY_CONFIG: file, SPILLWAY_LOG_LEVEL: 'silent' }).catch(
        (error: { code: number; stdout: string }) => error,
      );
      expect('code' in result ? result.code : 0).toBe(1);
      expect(result.stdout).toMatch(/^ok +smsc \(sms\): bound to 127\.0\.0\.1:\d+ as spillway; enquire_link answered$/m);
      expect(result.stdout).toMatch(/^FAILED gateway \(sms\): http:\/\/127\.0\.0\.1:9\/send is unreachable/m);
      expect(result.stdout).toMatch(/^- +chatapp: simulator$/m);
    } finally {
      await smsc.close();
    }
  }, 30_000);

  it("counts a POST-only webhook endpoint as up: 501 to HEAD, as Python's http.server answers, and fails a 404 naming the URL", async () => {
    // Answers POST only; HEAD gets what BaseHTTPRequestHandler answers a method it lacks.
    const postOnly = createHttpServer((req, res) => void res.writeHead(req.method === 'POST' ? 202 : 501).end());
    const notFound = createHttpServer((_req, res) => void res.writeHead(404).end());
    for (const s of [postOnly, notFound]) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const portOf = (s: typeof postOnly) => (s.address() as AddressInfo).port;
    const file = join(dir, 'check-post-only.json');
    writeFileSync(
      file,
      JSON.stringify({
        drivers: {
          gateway: { type: 'webhook', url: `http://127.0.0.1:${portOf(postOnly)}/send`, secret },
          wrong: { type: 'webhook', url: `http://127.0.0.1:${portOf(notFound)}/sned`, secret },
        },
        channels: { sms: ['gateway'], rcs: ['wrong'] },
      }),
    );
    try {
      const result = await runCli(['drivers', 'check'], { SPILLWAY_CONFIG: file, SPILLWAY_LOG_LEVEL: 'silent' }).then(
        (ok) => ({ code: 0, stdout: ok.stdout }),
        (error: { code: number; stdout: string }) => error,
      );
      expect(result.stdout).toMatch(/^ok +gateway \(sms\): http:\/\/127\.0\.0\.1:\d+\/send answered 501 to HEAD: up, it takes POST only$/m);
      expect(result.stdout).toMatch(/^FAILED wrong \(rcs\): http:\/\/127\.0\.0\.1:\d+\/sned answered 404: nothing at this URL/m);
      expect(result.code).toBe(1);
    } finally {
      for (const s of [postOnly, notFound]) await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  }, 30_000);

  it('exits 1 naming the SMPP driver when its SMSC refuses the bind or is not there (nothing else keeps the process up)', async () => {
    // Alone in the file: no other driver's request keeps the event loop busy while the bind is retried.
    const smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    const down = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    await down.close(); // its port now refuses connections
    const check = async (port: number) => {
      const file = join(dir, `check-${port}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          drivers: { smsc: { type: 'smpp', host: '127.0.0.1', port, systemId: 'spillway', password: 'wrong', responseTimeoutMs: 1000 } },
          channels: { sms: ['smsc'] },
        }),
      );
      return runCli(['drivers', 'check'], { SPILLWAY_CONFIG: file, SPILLWAY_LOG_LEVEL: 'silent' }).then(
        (ok) => ({ code: 0, stdout: ok.stdout }),
        (error: { code: number; stdout: string }) => error,
      );
    };
    try {
      const refused = await check(smsc.port);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/^FAILED smsc \(sms\): cannot bind to 127\.0\.0\.1:\d+: bind refused: ESME_RBINDFAIL/m);
      const unreachable = await check(down.port);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toMatch(/^FAILED smsc \(sms\): cannot bind to 127\.0\.0\.1:\d+: .*ECONNREFUSED/m);
    } finally {
      await smsc.close();
    }
  }, 30_000);
});
