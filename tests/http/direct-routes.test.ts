import { request as httpRequest } from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher, createSpillway, serve } from '@spillway/http';
import type { DirectRoutes, RunningServer, Spillway } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { until } from '../support/server-fixture.ts';

// The direct routes answer the hottest routes without Hono. They must answer exactly as the app
// does: every request here goes to two servers over one Spillway, one with the direct routes in
// front of the app and one with the app alone, and the answers are compared. Each case also says
// whether the direct routes took the request or handed it to the app.

const silent = { info: () => {}, warn: () => {}, error: () => {} };
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const sms = (to = '99900000001', text = 'hello') => ({ from: 'Shop', to, type: 'sms' as const, text });

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | null>;
}

/** The headers compared between the two servers (RateLimit-Remaining only for its presence: each request takes a token). */
const COMPARED = ['content-type', 'ratelimit-limit', 'ratelimit-reset', 'ratelimit-policy', 'retry-after', 'www-authenticate', 'allow'];

/** Ids differ between two sends of the same body; everything else must not. */
function withoutIds(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => (key === 'messageId' || key === 'messagelistId' ? 0 : value));
}

interface Pair {
  spillway: Spillway;
  app: RunningServer;
  direct: RunningServer;
  /** Whether the direct routes took the last request the direct server got. */
  taken: () => boolean | undefined;
  /** Requests the direct server got so far. */
  seen: () => number;
  errors: unknown[][];
}

async function pair(options: { basePath?: string; maxBodyBytes?: number } = {}): Promise<Pair> {
  const errors: unknown[][] = [];
  const spillway = createSpillway({
    storage: createSqliteStorage(),
    channels: [createSimulator({ latencyMs: 0 })],
    hasher: createNodeHasher({ N: 2 ** 12 }),
    logger: { ...silent, error: (...args: unknown[]) => void errors.push(args), warn: (...args: unknown[]) => void errors.push(args) },
    ...(options.basePath ? { basePath: options.basePath } : {}),
    ...(options.maxBodyBytes ? { http: { maxBodyBytes: options.maxBodyBytes } } : {}),
  });
  await spillway.start();
  let taken: boolean | undefined;
  let seen = 0;
  const watched: DirectRoutes = (req, res, next, path) => {
    seen++;
    taken = true;
    spillway.direct(
      req,
      res,
      () => {
        taken = false;
        next();
      },
      path,
    );
  };
  const app = await serve({ fetch: spillway.fetch, port: 0 });
  const direct = await serve({ fetch: spillway.fetch, direct: watched, port: 0 });
  return { spillway, app, direct, taken: () => taken, seen: () => seen, errors };
}

async function call(server: RunningServer, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, init);
  const text = await res.text();
  const headers: Record<string, string | null> = {};
  for (const name of COMPARED) headers[name] = res.headers.get(name);
  headers['ratelimit-remaining'] = res.headers.has('ratelimit-remaining') ? 'present' : null;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: compared as text.
  }
  return { status: res.status, body, headers };
}

/** The same request to the app alone, then to the direct routes; both answers, checked equal. */
async function both(p: Pair, path: string, init: RequestInit = {}) {
  const fromApp = await call(p.app, path, init);
  const fromDirect = await call(p.direct, path, init);
  expect({ ...fromDirect, body: withoutIds(fromDirect.body) }).toEqual({ ...fromApp, body: withoutIds(fromApp.body) });
  return { answer: fromDirect, taken: p.taken() };
}

/** A send through Node's own client, for what fetch cannot send: repeated header lines, a body in chunks. */
function rawSend(server: RunningServer, headers: OutgoingHttpHeaders, chunks: string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest({ port: server.port, path: '/bat/messagelist', method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    for (const chunk of chunks.slice(0, -1)) req.write(chunk);
    req.end(chunks.at(-1));
  });
}

const json = (authorization: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { authorization, 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('direct routes: the same answers as the app', () => {
  let p: Pair;
  let shop: string;
  let shopId: number;
  let keyHeader: Record<string, string>;
  let poor: string;
  let slow: string;
  let otherMessage: number;

  beforeAll(async () => {
    p = await pair({ maxBodyBytes: 4096 });
    const { accounts } = p.spillway.engine;
    const account = await accounts.ensure({ login: 'shop', password: 'shop-password', balance: 100 });
    await accounts.approveAlphaName(account.id, 'Shop');
    shopId = account.id;
    keyHeader = { 'x-authorization-key': (await accounts.createKey(account.id, 'test')).key };
    shop = basic('shop', 'shop-password');
    const poorAccount = await accounts.ensure({ login: 'poor', password: 'poor-password', balance: 0 });
    await accounts.approveAlphaName(poorAccount.id, 'Shop');
    poor = basic('poor', 'poor-password');
    const slowAccount = await accounts.ensure({ login: 'slow', password: 'slow-password', balance: 100 });
    await accounts.approveAlphaName(slowAccount.id, 'Shop');
    await accounts.setRateLimit(slowAccount.id, 'messaging', { perSecond: 1, burst: 1 });
    slow = basic('slow', 'slow-password');
    const other = await accounts.ensure({ login: 'other', password: 'other-password', balance: 100 });
    await accounts.approveAlphaName(other.id, 'Shop');
    const sent = await p.spillway.engine.messages.send(other.id, { messages: [sms()] });
    otherMessage = sent.messages[0]!.messageId;
  });

  afterAll(async () => {
    await p.app.close();
    await p.direct.close();
    await p.spillway.stop();
  });

  it('sends: the first request of new credentials goes to the app, which caches them; then the direct routes take them', async () => {
    const first = await both(p, '/bat/messagelist', json(shop, { messages: [sms()] }));
    expect(first.answer.status).toBe(200);
    // The app server saw the credentials first and cached them, so the direct server's request was taken.
    expect(first.taken).toBe(true);
    const bulk = await both(p, '/bat/messagelist', json(shop, { messages: [sms('99900000002'), sms('99900000003'), sms('99900000004')] }));
    expect(bulk.answer.status).toBe(200);
    expect((bulk.answer.body as { messages: unknown[] }).messages).toHaveLength(3);
    expect(bulk.taken).toBe(true);
    const byKey = await both(p, '/bat/messagelist', {
      ...json('', { messages: [sms()] }),
      headers: { ...keyHeader, 'content-type': 'text/json' },
    });
    expect([byKey.answer.status, byKey.taken]).toEqual([200, true]);
  });

  it.each([
    ['an invalid item', { messages: [{ ...sms(), to: '12' }] }, 400, 'validation_failed'],
    ['malformed JSON', '{"messages": [', 400, 'bad_request'],
    ['a NUL character in a text', { messages: [{ ...sms(), text: 'a\u0000b' }] }, 400, 'validation_failed'],
    ['an empty body', '', 400, 'bad_request'],
    ['a body over the balance', { messages: [sms()] }, 402, 'insufficient_funds'],
  ])('sends with %s: the error of the engine or of the body, taken', async (_name, body, status, code) => {
    const { answer, taken } = await both(p, '/bat/messagelist', json(status === 402 ? poor : shop, body));
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error: status === 402 ? expect.any(String) : code, status });
    expect(taken).toBe(true);
  });

  it('a customerMessageId replayed is answered with the original ids; reused with other content, 409', async () => {
    const replay = await both(p, '/bat/messagelist', json(shop, { messages: [{ ...sms(), customerMessageId: 'c-1' }] }));
    expect([replay.answer.status, replay.taken]).toEqual([200, true]);
    const conflict = await both(p, '/bat/messagelist', json(shop, { messages: [{ ...sms(), text: 'other', customerMessageId: 'c-1' }] }));
    expect([conflict.answer.status, conflict.taken]).toEqual([409, true]);
  });

  it.each([
    ['no credentials', () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 401],
    ['a wrong password', () => json(basic('shop', 'wrong'), { messages: [sms()] }), 401],
    [
      'an unknown key',
      () => ({ ...json('', { messages: [sms()] }), headers: { 'x-authorization-key': 'nope', 'content-type': 'application/json' } }),
      401,
    ],
    ['another content type', () => json(shop, { messages: [sms()] }, { 'content-type': 'text/plain' }), 415],
    ['JSON in another charset', () => json(shop, { messages: [sms()] }, { 'content-type': 'application/json; charset=iso-8859-1' }), 415],
    ['a body over the limit', () => json(shop, { messages: [sms('99900000001', 'x'.repeat(5000))] }), 413],
  ] as Array<[string, () => RequestInit, number]>)('sends with %s go to the app', async (_name, init, status) => {
    const { answer, taken } = await both(p, '/bat/messagelist', init());
    expect(answer.status).toBe(status);
    expect(taken).toBe(false);
  });

  it('two Authorization header lines are read as a web Headers object reads them (joined), not as the first one', async () => {
    // fetch would join them into one line itself: Node's client sends an array as repeated lines.
    const body = JSON.stringify({ messages: [sms()] });
    const headers = {
      authorization: [shop, basic('other', 'other-password')] as unknown as string,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    const send = (server: RunningServer) => rawSend(server, headers, [body]);
    expect(await send(p.app)).toBe(401);
    expect(await send(p.direct)).toBe(401);
    expect(p.taken()).toBe(false);
  });

  it('a send past the rate limit goes to the app, which answers 429 with Retry-After', async () => {
    // Warm the cache and take the only token.
    expect((await call(p.app, '/bat/messagelist', json(slow, { messages: [sms()] }))).status).toBe(200);
    const { answer, taken } = await both(p, '/bat/messagelist', json(slow, { messages: [sms()] }));
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('1');
    expect(taken).toBe(false);
  });

  it('a streamed (chunked) send goes to the app', async () => {
    const body = JSON.stringify({ messages: [sms()] });
    const send = (server: RunningServer) =>
      rawSend(server, { authorization: shop, 'content-type': 'application/json' }, [body.slice(0, 10), body.slice(10)]);
    expect(await send(p.app)).toBe(200);
    expect(await send(p.direct)).toBe(200);
    expect(p.taken()).toBe(false);
  });

  it('status reads: the record, a missing message and another account’s message, taken', async () => {
    const sent = await p.spillway.engine.messages.send(shopId, { messages: [sms()] });
    const id = sent.messages[0]!.messageId;
    const read = await both(p, `/bat/message/${id}`, { headers: { authorization: shop } });
    expect(read.answer.status).toBe(200);
    expect(read.answer.body).toMatchObject({ messageId: id, deliverystatus: expect.any(String) });
    expect(read.taken).toBe(true);
    for (const missing of [`/bat/message/${id + 1000}`, `/bat/message/${otherMessage}`]) {
      const answer = await both(p, missing, { headers: { authorization: shop } });
      expect([answer.answer.status, answer.taken]).toEqual([404, true]);
    }
  });

  it.each([
    ['a malformed id', '/bat/message/abc', 'GET', 400],
    ['id 0', '/bat/message/0', 'GET', 400],
    ['a query string', '/bat/message/1?x=1', 'GET', 404],
    ['HEAD', '/bat/message/1', 'HEAD', 404],
    ['another method', '/bat/messagelist', 'PUT', 405],
    ['a trailing slash', '/bat/messagelist/', 'POST', 404],
  ])('%s goes to the app', async (_name, path, method, status) => {
    const { answer, taken } = await both(p, path, { method, headers: { authorization: shop } });
    expect(answer.status).toBe(status);
    expect(taken).toBe(false);
  });

  it('an error that is not the engine’s is logged and answered 500, and a busy database 503 with Retry-After, on both', async () => {
    const messages = p.spillway.engine.messages;
    const original = messages.status;
    try {
      messages.status = () => Promise.reject(new Error('boom'));
      p.errors.length = 0;
      const failed = await both(p, '/bat/message/1', { headers: { authorization: shop } });
      expect([failed.answer.status, failed.taken]).toEqual([500, true]);
      expect(failed.answer.body).toEqual({ error: 'internal', message: 'Internal server error', status: 500 });
      expect(p.errors.map((e) => e[0])).toEqual(['unhandled error in request', 'unhandled error in request']);
      messages.status = () => Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
      const busy = await both(p, '/bat/message/1', { headers: { authorization: shop } });
      expect([busy.answer.status, busy.answer.headers['retry-after'], busy.taken]).toEqual([503, '1', true]);
    } finally {
      messages.status = original;
    }
  });

  it('a client gone in the middle of its body gets no answer and costs no error; the server goes on', async () => {
    p.errors.length = 0;
    const before = p.seen();
    const socket = connect(p.direct.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /bat/messagelist HTTP/1.1\r\nHost: x\r\nAuthorization: ${shop}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"messa`,
    );
    await until(
      async () => p.seen(),
      (n) => n > before,
    );
    expect(p.taken()).toBe(true);
    socket.destroy();
    expect((await call(p.direct, '/bat/messagelist', json(shop, { messages: [sms()] }))).status).toBe(200);
    expect(p.errors).toEqual([]);
  });

  it('/health, taken; HEAD /health goes to the app', async () => {
    const health = await both(p, '/health');
    expect([health.answer.status, health.answer.body, health.taken]).toEqual([200, { status: 'ok' }, true]);
    const head = await both(p, '/health', { method: 'HEAD' });
    expect([head.answer.status, head.taken]).toEqual([200, false]);
  });

  it('counts its requests on /metrics under the same labels as the app', async () => {
    const count = async () => {
      const text = await (await fetch(`http://127.0.0.1:${p.app.port}/metrics`)).text();
      const line = /spillway_http_requests_total\{method="POST",route="\/bat\/messagelist",status="200"\} (\d+)/.exec(text);
      return Number(line?.[1] ?? 0);
    };
    const before = await count();
    await call(p.direct, '/bat/messagelist', json(shop, { messages: [sms()] }));
    expect(p.taken()).toBe(true);
    expect(await count()).toBe(before + 1);
  });
});

describe('direct routes under a basePath', () => {
  let p: Pair;
  let shop: string;

  beforeAll(async () => {
    p = await pair({ basePath: '/spillway' });
    const account = await p.spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 100 });
    await p.spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
    shop = basic('shop', 'shop-password');
  });

  afterAll(async () => {
    await p.app.close();
    await p.direct.close();
    await p.spillway.stop();
  });

  it('takes the routes below the prefix, and leaves the rest to the app', async () => {
    await call(p.app, '/spillway/bat/balance', { headers: { authorization: shop } });
    const sent = await both(p, '/spillway/bat/messagelist', json(shop, { messages: [sms()] }));
    expect([sent.answer.status, sent.taken]).toEqual([200, true]);
    const outside = await both(p, '/bat/messagelist', json(shop, { messages: [sms()] }));
    expect([outside.answer.status, outside.taken]).toEqual([404, false]);
  });
});

describe('Spillway.listen', () => {
  it('serves the direct routes: a send through it is answered without the app', async () => {
    const spillway = createSpillway({
      storage: createSqliteStorage(),
      channels: [createSimulator({ latencyMs: 0 })],
      hasher: createNodeHasher({ N: 2 ** 12 }),
      logger: silent,
    });
    // listen() serves spillway.direct: count what reaches it.
    const direct = spillway.direct;
    let reached = 0;
    spillway.direct = (req, res, next, path) => {
      reached++;
      direct(req, res, next, path);
    };
    const server = await spillway.listen({ port: 0 });
    try {
      const account = await spillway.engine.accounts.ensure({ login: 'shop', password: 'shop-password', balance: 100 });
      await spillway.engine.accounts.approveAlphaName(account.id, 'Shop');
      const origin = `http://127.0.0.1:${server.port}`;
      const send = () => fetch(`${origin}/bat/messagelist`, json(basic('shop', 'shop-password'), { messages: [sms()] }));
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(200);
      expect(reached).toBe(2);
    } finally {
      await spillway.stop();
    }
  });
});
