import { describe, expect, it } from 'vitest';
import { createHttpApp } from './app.ts';
import { readCredentials } from './auth.ts';
import { FAKE_KEY, FAKE_LOGIN, FAKE_PASSWORD, createFakeEngine } from './testing/fake-engine.ts';

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`, 'utf8').toString('base64')}`;

function setup() {
  const engine = createFakeEngine();
  const app = createHttpApp({ engine, defaultMetrics: false, logger: { info() {}, warn() {}, error() {} } });
  return { engine, app };
}

describe('authentication (interface 5.1)', () => {
  it('accepts Basic login:password', async () => {
    const { app } = setup();
    const res = await app.request('/bat/balance', { headers: { Authorization: basic(FAKE_LOGIN, FAKE_PASSWORD) } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ balance: 12.5, currency: 'EUR' });
  });

  it('accepts X-Authorization-Key', async () => {
    const { app } = setup();
    const res = await app.request('/bat/balance', { headers: { 'X-Authorization-Key': FAKE_KEY } });
    expect(res.status).toBe(200);
  });

  it('accepts Basic with login @ and the key as password', async () => {
    const { app, engine } = setup();
    const res = await app.request('/bat/balance', { headers: { Authorization: basic('@', FAKE_KEY) } });
    expect(res.status).toBe(200);
    expect(engine.calls.keyChecks).toBe(1);
    expect(engine.calls.passwordChecks).toBe(0);
  });

  it.each([
    ['no credentials', {}],
    ['a wrong password', { Authorization: basic(FAKE_LOGIN, 'nope') }],
    ['a wrong key', { 'X-Authorization-Key': 'sk_wrong' }],
    ['@ with a wrong key', { Authorization: basic('@', 'sk_wrong') }],
    ['a bearer token', { Authorization: 'Bearer abc.def.ghi' }],
    ['malformed base64', { Authorization: 'Basic %%%' }],
    ['Basic without a colon', { Authorization: `Basic ${Buffer.from('acme').toString('base64')}` }],
  ])('answers 401 with a Basic challenge for %s', async (_name, headers) => {
    const { app } = setup();
    const res = await app.request('/bat/balance', { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="spillway"/);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toMatchObject({ error: 'unauthorized', status: 401 });
  });

  it('caches a successful check for 30 s, then checks again', async () => {
    const { app, engine } = setup();
    const headers = { Authorization: basic(FAKE_LOGIN, FAKE_PASSWORD) };
    for (let i = 0; i < 5; i++) expect((await app.request('/bat/balance', { headers })).status).toBe(200);
    expect(engine.calls.passwordChecks).toBe(1);
    await engine.clock.advance(30_001);
    expect((await app.request('/bat/balance', { headers })).status).toBe(200);
    expect(engine.calls.passwordChecks).toBe(2);
  });

  it('never caches a failure, and a cached login does not admit another password', async () => {
    const { app, engine } = setup();
    await app.request('/bat/balance', { headers: { Authorization: basic(FAKE_LOGIN, FAKE_PASSWORD) } });
    const wrong = await app.request('/bat/balance', { headers: { Authorization: basic(FAKE_LOGIN, 'other') } });
    expect(wrong.status).toBe(401);
    await app.request('/bat/balance', { headers: { Authorization: basic(FAKE_LOGIN, 'other') } });
    expect(engine.calls.passwordChecks).toBe(3);
  });
});

describe('readCredentials', () => {
  it('keeps colons of the password and decodes UTF-8', () => {
    const headers = new Headers({ Authorization: basic('jörg', 'a:b:c') });
    expect(readCredentials(headers)).toEqual({ kind: 'password', login: 'jörg', password: 'a:b:c' });
  });

  it('prefers X-Authorization-Key over Authorization', () => {
    const headers = new Headers({ Authorization: basic('acme', 'pw'), 'X-Authorization-Key': 'k1' });
    expect(readCredentials(headers)).toEqual({ kind: 'key', key: 'k1' });
  });
});

describe('password attempts', () => {
  it('limits tries of one login at the data rate, right or wrong, before any password is checked', async () => {
    const engine = createFakeEngine();
    const app = createHttpApp({
      engine,
      defaultMetrics: false,
      rateLimits: { data: { perSecond: 1, burst: 2 } },
      authCache: { ttlMs: 0 },
      logger: { info() {}, warn() {}, error() {} },
    });
    const headers = { Authorization: basic(FAKE_LOGIN, FAKE_PASSWORD) };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.request('/bat/balance', { headers })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(engine.calls.passwordChecks).toBe(2);
  });

  it('answers 429 with Retry-After once a login has failed too often, without checking the password', async () => {
    const { app, engine } = setup();
    const wrong = { Authorization: basic(FAKE_LOGIN, 'nope') };
    for (let i = 0; i < 6; i++) expect((await app.request('/bat/balance', { headers: wrong })).status).toBe(401);
    const locked = await app.request('/bat/balance', { headers: { Authorization: basic(FAKE_LOGIN, FAKE_PASSWORD) } });
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('1');
    expect(await locked.json()).toMatchObject({ error: 'rate_limited', status: 429 });
    expect(engine.calls.passwordChecks).toBe(6);
    // The lock is a delay, read on the injected clock.
    await engine.clock.advance(1000);
    expect((await app.request('/bat/balance', { headers: { Authorization: basic(FAKE_LOGIN, FAKE_PASSWORD) } })).status).toBe(200);
  });
});
