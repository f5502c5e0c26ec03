import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFastifyPlugin } from '@spillway/http';
import { createShopApp } from '../src/app.ts';

let shop: Awaited<ReturnType<typeof createShopApp>>;
let base: string;
const auth = `Basic ${Buffer.from('shop:shop-password').toString('base64')}`;
const json = { authorization: auth, 'content-type': 'application/json' };

beforeAll(async () => {
  shop = await createShopApp();
  await shop.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(shop.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await shop.app.close();
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

describe('Spillway embedded in Fastify', () => {
  // Regression: mounted directly Fastify answered 404, and wrapped 400 "Request body is empty"
  // because Fastify had already read the body.
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

  it("answers Spillway's own JSON errors for bad bodies, whatever their content type", async () => {
    const malformed = await fetch(`${base}/spillway/bat/messagelist`, { method: 'POST', headers: json, body: '{"messages": [' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'bad_request', message: expect.stringContaining('Malformed JSON') });

    const invalid = await fetch(`${base}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ messages: [{ from: 'MyShop', to: '12', type: 'sms', text: 'x' }] }),
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: 'validation_failed', details: [{ path: 'messages[0].to' }] });

    const text = await fetch(`${base}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: 'unsupported_media_type', status: 415 });
  });

  it('takes a body larger than Fastify’s own 1 MiB limit (Spillway applies its own)', async () => {
    const bulk = await shop.engine.accounts.ensure({ login: 'bulk', password: 'bulk-password', balance: 100_000 });
    await shop.engine.accounts.approveAlphaName(bulk.id, 'MyShop');
    const messages = Array.from({ length: 5000 }, (_, i) => ({
      from: 'MyShop',
      to: `9990000${String(i).padStart(4, '0')}`,
      type: 'sms',
      text: `Order ${i}: ${'a long enough notice about the order, so that five thousand of them weigh more than one mebibyte. '.repeat(2)}`,
    }));
    const body = JSON.stringify({ messages });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await fetch(`${base}/spillway/bat/messagelist`, {
      method: 'POST',
      headers: { ...json, authorization: `Basic ${Buffer.from('bulk:bulk-password').toString('base64')}` },
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { messages: unknown[] }).messages).toHaveLength(5000);
  });

  it("keeps Fastify's JSON parsing for the shop's own routes, and its 404 outside the prefix", async () => {
    const res = await fetch(`${base}/orders/7/confirm`, { method: 'POST', headers: json, body: JSON.stringify({ phone: '99900000000' }) });
    expect(res.status).toBe(200);
    const { messageId } = (await res.json()) as { messageId: number };
    expect(await deliveryStatus(messageId)).toBe('delivered');

    const outside = await fetch(`${base}/bat/balance`, { headers: { authorization: auth } });
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ message: 'Route GET:/bat/balance not found' });
  });

  it('serves the docs and the authenticated GET routes under the prefix', async () => {
    expect((await fetch(`${base}/spillway/docs`)).status).toBe(200);
    const balance = await fetch(`${base}/spillway/bat/balance`, { headers: { authorization: auth } });
    expect(balance.status).toBe(200);
    expect((await fetch(`${base}/spillway/bat/balance`)).status).toBe(401);
  });
});

describe('toFastifyPlugin under a Fastify prefix', () => {
  // Regression: `fastify.register(plugin, { prefix })`, Fastify's own way to mount a plugin, served
  // nothing: with the same basePath the routes landed on /spillway/spillway/*, without one every
  // request under the prefix was a JSON 404 "No route for GET /spillway/bat/balance".
  it('serves the API at the prefix when basePath is the prefix, even nested', async () => {
    for (const nested of [false, true]) {
      const app = Fastify();
      if (nested) await app.register(async (api) => void (await api.register(toFastifyPlugin(shop.spillway), { prefix: '/spillway' })));
      else await app.register(toFastifyPlugin(shop.spillway), { prefix: '/spillway' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
        const balance = await fetch(`${origin}/spillway/bat/balance`, { headers: { authorization: auth } });
        expect(balance.status).toBe(200);
        expect(await balance.json()).toMatchObject({ currency: 'EUR' });
        const sent = await fetch(`${origin}/spillway/bat/messagelist`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ messages: [{ from: 'MyShop', to: '99900000000', type: 'sms', text: 'hi' }] }),
        });
        expect(sent.status).toBe(200);
      } finally {
        await app.close();
      }
    }
  });

  it('refuses a registration whose prefix the basePath does not start with, naming the basePath to give', async () => {
    const app = Fastify();
    const rootSpillway = { fetch: shop.spillway.fetch, basePath: '' };
    await expect(app.register(toFastifyPlugin(rootSpillway), { prefix: '/spillway' }).ready()).rejects.toThrow(
      /registered with prefix '\/spillway' but Spillway's basePath is "": create it with basePath: '\/spillway'/,
    );
    await app.close();
  });
});
