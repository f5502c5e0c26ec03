import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { systemClock } from '@spillway/core';
import type { Receipt } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import { startRouteHost } from '../testing/route-host.ts';
import type { RouteHost } from '../testing/route-host.ts';
import { startWebhookEndpoint } from '../testing/webhook-endpoint.ts';
import type { TestWebhookEndpoint } from '../testing/webhook-endpoint.ts';
import { createWebhookDriver } from './webhook.ts';
import { retryAfterSeconds } from './webhook-status.ts';

const secret = 'whsec_' + Buffer.from('spillway-webhook-driver-test-key').toString('base64');
let host: RouteHost;
let endpoint: TestWebhookEndpoint;

beforeAll(async () => {
  host = await startRouteHost();
  endpoint = await startWebhookEndpoint({ secret, receiptUrl: () => `${host.url}/channels/webhook/receipts` });
});
afterAll(async () => {
  await endpoint?.close();
  await host?.close();
});

const driver = (over: Partial<Parameters<typeof createWebhookDriver>[0]> = {}) =>
  createWebhookDriver({ url: endpoint.url, secret, callbackBaseUrl: host.url, ...over });

runChannelDriverContract({
  name: 'webhook (a local endpoint signing its receipts)',
  time: 'real',
  create: () => driver(),
  serve: (d, ctx) => host.serve(d, ctx),
  deliverableRecipient: '4915112345678',
  receiptsAfterRestart: true,
  providerIdempotencyKeys: () => endpoint.ids,
  failures: [
    { name: '429 with Retry-After', failure: 'throttled', recipient: '4915100000058' },
    { name: '503', failure: 'temporary', recipient: '4915100000050' },
    { name: '422 naming not_on_channel', failure: 'not_on_channel', recipient: '4915100000003' },
    { name: '400', failure: 'permanent', recipient: '4915100000033' },
    { name: 'a receipt naming the provider id says undeliverable', failure: 'undeliverable', recipient: '4915100000002' },
    { name: 'the endpoint is down', failure: 'temporary', create: () => driver({ url: 'http://127.0.0.1:9/send' }) },
  ],
});

describe('webhook driver', () => {
  it('posts the attempt signed, with its idempotency key and the receipt URL, and keeps Retry-After', async () => {
    const d = driver();
    const ctx = { clock: systemClock, report: async () => {} };
    const base = { accountId: 3, step: 1, try: 2, partsCount: 1, channel: 'sms' as const, type: 'sms' as const, from: 'Shop', ttl: 60 };
    expect(await d.send({ ...base, messageId: 900, idempotencyKey: '900:1:2', to: '4915100000444', text: 'hi' }, ctx)).toMatchObject({
      outcome: 'accepted',
      providerMessageId: expect.stringMatching(/^prov-/),
    });
    expect(endpoint.bodies.at(-1)).toMatchObject({
      type: 'message.attempt',
      idempotencyKey: '900:1:2',
      messageId: 900,
      step: 1,
      try: 2,
      accountId: 3,
      to: '4915100000444',
      text: 'hi',
      callbackUrl: `${host.url}/channels/webhook/receipts`,
    });
    expect(await d.send({ ...base, messageId: 901, idempotencyKey: '901:1:2', to: '4915100000058', text: 'hi' }, ctx)).toMatchObject({
      failure: 'throttled',
      retryAfter: 7,
    });
    await d.close!();
  });

  describe('receipt route', () => {
    const d = createWebhookDriver({ url: 'http://127.0.0.1:9/', secret });
    const route = d.routes![0]!;
    const post = async (body: string, sign = secret) => {
      const reports: Receipt[] = [];
      const now = new Date();
      const res = await route.handle(
        new Request('http://x/channels/webhook/receipts', {
          method: 'POST',
          body,
          headers: {
            'webhook-id': 'r1',
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': new Webhook(sign).sign('r1', now, body),
          },
        }),
        { clock: systemClock, report: async (r) => void reports.push(r) },
      );
      return { status: res.status, reports, body: res.status === 204 ? null : await res.json() };
    };

    it('reports a signed receipt and answers 204', async () => {
      expect(await post(JSON.stringify({ messageId: 4, step: 0, status: 'read' }))).toEqual({
        status: 204,
        reports: [{ messageId: 4, step: 0, outcome: 'read' }],
        body: null,
      });
      expect((await post(JSON.stringify({ providerMessageId: 'p1', status: 'failed' }))).reports).toEqual([
        { providerMessageId: 'p1', outcome: 'failed', failure: 'undeliverable', error: 'failed (undeliverable)' },
      ]);
    });

    it('refuses a bad signature (401) and a malformed receipt (400) with JSON errors', async () => {
      const other = 'whsec_' + Buffer.from('another-key-another-key-another').toString('base64');
      expect(await post(JSON.stringify({ messageId: 4, step: 0, status: 'read' }), other)).toMatchObject({
        status: 401,
        reports: [],
        body: { error: 'unauthorized', status: 401 },
      });
      expect(await post(JSON.stringify({ messageId: 4, status: 'read' }))).toMatchObject({ status: 400, body: { error: 'bad_request' } });
      expect(await post(JSON.stringify({ messageId: 4, step: 0, status: 'lost' }))).toMatchObject({ status: 400 });
      expect(await post(JSON.stringify({ messageId: 4, step: 0, status: 'failed', failure: 'oops' }))).toMatchObject({ status: 400 });
      expect(await post('not json')).toMatchObject({ status: 400 });
    });
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterSeconds('7', 0)).toBe(7);
    expect(retryAfterSeconds(new Date(30_000).toUTCString(), 0)).toBe(30);
    expect(retryAfterSeconds(null, 0)).toBeUndefined();
  });
});

describe('webhook check()', () => {
  // An endpoint that answers HEAD with `status`, like Python's http.server (501) or a POST-only
  // framework route (405) when only POST is implemented.
  const answering = async (status: number) => {
    const server = createHttpServer((_req, res) => void res.writeHead(status).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
    return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  };
  const check = async (status: number) => {
    const endpoint = await answering(status);
    try {
      return await createWebhookDriver({ url: endpoint.url, secret }).check!();
    } finally {
      await endpoint.close();
    }
  };

  it('counts a POST-only endpoint that answers HEAD with 501 or 405 as up', async () => {
    expect(await check(501)).toEqual({ ok: true, detail: expect.stringMatching(/answered 501 to HEAD: up, it takes POST only/) });
    expect(await check(405)).toEqual({ ok: true, detail: expect.stringMatching(/answered 405 to HEAD: up, it takes POST only/) });
  });

  it('counts 2xx, 3xx and the other 4xx as up, naming the answer', async () => {
    expect(await check(204)).toMatchObject({ ok: true, detail: expect.stringMatching(/answered 204$/) });
    expect(await check(401)).toMatchObject({ ok: true, detail: expect.stringMatching(/answered 401 to an unsigned HEAD/) });
    expect(await check(400)).toMatchObject({ ok: true, detail: expect.stringMatching(/answered 400$/) });
  });

  it('fails a 404 or 410 as a wrong URL and a 5xx other than 501 as an endpoint in trouble', async () => {
    expect(await check(404)).toEqual({
      ok: false,
      // Express and Hono answer 404 to HEAD on a POST-only route: HEAD cannot tell, so the detail says both.
      detail: expect.stringMatching(
        /answered 404: nothing at this URL \(is the path right\?\); Express and Hono answer HEAD 404 on a POST-only route too/,
      ),
    });
    expect(await check(410)).toMatchObject({ ok: false, detail: expect.stringMatching(/nothing at this URL/) });
    expect(await check(503)).toEqual({ ok: false, detail: expect.stringMatching(/answered 503: the endpoint is failing/) });
    expect(await check(500)).toMatchObject({ ok: false });
  });
});

describe('webhook driver and redirects', () => {
  /** An endpoint whose paths answer `answers[path]` (a status, or a redirect), recording each call. */
  const endpointWith = async (answers: Record<string, number | [status: number, location: string]>) => {
    const calls: string[] = [];
    const server = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const path = req.url ?? '/';
        const signed = req.headers['webhook-signature'] ? ' signed' : '';
        calls.push(`${req.method} ${path}${body ? ` ${(JSON.parse(body) as { idempotencyKey: string }).idempotencyKey}` : ''}${signed}`);
        const answer = answers[path] ?? 404;
        if (typeof answer === 'number')
          res.writeHead(answer, { 'content-type': 'application/json' }).end(answer === 200 ? '{"id":"p-1"}' : '');
        else res.writeHead(answer[0], { location: answer[1] }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { base, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  };
  const ctx = { clock: systemClock, report: async () => {} };
  const attempt = {
    accountId: 3,
    messageId: 77,
    step: 0,
    try: 1,
    idempotencyKey: '77:0:1',
    partsCount: 1,
    channel: 'sms' as const,
    type: 'sms' as const,
    from: 'Shop',
    to: '4915100000444',
    text: 'hi',
    ttl: 60,
  };

  it('fails a send answered with a 301, 302 or 303 instead of taking the GET that follows for an acceptance', async () => {
    for (const status of [301, 302, 303]) {
      const e = await endpointWith({ '/send': [status, '/moved'], '/moved': 200 });
      try {
        // fetch's own following sent a GET to /moved, whose 200 counted as accepted: nothing was sent.
        expect(await createWebhookDriver({ url: `${e.base}/send`, secret }).send(attempt, ctx)).toEqual({
          outcome: 'failed',
          failure: 'temporary',
          error: `the endpoint redirected with ${status} to ${e.base}/moved: sends follow only 307 and 308 redirects, which keep the POST and its body (set the driver's url to where the endpoint is)`,
        });
        expect(e.calls).toEqual(['POST /send 77:0:1 signed']);
      } finally {
        await e.close();
      }
    }
  });

  it('follows a 307 and a 308 with the same signed POST', async () => {
    const e = await endpointWith({ '/send': [307, '/v2'], '/v2': [308, `/v3`], '/v3': 200 });
    try {
      expect(await createWebhookDriver({ url: `${e.base}/send`, secret }).send(attempt, ctx)).toEqual({
        outcome: 'accepted',
        providerMessageId: 'p-1',
      });
      expect(e.calls).toEqual(['POST /send 77:0:1 signed', 'POST /v2 77:0:1 signed', 'POST /v3 77:0:1 signed']);
    } finally {
      await e.close();
    }
  });

  it('check() judges redirects as sends meet them: a 301, 302 or 303 fails, a 307 or 308 is followed', async () => {
    const e = await endpointWith({ '/old': [301, '/send'], '/send': 405, '/temp': [307, '/send'], '/gone': [308, '/nothing'] });
    try {
      expect(await createWebhookDriver({ url: `${e.base}/old`, secret }).check!()).toEqual({
        ok: false,
        detail: `${e.base}/old redirected with 301 to ${e.base}/send: sends follow only 307 and 308 redirects, which keep the POST and its body (set the driver's url to where the endpoint is)`,
      });
      expect(await createWebhookDriver({ url: `${e.base}/temp`, secret }).check!()).toEqual({
        ok: true,
        detail: `${e.base}/send answered 405 to HEAD: up, it takes POST only`,
      });
      expect(await createWebhookDriver({ url: `${e.base}/gone`, secret }).check!()).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/\/nothing answered 404: nothing at this URL/),
      });
      expect(e.calls).toEqual(['HEAD /old', 'HEAD /temp', 'HEAD /send', 'HEAD /gone', 'HEAD /nothing']);
    } finally {
      await e.close();
    }
  });
});
