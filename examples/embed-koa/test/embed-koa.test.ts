import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toKoaMiddleware } from '@spillway/http';
import { createShopApp } from '../src/app.ts';

let shop: Awaited<ReturnType<typeof createShopApp>>;
let running: Awaited<ReturnType<Awaited<ReturnType<typeof createShopApp>>['listen']>>;
let base: string;
const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;
const json = { authorization: auth, 'content-type': 'application/json' };

beforeAll(async () => {
  shop = await createShopApp();
  running = await shop.listen(0);
  base = `http://127.0.0.1:${running.port}`;
});
afterAll(async () => {
  await running.close();
});

async function deliveryStatus(messageId: number): Promise<string | undefined> {
  let status: { deliverystatus?: string } = {};
  for (let i = 0; i < 100 && status.deliverystatus !== 'delivered'; i++) {
    await new Promise((r) => setTimeout(r, 20));
    status = (await (
      await fetch(`${base}/spillway/bat/message/${messageId}`, { headers: { authorization: auth } })
    ).json()) as typeof status;
  }
  return status.deliverystatus;
}

describe('Spillway embedded in Koa', () => {
  it('passes a POST body through to Spillway and the message is delivered', async () => {
    const res = await fetch(`${base}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ messages: [{ from: 'MyShop', to: '99900000000', type: 'sms', text: 'Your parcel is on its way' }] }),
    });
    expect(res.status).toBe(200);
    const { messages } = (await res.json()) as { messages: { messageId: number }[] };
    expect(await deliveryStatus(messages[0]!.messageId)).toBe('delivered');
  });

  it("answers Spillway's JSON errors under the prefix", async () => {
    const invalid = await fetch(`${base}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ messages: [{ from: 'MyShop', to: '12', type: 'sms', text: 'x' }] }),
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: 'validation_failed', details: [{ path: 'messages[0].to' }] });
    const unauthorized = await fetch(`${base}/spillway/bat/balance`);
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({ error: 'unauthorized', status: 401 });
    expect((await fetch(`${base}/spillway/openapi.json`)).status).toBe(200);
  });

  it("leaves other paths to the shop's router and its body parser", async () => {
    const res = await fetch(`${base}/orders/9/confirm`, { method: 'POST', headers: json, body: JSON.stringify({ phone: '99900000000' }) });
    expect(res.status).toBe(200);
    const { messageId } = (await res.json()) as { messageId: number };
    expect(await deliveryStatus(messageId)).toBe('delivered');
    // Koa's own 404, not Spillway's JSON one.
    const outside = await fetch(`${base}/bat/balance`, { headers: { authorization: auth } });
    expect(outside.status).toBe(404);
    expect(await outside.text()).toBe('Not Found');
  });

  // Regression: after `@koa/bodyparser` a send was answered 400 "Request body is empty", where the
  // express adapter names the cause; the README promises the clear 500 for every adapter.
  it('answers a clear JSON 500 when a body parser read the body before Spillway', async () => {
    const app = new Koa();
    app.use(bodyParser());
    app.use(toKoaMiddleware(shop.spillway));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/spillway/bat/messagelist`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ messages: [{ from: 'MyShop', to: '99900000000', type: 'sms', text: 'hi' }] }),
      });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: 'internal', message: expect.stringContaining('mount Spillway first') });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
