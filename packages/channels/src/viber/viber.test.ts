import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '@spillway/core';
import type { InboundReport, Receipt } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import { startRouteHost } from '../testing/route-host.ts';
import type { RouteHost } from '../testing/route-host.ts';
import { startViberApi } from '../testing/viber-api-server.ts';
import type { TestViberApi } from '../testing/viber-api-server.ts';
import { createViberDriver, viberSignature } from './viber.ts';
import type { ViberOptions } from './viber.ts';

let host: RouteHost;
let api: TestViberApi;
beforeAll(async () => {
  host = await startRouteHost();
  api = await startViberApi({ callbackUrl: () => `${host.url}/channels/viber/callback` });
});
afterAll(async () => {
  await api?.close();
  await host?.close();
});

const driver = (over: ViberOptions = {}) => createViberDriver({ apiUrl: api.url, botToken: 'bot-token-1', ...over });

runChannelDriverContract({
  name: 'viber (a local REST bot API with signed callbacks)',
  time: 'real',
  create: () => driver(),
  serve: (d, ctx) => host.serve(d, ctx),
  deliverableRecipient: '01234567890A==',
  receiptsAfterRestart: true,
  failures: [
    { name: 'status 5 receiverNotRegistered', failure: 'not_on_channel', recipient: 'user-05' },
    { name: 'status 6 notSubscribed', failure: 'not_on_channel', recipient: 'user-06' },
    { name: 'status 12 tooManyRequests', failure: 'throttled', recipient: 'user-12' },
    { name: 'a general error (status 99)', failure: 'temporary', recipient: 'user-99' },
    { name: 'HTTP 500', failure: 'temporary', recipient: 'user-50' },
    { name: 'status 2 invalidAuthToken', failure: 'permanent', create: () => driver({ botToken: 'bad' }) },
    { name: 'a failed callback', failure: 'undeliverable', recipient: 'user-02' },
  ],
});

describe('viber driver', () => {
  it("sends with the client's token, a picture and a keyboard; delivered and seen callbacks become delivered and read", async () => {
    const reports: Receipt[] = [];
    const d = driver({ botToken: undefined });
    const ctx = { clock: systemClock, report: async (r: Receipt) => void reports.push(r) };
    const unserve = await host.serve(d, ctx);
    try {
      const keyboard = { Type: 'keyboard', Buttons: [{ ActionType: 'open-url', ActionBody: 'https://shop.example', Text: 'Shop' }] };
      const result = await d.send(
        {
          messageId: 1,
          accountId: 1,
          step: 0,
          try: 0,
          idempotencyKey: '1:0:0',
          partsCount: 1,
          channel: 'chatapp_bot',
          type: 'sms',
          from: 'Shop',
          to: 'viber-user-1',
          text: 'New arrivals',
          ttl: 60,
          credentials: { botToken: 'client-bot' },
          messageData: { media: 'https://shop.example/p.jpg', keyboard },
        },
        ctx,
      );
      expect(result).toEqual({ outcome: 'accepted', providerMessageId: expect.any(String) });
      expect(api.sent.at(-1)).toEqual({
        token: 'client-bot',
        body: {
          receiver: 'viber-user-1',
          min_api_version: 1,
          sender: { name: 'Shop' },
          tracking_data: '1:0:0',
          type: 'picture',
          text: 'New arrivals',
          media: 'https://shop.example/p.jpg',
          keyboard,
        },
      });
      const end = Date.now() + 5000;
      while (reports.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      const id = (result as { providerMessageId: string }).providerMessageId;
      expect(reports).toEqual([
        { providerMessageId: id, outcome: 'delivered' },
        { providerMessageId: id, outcome: 'read' },
      ]);
    } finally {
      await unserve();
    }
  });

  it('refuses callbacks without the signature of a known token (401), and hands incoming messages to ctx.inbound', async () => {
    const d = driver();
    const route = d.routes![0]!;
    const inbound: InboundReport[] = [];
    const ctx = { clock: systemClock, report: async () => {}, inbound: async (m: InboundReport) => void inbound.push(m) };
    const body = JSON.stringify({
      event: 'message',
      sender: { id: 'u-9', name: 'Ann' },
      message: { type: 'text', text: 'hello' },
      message_token: 7,
    });
    const post = (signature: string) =>
      route.handle(
        new Request('http://x/channels/viber/callback', { method: 'POST', body, headers: { 'x-viber-content-signature': signature } }),
        ctx,
      );
    const forged = await post(viberSignature('another-token', body));
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: 'unauthorized', status: 401 });
    expect((await post(viberSignature('bot-token-1', body))).status).toBe(200);
    expect(inbound).toEqual([{ channel: 'chatapp_bot', phoneNumber: 'u-9', alphaName: 'viber', text: 'hello' }]);
  });

  it('acknowledges an incoming message the engine cannot route (no phone number), but fails the callback on a storage error', async () => {
    const route = driver().routes![0]!;
    const body = JSON.stringify({ event: 'message', sender: { id: 'u-9' }, message: { type: 'text', text: 'hi' }, message_token: 8 });
    const post = (inbound: () => Promise<void>) =>
      route.handle(
        new Request('http://x/channels/viber/callback', {
          method: 'POST',
          body,
          headers: { 'x-viber-content-signature': viberSignature('bot-token-1', body) },
        }),
        { clock: systemClock, report: async () => {}, inbound },
      );
    const unroutable = await post(async () => {
      throw Object.assign(new Error('no account owns the address "viber"'), { code: 'not_found' });
    });
    expect(unroutable.status).toBe(200);
    expect(await unroutable.json()).toEqual({ ignored: 'the message could not be routed to an account' });
    await expect(
      post(async () => {
        throw new Error('database is locked');
      }),
    ).rejects.toThrow(/database is locked/);
  });

  it('check() calls get_account_info', async () => {
    expect(await driver().check!()).toEqual({ ok: true, detail: 'bot Spillway Test Bot' });
    expect(await driver({ botToken: 'bad' }).check!()).toEqual({ ok: false, detail: 'get_account_info: invalidAuthToken' });
  });
});
