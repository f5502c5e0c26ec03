import { describe, expect, it } from 'vitest';
import { createHttpApp } from './app.ts';
import { FAKE_KEY, createFakeEngine } from './testing/fake-engine.ts';

const quiet = { info() {}, warn() {}, error() {} };
const auth = { 'X-Authorization-Key': FAKE_KEY };

function setup() {
  const engine = createFakeEngine();
  const app = createHttpApp({
    engine,
    defaultMetrics: false,
    logger: quiet,
    rateLimits: { messaging: { perSecond: 2, burst: 3 }, data: { perSecond: 1, burst: 2 } },
  });
  const sendOnce = () =>
    app.request('/bat/messagelist', { method: 'POST', body: '{"messages":[]}', headers: { ...auth, 'Content-Type': 'application/json' } });
  return { engine, app, sendOnce };
}

describe('rate limiting (interface 8)', () => {
  it('answers 429 past the burst with the documented body and headers', async () => {
    const { sendOnce } = setup();
    const ok = [await sendOnce(), await sendOnce(), await sendOnce()];
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(ok.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
    expect(ok[0]!.headers.get('ratelimit-limit')).toBe('3');
    expect(ok[0]!.headers.get('ratelimit-reset')).toBe('1');
    expect(ok[0]!.headers.get('retry-after')).toBeNull();

    const limited = await sendOnce();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: 'rate_limited', message: expect.any(String), status: 429 });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-policy')).toBe('2;w=1;burst=3');
  });

  it('lets requests through again once the clock refills the bucket', async () => {
    const { engine, sendOnce } = setup();
    for (let i = 0; i < 3; i++) await sendOnce();
    expect((await sendOnce()).status).toBe(429);
    await engine.clock.advance(500); // 2/s: one token
    expect((await sendOnce()).status).toBe(200);
    expect((await sendOnce()).status).toBe(429);
  });

  it('counts messaging and data requests in separate buckets', async () => {
    const { app, sendOnce } = setup();
    for (let i = 0; i < 3; i++) await sendOnce();
    expect((await sendOnce()).status).toBe(429);
    const data = await app.request('/bat/balance', { headers: auth });
    expect(data.status).toBe(200);
    expect(data.headers.get('ratelimit-limit')).toBe('2');
  });

  it("uses the account's own override", async () => {
    const { app, engine } = setup();
    engine.account.rateLimits = { data: { perSecond: 1, burst: 5 } };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await app.request('/bat/balance', { headers: auth })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('gives a long Retry-After for a slow limit', async () => {
    const { app, engine } = setup();
    engine.account.rateLimits = { data: { perSecond: 0.1, burst: 1 } };
    await app.request('/bat/balance', { headers: auth });
    const limited = await app.request('/bat/balance', { headers: auth });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10');
  });

  it('does not limit unauthenticated system routes', async () => {
    const { app } = setup();
    for (let i = 0; i < 10; i++) expect((await app.request('/health')).status).toBe(200);
  });
});
