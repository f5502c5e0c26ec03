import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createFakeClock } from '@spillway/core';
import { createInboundService, MAX_WEBHOOK_ATTEMPTS } from '@spillway/core/adapter';
import type { FakeClock } from '@spillway/core';
import { createSqliteStorage } from '@spillway/sqlite';
import type { SqliteStorage } from '@spillway/sqlite';
import { Registry } from 'prom-client';
import { createWebhookDeliveryWorker } from './delivery-worker.ts';
import type { WebhookAttempt } from './delivery-worker.ts';
import { createWebhookMetrics } from './webhook-metrics.ts';
import { getWebhookSecret } from './webhook-secret.ts';

interface Hit {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let receiver: Server;
let url: string;
let hits: Hit[];
/** The receiver's next answers: a status, or a redirect; 204 once they run out. */
let statuses: Array<number | { status: number; location: string }>;
let clock: FakeClock;
let storage: SqliteStorage;
let accountId: number;

beforeEach(async () => {
  hits = [];
  statuses = [];
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const answer = statuses.shift() ?? 204;
      if (typeof answer === 'number') res.writeHead(answer).end();
      else res.writeHead(answer.status, { location: answer.location }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/inbound`;
  // Near the wall clock: Webhook.verify checks the signed timestamp against Date.now().
  clock = createFakeClock(Date.now());
  storage = createSqliteStorage();
  await storage.migrate();
  const account = await storage.createAccount({ login: 'shop', name: 'Shop', passwordHash: 'x', currency: 'EUR' }, clock.now());
  accountId = account.id;
  await storage.upsertAlphaName({ accountId, name: 'Shop', channels: ['chatapp'] });
  await storage.setAlphaNameCallback(accountId, 'Shop', url);
});

afterEach(async () => {
  await storage.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const inbound = () => createInboundService({ storage, clock });
const body = { alphaName: 'Shop', phoneNumber: '+79991234567', text: 'Hello, is my order ready?' };

describe('webhook delivery worker', () => {
  it('delivers the incoming message signed the Standard Webhooks way', async () => {
    const receipt = await inbound().receive(accountId, body);
    expect(receipt.delivery).toBe('queued');
    const worker = createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true });
    await worker.drain();

    expect(hits).toHaveLength(1);
    const hit = hits[0]!;
    const secret = await getWebhookSecret(storage, accountId);
    expect(secret).toMatch(/^whsec_/);
    const verified = new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
    const { delivery: _delivery, ...payload } = receipt;
    expect(verified).toEqual(payload);
    expect(payload).toEqual({
      idUuid: receipt.idUuid,
      alphaName: 'Shop',
      phoneNumber: '79991234567',
      text: body.text,
      dt: new Date(clock.now()).toISOString(),
    });
    expect(hit.headers['webhook-id']).toBe(receipt.idUuid);
    expect(hit.headers['content-type']).toBe('application/json');
    // Another secret does not verify: the signature is really checked.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(hit.body, hit.headers as Record<string, string>),
    ).toThrow();

    expect((await inbound().get(accountId, receipt.idUuid)).delivery).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
    await worker.drain();
    expect(hits).toHaveLength(1);
  });

  it('retries after a 500 at the backoff time, with the same webhook-id, then succeeds', async () => {
    statuses = [500, 200];
    const receipt = await inbound().receive(accountId, body);
    const worker = createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true });
    await worker.drain();
    expect(hits).toHaveLength(1);
    const first = await inbound().get(accountId, receipt.idUuid);
    expect(first.delivery).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date(clock.now() + 10_000).toISOString() });
    expect(first.delivery?.lastError).toMatch(/HTTP 500/);

    await clock.advance(9_999);
    await worker.drain();
    expect(hits).toHaveLength(1);

    await clock.advance(1);
    await worker.drain();
    expect(hits).toHaveLength(2);
    expect(hits.map((h) => h.headers['webhook-id'])).toEqual([receipt.idUuid, receipt.idUuid]);
    // Each attempt is signed at its own time.
    expect(Number(hits[1]!.headers['webhook-timestamp']) - Number(hits[0]!.headers['webhook-timestamp'])).toBe(10);
    const secret = await getWebhookSecret(storage, accountId);
    expect(() => new Webhook(secret).verify(hits[1]!.body, hits[1]!.headers as Record<string, string>)).not.toThrow();
    expect((await inbound().get(accountId, receipt.idUuid)).delivery).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('answers a 301, 302 or 303 as a failed attempt naming where it points, retried later: the body is never posted there', async () => {
    const worker = createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true });
    for (const status of [301, 302, 303]) {
      hits = [];
      statuses = [{ status, location: '/hooks/moved' }];
      const receipt = await inbound().receive(accountId, body);
      await worker.drain();
      expect(hits.map((h) => `${h.method} ${h.path}`)).toEqual(['POST /hooks/inbound']);
      const record = await inbound().get(accountId, receipt.idUuid);
      expect(record.delivery).toMatchObject({
        status: 'pending',
        attempts: 1,
        nextAttemptAt: new Date(clock.now() + 10_000).toISOString(),
      });
      expect(record.delivery?.lastError).toBe(
        `HTTP ${status} from ${url}: the receiver redirected to ${new URL('/hooks/moved', url).href}; ` +
          'webhooks follow only 307 and 308 redirects, which keep the POST and its body',
      );
      // The next attempt (the receiver fixed) delivers it.
      await clock.advance(10_000);
      await worker.drain();
      expect((await inbound().get(accountId, receipt.idUuid)).delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    }
  });

  it('follows a 307 or 308 with the same signed POST', async () => {
    statuses = [{ status: 307, location: '/hooks/v2' }, { status: 308, location: '/hooks/v3' }, 204];
    const receipt = await inbound().receive(accountId, body);
    await createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true }).drain();
    expect(hits.map((h) => `${h.method} ${h.path}`)).toEqual(['POST /hooks/inbound', 'POST /hooks/v2', 'POST /hooks/v3']);
    const secret = await getWebhookSecret(storage, accountId);
    for (const hit of hits)
      expect(new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)).toMatchObject({ idUuid: receipt.idUuid });
    expect((await inbound().get(accountId, receipt.idUuid)).delivery).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('gives up after the last attempt', async () => {
    statuses = Array.from({ length: MAX_WEBHOOK_ATTEMPTS + 1 }, () => 503);
    const receipt = await inbound().receive(accountId, body);
    const worker = createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true });
    for (let i = 0; i < MAX_WEBHOOK_ATTEMPTS; i++) {
      await worker.drain();
      await clock.advance(8 * 3_600_000);
    }
    await worker.drain();
    expect(hits).toHaveLength(MAX_WEBHOOK_ATTEMPTS);
    const record = await inbound().get(accountId, receipt.idUuid);
    expect(record.delivery).toMatchObject({ status: 'failed', attempts: MAX_WEBHOOK_ATTEMPTS, nextAttemptAt: null });
    expect(record.delivery?.lastError).toMatch(/gave up after 10 attempts: HTTP 503/);
  });

  it('reports every attempt to onAttempt, as the webhook metrics count them: failed attempts, then given up', async () => {
    statuses = Array.from({ length: MAX_WEBHOOK_ATTEMPTS }, () => 503);
    const registry = new Registry();
    const metrics = createWebhookMetrics(registry);
    const seen: WebhookAttempt[] = [];
    const onAttempt = (attempt: WebhookAttempt) => {
      seen.push(attempt);
      metrics.onAttempt(attempt);
    };
    await inbound().receive(accountId, body);
    const worker = createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true, onAttempt });
    for (let i = 0; i < MAX_WEBHOOK_ATTEMPTS; i++) {
      await worker.drain();
      await clock.advance(8 * 3_600_000);
    }
    expect(seen.map((a) => a.outcome)).toEqual([...Array.from({ length: MAX_WEBHOOK_ATTEMPTS - 1 }, () => 'failed_attempt'), 'given_up']);
    expect(seen.every((a) => a.seconds !== undefined && a.seconds >= 0 && a.seconds < 10)).toBe(true);
    // A URL that may not be called is given up at once.
    await inbound().receive(accountId, body);
    await createWebhookDeliveryWorker({ storage, clock, onAttempt }).drain();
    expect(seen.at(-1)).toMatchObject({ outcome: 'given_up' });

    const text = await registry.metrics();
    expect(text).toContain(`spillway_webhook_deliveries_total{outcome="failed_attempt"} ${MAX_WEBHOOK_ATTEMPTS - 1}\n`);
    expect(text).toContain('spillway_webhook_deliveries_total{outcome="given_up"} 2\n');
    expect(text).toContain('spillway_webhook_deliveries_total{outcome="delivered"} 0\n');
    expect(text).toContain(`spillway_webhook_delivery_duration_seconds_count{outcome="failed_attempt"} ${MAX_WEBHOOK_ATTEMPTS - 1}\n`);
    expect(text).toContain('spillway_webhook_delivery_duration_seconds_count{outcome="given_up"} 2\n');
  });

  it('fails a private callback URL at once when private URLs are not allowed', async () => {
    const receipt = await inbound().receive(accountId, body);
    const worker = createWebhookDeliveryWorker({ storage, clock });
    await worker.drain();
    expect(hits).toEqual([]);
    const record = await inbound().get(accountId, receipt.idUuid);
    expect(record.delivery).toMatchObject({ status: 'failed', attempts: 1 });
    expect(record.delivery?.lastError).toMatch(/refused to call a loopback address/);
  });

  it('redelivers a delivery whose worker crashed once its lease runs out', async () => {
    const receipt = await inbound().receive(accountId, body);
    // A worker that claimed the delivery and died before completing it.
    expect(await storage.claimDueDeliveries(clock.now(), 10, 60_000)).toHaveLength(1);
    const worker = createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true, leaseMs: 60_000 });
    await worker.drain();
    expect(hits).toHaveLength(0);
    await clock.advance(60_000);
    await worker.drain();
    expect(hits.map((h) => h.headers['webhook-id'])).toEqual([receipt.idUuid]);
  });

  it('queues nothing for an alpha-name without callback', async () => {
    await storage.setAlphaNameCallback(accountId, 'Shop', null);
    const receipt = await inbound().receive(accountId, body);
    expect(receipt.delivery).toBe('no_callback');
    await createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true }).drain();
    expect(hits).toEqual([]);
    expect(await storage.lastInboundAt(accountId, 'Shop', '79991234567')).toBe(clock.now());
  });

  it('delivers in the background once started, woken by notify', async () => {
    const worker = createWebhookDeliveryWorker({ storage, clock, allowPrivateUrls: true });
    worker.start();
    const service = createInboundService({ storage, clock, onQueued: () => worker.notify() });
    const receipt = await service.receive(accountId, body);
    for (let i = 0; i < 200 && hits.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await worker.stop();
    expect(hits.map((h) => h.headers['webhook-id'])).toEqual([receipt.idUuid]);
  });
});
