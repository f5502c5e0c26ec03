import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeHandler } from '@spillway/http';
import { createShopApp } from '../src/app.ts';

let shop: Awaited<ReturnType<typeof createShopApp>>;
let server: Server;
let base: string;
const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const s = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => s.once('listening', resolve));
  return { server: s, base: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  shop = await createShopApp();
  ({ server, base } = await listen(shop.app));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await shop.close();
});

async function statusOf(url: string, messageId: number) {
  let status: { deliverystatus?: string; fallbacks?: { deliverystatus: string }[] } = {};
  for (let i = 0; i < 100 && status.deliverystatus !== 'delivered'; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const r = await fetch(`${url}/bat/message/${messageId}`, { headers: { authorization: auth } });
    expect(r.status).toBe(200);
    status = (await r.json()) as typeof status;
  }
  return status;
}

describe('Spillway embedded in express with createSpillway', () => {
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
    const status = await statusOf(`${base}/spillway`, messageId);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.fallbacks?.[0]?.deliverystatus).toBe('delivered');
  });

  it('passes POST bodies through to the mounted API', async () => {
    const res = await fetch(`${base}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ from: 'MyShop', to: '99900000000', type: 'sms', text: 'Your parcel is on its way' }] }),
    });
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: { messageId: number }[] };
    expect((await statusOf(`${base}/spillway`, messages[0]!.messageId)).deliverystatus).toBe('delivered');

    const bad = await fetch(`${base}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: '{"messages": [',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'bad_request', message: expect.stringContaining('Malformed JSON'), status: 400 });
  });

  it('answers the mounted API with its JSON errors, serves its docs, and leaves other paths to express', async () => {
    const r = await fetch(`${base}/spillway/bat/message/1`);
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ error: 'unauthorized', status: 401 });
    expect((await fetch(`${base}/spillway/openapi.json`)).status).toBe(200);
    expect((await fetch(`${base}/spillway/docs`)).status).toBe(200);
    // Not Spillway's: express's own 404 page.
    const other = await fetch(`${base}/bat/balance`, { headers: { authorization: auth } });
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toContain('text/html');
  });

  it("also works under express's own mount path", async () => {
    const app = express();
    app.use('/spillway', toNodeHandler(shop.spillway));
    const mounted = await listen(app);
    try {
      const r = await fetch(`${mounted.base}/spillway/bat/balance`, { headers: { authorization: auth } });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ currency: 'EUR' });
    } finally {
      await new Promise((resolve) => mounted.server.close(resolve));
    }
  });

  // Regression: under `app.use('/spillway', ...)` without the same basePath every request was a
  // JSON 404 "No route for GET /spillway/bat/balance", which sent a reader looking for a missing route.
  it('names the basePath to give when express mounts Spillway at a path its basePath does not start with', async () => {
    const app = express();
    const spillway = { fetch: shop.spillway.fetch, basePath: '' };
    app.use('/spillway', toNodeHandler(spillway));
    app.use('/api', toNodeHandler({ fetch: shop.spillway.fetch, basePath: '/spillway' }));
    const mounted = await listen(app);
    try {
      for (const [path, wanted] of [
        ['/spillway/bat/balance', '/spillway'],
        ['/api/bat/balance', '/api/spillway'],
      ] as const) {
        const r = await fetch(`${mounted.base}${path}`, { headers: { authorization: auth } });
        expect(r.status, path).toBe(500);
        expect(await r.json()).toMatchObject({ error: 'internal', message: expect.stringContaining(`basePath: '${wanted}'`) });
      }
    } finally {
      await new Promise((resolve) => mounted.server.close(resolve));
    }
  });

  it('answers a clear JSON error when a body parser read the body before Spillway', async () => {
    const app = express();
    app.use(express.json());
    app.use(toNodeHandler(shop.spillway));
    const mounted = await listen(app);
    try {
      const r = await fetch(`${mounted.base}/spillway/bat/messagelist`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [] }),
      });
      expect(r.status).toBe(500);
      expect(await r.json()).toMatchObject({ error: 'internal', message: expect.stringContaining('mount Spillway first') });
    } finally {
      await new Promise((resolve) => mounted.server.close(resolve));
    }
  });
});
