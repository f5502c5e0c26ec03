import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import { STOP_SETTLE_MS, createFakeClock } from '@spillway/core';
import type { ChannelDriver } from '@spillway/core';
import { createKannelDriver, createSimulator, kannelMoUrl } from '@spillway/channels';
import { createNodeHasher, createSpillway, toNodeHandler } from '@spillway/http';
import type { Spillway, SpillwayOptions } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { until } from '../support/server-fixture.ts';
import { WARN, capturedLog } from '../support/server-log.ts';
import { startCallbackReceiver } from '../support/callback-receiver.ts';

const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;
const running: Spillway[] = [];

/** A Spillway on in-memory SQLite with the simulator and a quiet logger, not started; stopped after the test. */
function quietSpillway(options: Partial<SpillwayOptions> = {}): Spillway {
  const spillway = createSpillway({
    storage: createSqliteStorage(),
    channels: [createSimulator({ latencyMs: 10 })],
    hasher: createNodeHasher({ N: 2 ** 12 }),
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    ...options,
  });
  running.push(spillway);
  return spillway;
}

/** A {@link quietSpillway} listening on a free port, with the account `shop` and its alpha-name `Shop`. */
async function embed(options: Partial<SpillwayOptions> = {}) {
  const spillway = quietSpillway(options);
  const server = await spillway.listen({ port: 0 });
  const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
  await spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
  const origin = `http://127.0.0.1:${server.port}`;
  const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${origin}${path}`, {
      ...init,
      ...(init.json !== undefined ? { method: init.method ?? 'POST', body: JSON.stringify(init.json) } : {}),
      headers: { authorization: auth, 'content-type': 'application/json', ...init.headers },
    });
  return { spillway, origin, call };
}

/**
 * A host's own `node:http` server that mounts `spillway` at `/spillway` (`toNodeHandler`) and
 * answers `host` for what Spillway leaves to it; with `send`, a one-message send through it.
 */
async function hostServer(spillway: Spillway) {
  const handler = toNodeHandler(spillway);
  const host = createServer((req, res) => void handler(req, res, () => res.writeHead(200).end('host')));
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  const send = () =>
    fetch(`${origin}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'hi' }] }),
    });
  return { origin, send, close: () => new Promise<void>((resolve) => host.close(() => resolve())) };
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

describe('createSpillway: surfaces', () => {
  it('serves every surface under basePath by default, and a JSON 404 outside it', async () => {
    const { call } = await embed({ basePath: '/spillway/' });
    for (const path of ['/spillway/health', '/spillway/metrics', '/spillway/openapi.json', '/spillway/docs']) {
      expect((await call(path)).status, path).toBe(200);
    }
    const balance = await call('/spillway/bat/balance');
    expect(balance.status).toBe(200);
    expect(await balance.json()).toMatchObject({ balance: 10 });
    const outside = await call('/bat/balance');
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ error: 'not_found', status: 404 });
    expect((await call('/spillwayx/health')).status).toBe(404);
    // Under the prefix, the 404 and the 405 name the path the caller asked for, prefix and all.
    expect(await (await call('/spillway/no/such/route')).json()).toMatchObject({ message: 'No route for GET /spillway/no/such/route' });
    const wrongMethod = await call('/spillway/bat/balance', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toMatchObject({ message: 'DELETE is not allowed on /spillway/bat/balance; allowed: GET, HEAD' });
    // The document's paths are relative to the prefix it names.
    const doc = (await (await call('/spillway/openapi.json')).json()) as { servers?: { url: string }[]; paths: Record<string, unknown> };
    expect(doc.servers?.map((s) => s.url)).toEqual(['/spillway']);
    expect(doc.paths['/bat/balance']).toBeDefined();
  });

  // Regression: `GET /spillway` was answered "No route for GET /spillway/", naming a path nobody asked for.
  it('answers the prefix without its trailing slash as the base itself, naming the path as asked', async () => {
    const { call } = await embed({ basePath: '/spillway' });
    const bare = await call('/spillway?x=1');
    const slash = await call('/spillway/');
    expect([bare.status, slash.status]).toEqual([404, 404]);
    expect(await bare.json()).toEqual({ error: 'not_found', message: 'No route for GET /spillway', status: 404 });
    expect(await slash.json()).toEqual({ error: 'not_found', message: 'No route for GET /spillway/', status: 404 });
    expect(await (await call('/spillway', { method: 'POST', json: {} })).json()).toMatchObject({ message: 'No route for POST /spillway' });
    // A host's route at the base answers both.
    const withRoot = await embed({
      basePath: '/spillway',
      http: { extraRoutes: [(app) => void app.get('/', (c) => c.json({ root: true }))] },
    });
    for (const path of ['/spillway', '/spillway/']) expect(await (await withRoot.call(path)).json(), path).toEqual({ root: true });
  });

  it('accepts a POST body under the prefix (a send with an invalid item is a 400 listing it)', async () => {
    const { call } = await embed({ basePath: '/spillway' });
    const bad = await call('/spillway/bat/messagelist', { json: { messages: [{ from: 'Shop', to: '12', type: 'sms', text: 'x' }] } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'validation_failed', details: [{ path: 'messages[0].to' }] });
    const sent = await call('/spillway/bat/messagelist', {
      json: { messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'hi' }] },
    });
    expect(sent.status).toBe(200);
  });

  it('docs: false answers 404 at /openapi.json and /docs', async () => {
    const { call } = await embed({ docs: false });
    expect((await call('/openapi.json')).status).toBe(404);
    expect((await call('/docs')).status).toBe(404);
    expect((await call('/metrics')).status).toBe(200);
  });

  it('metrics: false answers 404 at /metrics and leaves the document without it', async () => {
    const { call, spillway } = await embed({ metrics: false });
    expect(spillway.registry).toBeUndefined();
    expect((await call('/metrics')).status).toBe(404);
    const doc = (await (await call('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(doc.paths['/metrics']).toBeUndefined();
    expect(doc.paths['/health']).toBeDefined();
  });

  it('sandbox: false answers 404 at /sandbox/inbound, keeps the callback secret route', async () => {
    const { call } = await embed({ sandbox: false });
    const inject = await call('/sandbox/inbound', { json: { alphaName: 'Shop', phoneNumber: '79991234567', text: 'hi' } });
    expect(inject.status).toBe(404);
    expect((await call('/api/AlphaName/callback/secret')).status).toBe(200);
    const doc = (await (await call('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/sandbox'))).toEqual([]);
  });

  it('chatHub: false answers 404 at the chat hub routes', async () => {
    const { call, spillway } = await embed({ chatHub: false });
    expect(spillway.tokens).toBeUndefined();
    expect((await call('/api/company/operators')).status).toBe(404);
  });
});

describe('createSpillway: the host prom-client registry', () => {
  it('adds its metrics to a registry that already collects process metrics, without "already registered"', async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    new Counter({ name: 'shop_orders_total', help: 'Orders', registers: [registry] }).inc(3);
    const { call } = await embed({ metrics: { registry } });
    // A second instance on the same registry (blue/green in one process) shares the metrics.
    await embed({ metrics: { registry } });
    await call('/health');
    const text = await (await call('/metrics')).text();
    expect(text).toContain('shop_orders_total 3');
    expect(text).toMatch(/spillway_http_requests_total\{method="GET",route="\/health",status="200"\} 1/);
    expect(text.match(/^# TYPE process_cpu_user_seconds_total/gm)).toHaveLength(1);
  });

  it('endpoint: false leaves /metrics to the host but still counts on its registry', async () => {
    const registry = new Registry();
    const { call } = await embed({ metrics: { registry, endpoint: false } });
    expect((await call('/metrics')).status).toBe(404);
    expect(await registry.metrics()).toMatch(/spillway_http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
  });
});

describe('createSpillway: incoming-message callbacks', () => {
  let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
  let hookUrl: string;
  let hits: Awaited<ReturnType<typeof startCallbackReceiver>>['hits'];
  beforeAll(async () => {
    receiver = await startCallbackReceiver({ path: '/shop/inbound', status: 200 });
    hookUrl = receiver.url;
    hits = receiver.hits;
  });
  afterAll(() => receiver.close());

  it('delivers the signed callback of an incoming message embedded (the delivery worker runs)', async () => {
    const { call } = await embed({ basePath: '/spillway', allowPrivateUrls: true });
    expect((await call('/spillway/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Shop', url: hookUrl } })).status).toBe(200);
    const { secret } = (await (await call('/spillway/api/AlphaName/callback/secret')).json()) as { secret: string };
    const receipt = (await (
      await call('/spillway/sandbox/inbound', { json: { alphaName: 'Shop', phoneNumber: '79991234567', text: 'Where is my order?' } })
    ).json()) as Record<string, unknown>;
    expect(receipt.delivery).toBe('queued');

    const record = await until(
      async () => (await (await call(`/spillway/sandbox/inbound/${String(receipt.idUuid)}`)).json()) as { delivery?: { status: string } },
      (r) => r.delivery?.status === 'delivered',
    );
    expect(record.delivery).toMatchObject({ status: 'delivered', attempts: 1, url: hookUrl });
    const hit = hits.find((h) => h.headers['webhook-id'] === receipt.idUuid);
    expect(hit).toBeDefined();
    const { delivery: _delivery, ...payload } = receipt;
    expect(new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).toEqual(payload);
  });

  it('webhooks: false leaves a callback queued (for a worker elsewhere)', async () => {
    const clock = createFakeClock();
    const { call, spillway } = await embed({ allowPrivateUrls: true, webhooks: false, clock });
    expect(spillway.webhooks).toBeUndefined();
    await call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Shop', url: hookUrl } });
    const receipt = (await (
      await call('/sandbox/inbound', { json: { alphaName: 'Shop', phoneNumber: '79991234567', text: 'hi' } })
    ).json()) as Record<string, unknown>;
    await clock.advance(60_000);
    const record = (await (await call(`/sandbox/inbound/${String(receipt.idUuid)}`)).json()) as {
      delivery: { status: string; attempts: number };
    };
    expect(record.delivery).toMatchObject({ status: 'pending', attempts: 0 });
  });
});

describe('createSpillway: start and stop', () => {
  it('stop() stops the engine and delivery loops, closes the server and the storage; a second stop() is the same', async () => {
    const clock = createFakeClock();
    const spillway = quietSpillway({ clock });
    const server = await spillway.listen({ port: 0 });
    const origin = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${origin}/health`)).status).toBe(200);
    // The engine's worker and the delivery worker wait on the clock between rounds.
    expect(clock.pending()).toBeGreaterThanOrEqual(2);

    await spillway.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(60_000);
    expect(clock.pending()).toBe(0);
    await expect(fetch(`${origin}/health`)).rejects.toThrow();
    await expect(spillway.storage.findAccountByLogin('shop')).rejects.toThrow();
    await expect(spillway.stop()).resolves.toBeUndefined();
  });

  it("answers 503 on a host's own server once stop() was called, /health included, instead of a closed database's 500", async () => {
    const spillway = quietSpillway({ basePath: '/spillway' });
    await spillway.start();
    await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
    // The host's server, which stop() does not close: its other routes go on.
    const { origin, send, close } = await hostServer(spillway);
    try {
      expect((await fetch(`${origin}/spillway/health`)).status).toBe(200);
      await spillway.stop();
      for (const res of [await fetch(`${origin}/spillway/health`), await send()]) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(await res.json()).toEqual({ error: 'unavailable', message: 'Spillway is stopped: it takes no more requests', status: 503 });
      }
      expect(await (await fetch(`${origin}/elsewhere`)).text()).toBe('host');
    } finally {
      await close();
    }
  });

  // Regression: stop() waited for the engine (the grace), then for each of the rest as long as it
  // took: a storage whose close waited (a PostgreSQL pool's end waits for its lent connections)
  // held it for ever.
  it('stop({ graceMs }) keeps one deadline: a send never answered and a storage that never closes are left at it, logged at warn', async () => {
    const clock = createFakeClock();
    const { logger, lines } = capturedLog();
    let handedOver!: () => void;
    const handed = new Promise<void>((resolve) => (handedOver = resolve));
    const held: ChannelDriver = {
      name: 'held',
      channels: ['sms'],
      send: () => {
        handedOver();
        return new Promise(() => undefined);
      },
    };
    const storage = createSqliteStorage();
    const closeStorage = storage.close.bind(storage);
    storage.close = () => new Promise(() => undefined);
    const spillway = createSpillway({ storage, channels: [held], clock, logger, hasher: createNodeHasher({ N: 2 ** 12 }) });
    await spillway.start();
    const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
    await spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
    await spillway.engine.messages.send(account.id, { messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'hi' }] });
    let sent = false;
    void handed.then(() => (sent = true));
    // The worker's round needs real turns of the event loop as well as the clock's time: on a
    // loaded machine a thousand advances of the clock alone went by before it sent.
    for (let i = 0; i < 2_000 && !sent; i++) {
      await clock.advance(1);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(sent).toBe(true);

    let stopped = false;
    const stopping = spillway.stop({ graceMs: 1_000 }).then(() => (stopped = true));
    for (let ms = 0; ms < 1_000 + STOP_SETTLE_MS - 10; ms += 10) await clock.advance(10);
    expect(stopped).toBe(false);
    await clock.advance(10);
    await stopping;
    expect(lines.find((l) => l.msg.startsWith('the stop reached its deadline'))).toMatchObject({
      level: WARN,
      sendsInFlight: 1,
      storageClosing: true,
    });
    await closeStorage();
  });

  it('stopRequests() answers 503 from then on and stops nothing', async () => {
    const { spillway, call } = await embed();
    spillway.stopRequests();
    for (const res of [
      await call('/health'),
      await call('/bat/messagelist', { json: { messages: [{ from: 'Shop', to: '99900000000', type: 'sms', text: 'hi' }] } }),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { error: string }).error).toBe('unavailable');
    }
    // The engine and its storage go on until stop().
    expect(await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 })).toMatchObject({
      login: 'shop',
    });
  });

  it('start() is idempotent and migrates the storage before the first request', async () => {
    const spillway = quietSpillway();
    await Promise.all([spillway.start(), spillway.start()]);
    const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password' });
    const res = await spillway.fetch(new Request('http://spillway.test/bat/balance', { headers: { authorization: auth } }));
    expect(res.status).toBe(200);
    expect(account.id).toBeGreaterThan(0);
  });
});

describe('createSpillway: before start() and after stop()', () => {
  // Regression: before start() /health answered 200, every caller 401 "Invalid credentials" (no
  // tables yet), and on a migrated database a send was accepted and then waited for a worker that
  // was never started.
  it('answers 503 until start() has finished, on fetch and on its own server, then serves', async () => {
    const spillway = quietSpillway({ basePath: '/spillway' });
    const { origin, send, close } = await hostServer(spillway);
    try {
      for (const res of [
        await fetch(`${origin}/spillway/health`),
        await send(),
        await spillway.fetch(new Request('http://x/spillway/health')),
      ]) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(await res.json()).toMatchObject({ error: 'unavailable', message: expect.stringContaining('call `await spillway.start()`') });
      }
      await spillway.start();
      const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 10 });
      await spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
      expect((await fetch(`${origin}/spillway/health`)).status).toBe(200);
      expect((await send()).status).toBe(200);
    } finally {
      await close();
    }
  });

  it('refuses start() and listen() after stop(): a stopped Spillway answered 503 for ever, silently', async () => {
    const spillway = quietSpillway();
    await spillway.start();
    await spillway.stop();
    await expect(spillway.start()).rejects.toThrow(/start\(\) after stop\(\): a stopped Spillway does not start again/);
    await expect(spillway.listen({ port: 0 })).rejects.toThrow(/after stop\(\)/);
  });
});

describe('createSpillway: wrong options', () => {
  const storage = () => createSqliteStorage();
  const channels = () => [createSimulator()];
  // Regression: each failed away from the cause, with "Cannot destructure property 'storage'",
  // "options.channels is not iterable", "storage.migrate is not a function" (at start()),
  // "registry.getSingleMetric is not a function", an error naming SPILLWAY_JWT_SECRET, or not at all.
  it('names the option and what it must be', () => {
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /createSpillway: expected options \{ storage, channels, \.\.\. \}, got undefined/],
      [{ channels: channels() }, /createSpillway: storage must be a storage adapter \(createSqliteStorage/],
      [{ storage: './shop.db', channels: channels() }, /storage must be a storage adapter .*got a string \("\.\/shop\.db"\)/],
      [{ storage: storage() }, /createSpillway: channels must be an array of channel drivers .*got undefined/],
      [{ storage: storage(), channels: createSimulator() }, /channels must be an array of channel drivers .*got an object/],
      [
        { storage: storage(), channels: [createSimulator] },
        /channels\[0\] must be a channel driver .*createSimulator\(\) rather than createSimulator/,
      ],
      [{ storage: storage(), channels: channels(), metrics: { registry: {} } }, /metrics\.registry must be a prom-client Registry/],
      [
        { storage: storage(), channels: channels(), chatHub: { jwtSecret: 'short' } },
        /chatHub\.jwtSecret must be a string of at least 32 characters, got 5 characters/,
      ],
      [{ storage: storage(), channels: channels(), publicUrl: 'shop.example' }, /publicUrl must be an http\(s\) URL .*got "shop\.example"/],
      [{ storage: storage(), channels: channels(), sandbox: 'no' }, /sandbox must be true or false, got a string \("no"\)/],
      [{ storage: storage(), channels: channels(), logger: 'pino' }, /logger must have info, warn and error/],
      [
        { storage: storage(), channels: channels(), basePath: 'https://shop.example/spillway' },
        /basePath must be a path such as '\/spillway' \(the path only/,
      ],
    ];
    for (const [options, message] of cases) {
      expect(() => createSpillway(options as SpillwayOptions), String(message)).toThrow(TypeError);
      expect(() => createSpillway(options as SpillwayOptions), String(message)).toThrow(message);
    }
  });
});

describe('createSpillway: no channel drivers', () => {
  // Regression: `channels: []` was taken, and every send was then accepted, charged and failed
  // `not_on_channel` on its channel.
  it('refuses an empty channels list, naming the option, where its workers would send through nothing', () => {
    expect(() => createSpillway({ storage: createSqliteStorage(), channels: [] })).toThrow(
      new TypeError(
        'createSpillway: channels is empty, so every send would fail not_on_channel: give at least one channel driver ' +
          "([createSimulator()] or your providers' drivers), or workers: false for a process that leaves the sending to another",
      ),
    );
  });

  it('takes it where it has a use: a process that only accepts (workers: false), or accounts that bring their own drivers', async () => {
    const apiOnly = createSpillway({
      storage: createSqliteStorage(),
      channels: [],
      workers: false,
      hasher: createNodeHasher({ N: 2 ** 12 }),
    });
    running.push(apiOnly);
    await apiOnly.start();
    const own = createSimulator();
    const accountsOwn = createSpillway({
      storage: createSqliteStorage(),
      channels: [],
      engine: { accountChannels: { drivers: [own], forAccount: () => [own] } },
    });
    running.push(accountsOwn);
  });
});

describe('the adapters: wrong targets', () => {
  // Regression: `toNodeHandler(undefined)` threw "Cannot read properties of undefined (reading 'basePath')".
  it('name the adapter and what it takes', () => {
    const spillway = createSpillway({ storage: createSqliteStorage(), channels: [createSimulator()] });
    running.push(spillway);
    expect(() => toNodeHandler(undefined as unknown as Spillway)).toThrow(
      new TypeError('toNodeHandler: expected a Spillway (createSpillway(...)) or { fetch, basePath }, got undefined'),
    );
    expect(() => toNodeHandler(spillway.fetch as unknown as Spillway)).toThrow(
      /got a function \(pass the Spillway itself, not its fetch\)/,
    );
  });
});

describe('createSpillway: a host pino logger', () => {
  // Regression: pino (and `fastify.log`) takes the fields first; called message first it printed
  // "unhandled error in request" and dropped the error and its stack.
  it('logs the fields, the error included', async () => {
    const { logger, lines } = capturedLog();
    const { call } = await embed({
      logger,
      http: {
        extraRoutes: [
          (root) =>
            root.get('/explode', () => {
              throw new Error('the warehouse is on fire');
            }),
        ],
      },
    });
    expect((await call('/explode')).status).toBe(500);
    const logged = lines.find((l) => l.msg === 'unhandled error in request');
    expect(JSON.stringify(logged)).toContain('the warehouse is on fire');
  });
});

describe('createSpillway: engine.onInboundRefused', () => {
  // Regression: the host's hook heard the refusals of the workers' drivers (SMPP) only; an MO
  // refused on a driver's HTTP route (Kannel's /mo) was logged and counted, and never reached it.
  it("is told an incoming message refused on a driver's HTTP route", async () => {
    const refused: Array<{ driver: string; alphaName: string }> = [];
    const kannel = createKannelDriver({
      sendsmsUrl: 'http://127.0.0.1:9/cgi-bin/sendsms',
      username: 'spillway',
      password: 'unused',
      callbackBaseUrl: () => 'http://127.0.0.1:9',
      callbackSecret: 'kannel-mo-secret-0123456789',
    });
    const { origin } = await embed({
      channels: [createSimulator(), kannel],
      engine: { onInboundRefused: ({ driver, message }) => void refused.push({ driver, alphaName: message.alphaName }) },
    });
    const mo = new URL(kannelMoUrl({ callbackBaseUrl: origin, callbackSecret: 'kannel-mo-secret-0123456789', password: 'unused' }));
    for (const [name, value] of Object.entries({ from: '4915100000129', to: 'Nobody', text: 'hello?' })) mo.searchParams.set(name, value);
    const res = await fetch(mo);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(refused).toEqual([{ driver: 'kannel', alphaName: 'Nobody' }]);
  });
});
