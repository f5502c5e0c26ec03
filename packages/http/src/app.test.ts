import { SpillwayError } from '@spillway/core';
import type { MessageStatusRecord } from '@spillway/core';
import { describe, expect, it, vi } from 'vitest';
import { createFetchHandler, createHttpApp } from './app.ts';
import type { HttpOptions } from './app.ts';
import { defineRoute } from './openapi.ts';
import { FAKE_KEY, createFakeEngine } from './testing/fake-engine.ts';

const auth = { 'X-Authorization-Key': FAKE_KEY };
const json = { ...auth, 'Content-Type': 'application/json' };

function setup(engine = createFakeEngine(), extra: Partial<HttpOptions> = {}) {
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const app = createHttpApp({ engine, defaultMetrics: false, logger, ...extra });
  return { app, engine, logger };
}

describe('error mapping', () => {
  it('answers a validation error with every bad path', async () => {
    const engine = createFakeEngine({
      send: async () => {
        throw new SpillwayError('validation_failed', 'invalid send request', [
          { path: 'messages[0].to', message: 'not an E.164 number' },
          { path: 'messages[3].type', message: 'unknown type' },
        ]);
      },
    });
    const { app } = setup(engine);
    const res = await app.request('/bat/messagelist', { method: 'POST', headers: json, body: '{"messages":[{}]}' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'validation_failed',
      message: 'invalid send request',
      status: 400,
      details: [
        { path: 'messages[0].to', message: 'not an E.164 number' },
        { path: 'messages[3].type', message: 'unknown type' },
      ],
    });
  });

  it.each([
    ['conflict', 409],
    ['payment_required', 402],
    ['forbidden', 403],
  ] as const)('keeps the status of %s', async (code, status) => {
    const { app } = setup(createFakeEngine({ send: async () => Promise.reject(new SpillwayError(code, 'no')) }));
    const res = await app.request('/bat/messagelist', { method: 'POST', headers: json, body: '{"messages":[]}' });
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ error: code, message: 'no', status });
  });

  it('answers 500 without leaking the message or stack, and logs it', async () => {
    const { app, logger } = setup(createFakeEngine({ send: async () => Promise.reject(new Error('db password is hunter2')) }));
    const res = await app.request('/bat/messagelist', { method: 'POST', headers: json, body: '{"messages":[]}' });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: 'internal', message: 'Internal server error', status: 500 });
    expect(text).not.toContain('hunter2');
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  it('answers a JSON 404 for unknown routes', async () => {
    const { app } = setup();
    const res = await app.request('/nope', { headers: auth });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found', status: 404 });
  });

  it('answers a JSON 405 with Allow for a known path and another method', async () => {
    const { app } = setup();
    const res = await app.request('/bat/messagelist', { method: 'GET', headers: auth });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed', status: 405 });
  });
});

describe('messaging routes', () => {
  it.each(['abc', '1.5', '-3', '0', '99999999999999999999'])('answers 400 for the message id %s', async (id) => {
    const { app } = setup();
    const res = await app.request(`/bat/message/${id}`, { headers: auth });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: Array<{ path: string }> };
    expect(body.details[0]!.path).toBe('messageId');
  });

  it('answers 404 for a message the engine does not find', async () => {
    const { app } = setup();
    const res = await app.request('/bat/message/42', { headers: auth });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('passes the account and numeric id to the engine', async () => {
    const status = vi.fn(async (accountId: number, messageId: number) => ({ accountId, messageId }) as unknown as MessageStatusRecord);
    const update = vi.fn(
      async (accountId: number, messageId: number, body: unknown) => ({ accountId, messageId, body }) as unknown as MessageStatusRecord,
    );
    const { app } = setup(createFakeEngine({ status, update }));
    expect(await (await app.request('/bat/message/42', { headers: auth })).json()).toEqual({ accountId: 7, messageId: 42 });
    const patched = await app.request('/bat/message/42', { method: 'PATCH', headers: json, body: '{"cancel":true}' });
    expect(await patched.json()).toEqual({ accountId: 7, messageId: 42, body: { cancel: true } });
  });

  it('answers the wallet history in currency units, filtered and paged', async () => {
    const { app } = setup();
    const res = await app.request('/api/AlphaName/wallet/info?TransactionTypes=charge&Page=2&PageSize=10', { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      items: [
        {
          id: 2,
          transactionType: 'charge',
          amount: -0.035,
          balanceAfter: 12.5,
          currency: 'EUR',
          messageId: 11,
          description: 'sms',
          counterpartAccountId: null,
          dt: '2026-01-02T00:00:00.000Z',
        },
      ],
      total: 1,
      page: 2,
      pageSize: 10,
    });
  });

  it('accepts repeated TransactionTypes and rejects unknown ones', async () => {
    const { app } = setup();
    const both = await app.request('/api/AlphaName/wallet/info?TransactionTypes=charge&TransactionTypes=topup', { headers: auth });
    expect(((await both.json()) as { total: number }).total).toBe(2);
    const bad = await app.request('/api/AlphaName/wallet/info?TransactionTypes=gift&PageSize=0', { headers: auth });
    expect(bad.status).toBe(400);
    const paths = ((await bad.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['TransactionTypes[0]', 'PageSize']));
  });

  it('sets an alpha-name callback and validates the URL', async () => {
    const { app } = setup();
    const ok = await app.request('/api/AlphaName/callback', {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ alphaName: 'ACME', url: 'https://hooks.example.com/in' }),
    });
    expect(await ok.json()).toEqual({ alphaName: 'ACME', channels: ['sms'], callbackUrl: 'https://hooks.example.com/in' });
    const bad = await app.request('/api/AlphaName/callback', {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ alphaName: 'ACME', url: 'ftp://x' }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: Array<{ path: string }> }).details[0]!.path).toBe('url');
    const unknown = await app.request('/api/AlphaName/callback', {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ alphaName: 'OTHER', url: null }),
    });
    expect(unknown.status).toBe(404);
  });
});

describe('system routes', () => {
  it('answers /health', async () => {
    const { app } = setup();
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('counts requests by route pattern and status on its own registry', async () => {
    const { app } = setup(createFakeEngine(), { defaultMetrics: true });
    await app.request('/bat/message/1', { headers: auth });
    await app.request('/bat/message/2', { headers: auth });
    await app.request('/health');
    const res = await app.request('/metrics');
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toContain('spillway_http_requests_total{method="GET",route="/bat/message/:messageId",status="404"} 2');
    expect(text).toContain('spillway_http_requests_total{method="GET",route="/health",status="200"} 1');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('serves /docs and its script itself, nothing from a CDN', async () => {
    const { app } = setup();
    const res = await app.request('/docs');
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).toContain('openapi.json');
    expect(html).toContain('<script src="docs/scalar.js" ');
    expect(html).not.toMatch(/<script[^>]+src=["']https?:|<link[^>]+href=["']https?:/);

    const script = await app.request('/docs/scalar.js', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.headers.get('content-encoding')).toBe('gzip');
    const etag = script.headers.get('etag')!;
    expect((await app.request('/docs/scalar.js', { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const plain = await app.request('/docs/scalar.js');
    expect(await plain.text()).toContain('createApiReference');
  });

  it('mounts extraRoutes with the shared context', async () => {
    const { app } = setup(createFakeEngine(), {
      extraRoutes: [
        (a) =>
          defineRoute(
            a,
            {
              method: 'get',
              path: '/extra/whoami',
              summary: 'who',
              tags: ['extra'],
              auth: 'basic-or-key',
              responses: { 200: { description: 'me' } },
            },
            (c) => c.json({ login: c.var.account.login }),
          ),
      ],
    });
    expect(await (await app.request('/extra/whoami', { headers: auth })).json()).toEqual({ login: 'acme' });
    expect((await app.request('/extra/whoami')).status).toBe(401);
  });

  it('createFetchHandler answers web-standard requests', async () => {
    const handler = createFetchHandler({ engine: createFakeEngine(), defaultMetrics: false });
    const res = await handler(new Request('http://localhost/health'));
    expect(res.status).toBe(200);
  });
});
