import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { FakeClock } from '@spillway/core';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

/**
 * One receiver with two paths: `/hang` takes the webhook and never answers (until released),
 * `/ok` answers at once. The fake clock never reaches the 10 s call timeout by itself, so a hung
 * call stays hung for as long as the test wants.
 */
let receiver: ReturnType<typeof createServer>;
let base: string;
const hung: ServerResponse[] = [];
const answered: string[] = [];
let s: RunningFixture;
let clock: FakeClock;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/hang') {
        hung.push(res);
        return;
      }
      answered.push((JSON.parse(raw) as { text: string }).text);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  clock = createFakeClock(Date.UTC(2026, 10, 23, 12));
  s = await startServer({ SPILLWAY_ALLOW_PRIVATE_URLS: 'true' }, { clock });
});

afterAll(async () => {
  for (const res of hung) res.writeHead(204).end();
  await s.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const inbound = async (alphaName: string, text: string): Promise<string> => {
  const res = await s.call('/sandbox/inbound', { json: { alphaName, phoneNumber: '99900000000', text } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { idUuid: string }).idUuid;
};
const deliveryOf = async (idUuid: string) =>
  ((await (await s.call(`/sandbox/inbound/${idUuid}`)).json()) as { delivery: { status: string; attempts: number } }).delivery;

describe('a callback receiver that does not answer', () => {
  it('holds up no other webhook: the next ones are delivered while its call hangs', async () => {
    for (const [alphaName, path] of [
      ['Acme', '/hang'],
      ['Promo', '/ok'],
    ] as const) {
      const put = await s.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName, url: `${base}${path}` } });
      expect(put.status).toBe(200);
    }
    const stuck = await inbound('Acme', 'to the receiver that hangs');
    await until(
      async () => hung.length,
      (n) => n > 0,
    );
    expect(hung).toHaveLength(1);

    const first = await inbound('Promo', 'first to the receiver that answers');
    const second = await inbound('Promo', 'second to the receiver that answers');
    const delivered = await until(
      async () => [await deliveryOf(first), await deliveryOf(second)],
      (ds) => ds.every((d) => d.status === 'delivered'),
    );
    expect(delivered.map((d) => d.status)).toEqual(['delivered', 'delivered']);
    expect(answered).toEqual(['first to the receiver that answers', 'second to the receiver that answers']);
    // The hung call is still in flight: not retried meanwhile, not counted yet.
    expect(await deliveryOf(stuck)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(hung).toHaveLength(1);

    // Its timeout (on the injected clock) ends it as a failed attempt, retried later as before.
    await clock.advance(10_000);
    const after = await until(
      async () => deliveryOf(stuck),
      (d) => d.attempts === 1,
    );
    expect(after).toMatchObject({ status: 'pending', attempts: 1 });
  });
});
