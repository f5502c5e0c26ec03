import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// The webhook deliveries (incoming messages to the alpha-names' callback URLs) on the server's
// /metrics: attempts by outcome and the time their calls took, labelled by outcome only. With a
// database file the deliveries run on the workers' thread, whose counts reach the HTTP thread's
// registry like its rounds' do.

const dir = mkdtempSync(join(tmpdir(), 'spillway-webhook-metrics-'));
let receiver: Server;
let base: string;

beforeAll(async () => {
  // `/ok` takes the webhook, `/fail` answers 500 (a failed attempt, retried 10 s later).
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => void res.writeHead(req.url === '/ok' ? 204 : 500).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const metricsOf = async (f: RunningFixture) => (await f.call('/metrics', { auth: 'none' })).text();

/** Acme's incoming messages go to `/ok`, Promo's to `/fail`; one of each comes in. Answers their deliveries once made. */
async function oneOfEach(f: RunningFixture) {
  for (const [alphaName, path] of [
    ['Acme', '/ok'],
    ['Promo', '/fail'],
  ] as const) {
    const put = await f.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName, url: `${base}${path}` } });
    expect(put.status).toBe(200);
  }
  const ids: string[] = [];
  for (const alphaName of ['Acme', 'Promo']) {
    const res = await f.call('/sandbox/inbound', { json: { alphaName, phoneNumber: '99900000000', text: 'hello' } });
    expect(res.status).toBe(200);
    ids.push(((await res.json()) as { idUuid: string }).idUuid);
  }
  const deliveryOf = async (id: string) =>
    ((await (await f.call(`/sandbox/inbound/${id}`)).json()) as { delivery: { status: string; attempts: number } }).delivery;
  return until(
    async () => Promise.all(ids.map(deliveryOf)),
    (ds) => ds.every((d) => d.attempts === 1),
  );
}

function expectCounted(metrics: string) {
  expect(metrics).toMatch(/spillway_webhook_deliveries_total\{outcome="delivered"\} 1\n/);
  expect(metrics).toMatch(/spillway_webhook_deliveries_total\{outcome="failed_attempt"\} 1\n/);
  expect(metrics).toMatch(/spillway_webhook_deliveries_total\{outcome="given_up"\} 0\n/);
  expect(metrics).toMatch(/spillway_webhook_delivery_duration_seconds_count\{outcome="delivered"\} 1\n/);
  expect(metrics).toMatch(/spillway_webhook_delivery_duration_seconds_count\{outcome="failed_attempt"\} 1\n/);
  expect(metrics).toMatch(/spillway_webhook_delivery_duration_seconds_bucket\{le="\+Inf",outcome="delivered"\} 1\n/);
  // Bounded labels: the outcome alone, never the receiver's URL or the account.
  for (const line of metrics.split('\n').filter((l) => l.startsWith('spillway_webhook_'))) {
    expect(line).toMatch(/^spillway_webhook_[a-z_]+\{(le="[^"]+",)?outcome="(delivered|failed_attempt|given_up)"\} [\d.e+-]+$/);
  }
}

describe('webhook delivery metrics on /metrics', () => {
  it('counts attempts by outcome and times their calls, from zero', async () => {
    const f = await startServer({ SPILLWAY_ALLOW_PRIVATE_URLS: 'true' });
    try {
      // Every outcome is there before the first delivery, at zero.
      const before = await metricsOf(f);
      expect(before).toMatch(/spillway_webhook_deliveries_total\{outcome="delivered"\} 0\n/);
      expect(before).toMatch(/spillway_webhook_deliveries_total\{outcome="given_up"\} 0\n/);
      expect(await oneOfEach(f)).toMatchObject([{ status: 'delivered' }, { status: 'pending' }]);
      expectCounted(await metricsOf(f));
    } finally {
      await f.close();
    }
  });

  it("counts the deliveries of the workers' thread on the HTTP thread's /metrics", async () => {
    const f = await startServer({ SPILLWAY_ALLOW_PRIVATE_URLS: 'true', SPILLWAY_DB: join(dir, 'thread.db') });
    try {
      expect(await oneOfEach(f)).toMatchObject([{ status: 'delivered' }, { status: 'pending' }]);
      // The thread sends its counts every 200 ms.
      const metrics = await until(
        () => metricsOf(f),
        (text) => text.includes('spillway_webhook_deliveries_total{outcome="failed_attempt"} 1'),
        100,
      );
      expectCounted(metrics);
    } finally {
      await f.close();
    }
  }, 30_000);
});
