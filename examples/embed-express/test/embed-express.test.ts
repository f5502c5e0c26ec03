import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShopApp } from '../src/app.ts';

let shop: Awaited<ReturnType<typeof createShopApp>>;
let server: Server;
let base: string;
const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;

beforeAll(async () => {
  shop = await createShopApp();
  server = shop.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await shop.close();
});

describe('Spillway embedded in express', () => {
  it('sends through the engine from the shop route and reads the status through the mounted API', async () => {
    const res = await fetch(`${base}/orders/42/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone: '99900000001' }),
    });
    expect(res.status).toBe(200);
    const { messageId } = (await res.json()) as { messageId: number };
    expect(messageId).toBeGreaterThan(0);

    // Test number 01: the chat-app attempt is undeliverable, the SMS fallback delivers.
    let status: { deliverystatus?: string; fallbacks?: { deliverystatus: string }[] } = {};
    for (let i = 0; i < 100 && status.deliverystatus !== 'delivered'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const r = await fetch(`${base}/spillway/bat/message/${messageId}`, { headers: { authorization: auth } });
      expect(r.status).toBe(200);
      status = (await r.json()) as typeof status;
    }
    expect(status.deliverystatus).toBe('delivered');
    expect(status.fallbacks?.[0]?.deliverystatus).toBe('delivered');
  });

  it('answers the mounted API with its JSON errors', async () => {
    const r = await fetch(`${base}/spillway/bat/message/1`);
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ error: 'unauthorized', status: 401 });
  });
});
