import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, LOGIN, startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const sms = (to: string, extra: Record<string, unknown> = {}) => ({ from: 'Acme', to, text: 'Hello', type: 'sms', ...extra });
const send = (messages: unknown[], init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call('/bat/messagelist', { json: { messages }, ...init });
const statusOf = async (id: number) => (await s.call(`/bat/message/${id}`)).json() as Promise<Record<string, any>>;
const balance = async () => ((await (await s.call('/bat/balance')).json()) as { balance: number }).balance;

describe('authentication (interface 5.1)', () => {
  it('accepts Basic login:password, X-Authorization-Key and Basic @:key', async () => {
    expect((await s.call('/bat/balance', { auth: 'basic' })).status).toBe(200);
    expect((await s.call('/bat/balance', { auth: 'key' })).status).toBe(200);
    const at = `Basic ${Buffer.from(`@:${API_KEY}`).toString('base64')}`;
    expect((await s.call('/bat/balance', { auth: 'none', headers: { authorization: at } })).status).toBe(200);
  });

  it('GET /api/account names the account of a key and of a login, and answers 401 without one', async () => {
    for (const auth of ['key', 'basic'] as const) {
      const res = await s.call('/api/account', { auth });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ clientId: expect.any(Number), login: LOGIN, name: expect.any(String), currency: 'EUR' });
    }
    expect((await s.call('/api/account', { auth: 'none' })).status).toBe(401);
  });

  it('answers 401 with the JSON error body otherwise', async () => {
    const cases: Record<string, string>[] = [
      {},
      { 'x-authorization-key': 'sk_wrong' },
      { authorization: `Basic ${Buffer.from(`${LOGIN}:nope`).toString('base64')}` },
    ];
    for (const headers of cases) {
      const res = await s.call('/bat/balance', { auth: 'none', headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Basic');
      expect(await res.json()).toMatchObject({ error: 'unauthorized', status: 401 });
    }
  });
});

describe('POST /bat/messagelist', () => {
  it('accepts every message type and answers the send response with real segment counts', async () => {
    const to = '99900000042';
    const res = await send([
      sms(to, { text: '€'.repeat(80) }),
      sms(to, { text: '€'.repeat(81) }),
      sms(to, { text: 'Привет' }),
      { from: 'Acme', to, type: 'chatapp_service', text: 'Your order shipped' },
      {
        from: 'Acme',
        to,
        type: 'chatapp_trans',
        messageData: { fileUrl: 'https://example.com/i.pdf', fileName: 'i.pdf', fileType: 'pdf' },
      },
      {
        from: 'Acme',
        to,
        type: 'chatapp_promo',
        text: 'Sale',
        messageData: { img: 'https://example.com/a.png', buttonText: 'Shop', buttonAction: 'https://example.com' },
      },
      {
        from: 'Acme',
        to,
        type: 'chatapp_survey',
        text: 'How was it?',
        messageData: { survey: { options: ['😀', '🙂', '😐', '🙁', '😞'] } },
      },
      {
        from: 'Acme',
        to,
        type: 'chatapp_otp',
        messageData: {
          templateId: '6c929cef-29b4-4349-bc9d-2a07bdbb6e43',
          templateLang: 'uk',
          templateParams: { pin: 1234, business_platform_name: 'Acme', code_validity_time: 2 },
        },
      },
      { from: 'Acme', to, type: 'chatapp_session', text: 'Thanks for writing' },
      { from: 'Acme', to, type: 'rcs', text: 'Hi', messageData: { suggestions: [{ sugText: 'Open', sugUrl: 'https://example.com' }] } },
      { from: 'Acme', to, type: 'flashcall', text: 4821 },
      { from: 'Acme', to, type: 'flashcall_callback', text: '4821' },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { messagelistId: number; messages: Record<string, unknown>[] };
    expect(body.messagelistId).toBeGreaterThan(0);
    expect(body.messages).toHaveLength(12);
    expect(body.messages.map((m) => m['partsCount']).slice(0, 3)).toEqual([1, 2, 1]);
    expect(body.messages[10]).toMatchObject({ type: 'flashcall', text: '4821', dtExpire: null, customerMessageId: null });
    expect(new Set(body.messages.map((m) => m['messageId'])).size).toBe(12);
  });

  it('rejects the whole request when any item is invalid, listing every bad item, storing and charging nothing', async () => {
    const before = await balance();
    const res = await send([
      sms('99900000000'),
      sms('12'),
      { ...sms('99900000000'), type: 'fax' },
      {
        from: 'Acme',
        to: '99900000000',
        type: 'chatapp_otp',
        messageData: { templateId: 'c33cccaf-735f-4d62-8383-a76bf4999e2d', templateLang: 'EN', templateParams: { pin: '1' } },
      },
      { ...sms('99900000000'), from: 'NotOurs' },
    ]);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; details: { path: string }[] };
    expect(body.error).toBe('validation_failed');
    const paths = body.details.map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['messages[1].to', 'messages[2].type', 'messages[4].from']));
    expect(paths.some((p) => p.startsWith('messages[3].messageData.templateParams'))).toBe(true);
    expect(await balance()).toBe(before);
  });

  it('rejects an unapproved sender with 400 by path', async () => {
    const res = await send([{ ...sms('99900000000'), from: 'NotOurs' }]);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: { path: string }[] }).details[0]?.path).toBe('messages[0].from');
  });

  it('answers clear 4xx errors to 5001 messages, malformed JSON, a wrong content type and an oversized body', async () => {
    const many = Array.from({ length: 5001 }, () => sms('99900000000'));
    const tooMany = await send(many);
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { details: { path: string }[] }).details[0]?.path).toBe('messages');

    const malformed = await s.call('/bat/messagelist', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messages": [',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'bad_request', status: 400 });

    const wrongType = await s.call('/bat/messagelist', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(wrongType.status).toBe(415);

    const huge = await s.call('/bat/messagelist', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [sms('99900000000', { text: 'x'.repeat(17 * 1024 * 1024) })] }),
    });
    expect(huge.status).toBe(413);
    expect((await s.call('/health')).status).toBe(200);
  });

  it('accepts the JSON content types of the interface', async () => {
    for (const type of ['application/json; charset=utf-8', 'text/json', 'application/json-patch+json', 'application/vnd.acme+json']) {
      const res = await send([sms('99900000000')], { headers: { 'content-type': type } });
      expect(res.status).toBe(200);
    }
  });

  it('replays an identical customerMessageId and answers 409 to reuse with other content', async () => {
    const first = await (await send([sms('99900000000', { customerMessageId: 'inv-77' })])).json();
    const again = await send([sms('99900000000', { customerMessageId: 'inv-77' })]);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    const conflict = await send([sms('99900000000', { customerMessageId: 'inv-77', text: 'changed' })]);
    expect(conflict.status).toBe(409);
    const twice = await send([sms('99900000000', { customerMessageId: 'dup' }), sms('99900000000', { customerMessageId: 'dup' })]);
    expect(twice.status).toBe(409);
  });
});

describe('GET /bat/message/{messageId}', () => {
  it('reports delivery with fallbacks on real outcomes (test number 01: chat-app fails, SMS delivers)', async () => {
    const before = await balance();
    const res = await send([{ from: 'Acme', to: '99900000001', type: 'chatapp_service', text: 'Hi', fallbacks: [sms('99900000001')] }]);
    const id = ((await res.json()) as { messages: { messageId: number }[] }).messages[0]!.messageId;
    const status = await until(
      () => statusOf(id),
      (v) => v['deliverystatus'] === 'delivered',
    );
    expect(status).toMatchObject({
      messageId: id,
      deliverystatus: 'delivered',
      partscount: 1,
      partsCount: 1,
      rateCurrency: 'EUR',
      billCurrency: 'EUR',
    });
    expect(status['fallbacks'][0]).toMatchObject({ type: 'sms', deliverystatus: 'delivered' });
    expect(status['extendedStatuses'].map((e: { status: string; channel: string }) => `${e.status}/${e.channel}`)).toEqual([
      'Sent/chatapp',
      'Failed/chatapp',
      'Sent/sms',
      'Delivered/sms',
    ]);
    expect(status['billAmount']).toBeCloseTo(before - (await balance()), 6);
  });

  it.each([
    ['99900000002', 'undeliverable'],
    ['99900000003', 'permanenterror'],
    ['99900000005', 'delivered'],
  ])('drives %s to %s', async (to, outcome) => {
    const res = await send([sms(to)]);
    const id = ((await res.json()) as { messages: { messageId: number }[] }).messages[0]!.messageId;
    const status = await until(
      () => statusOf(id),
      (v) => v['deliverystatus'] === outcome,
    );
    expect(status['deliverystatus']).toBe(outcome);
  });

  it("hides another account's message (404) and refuses a non-integer id (400)", async () => {
    const res = await send([sms('99900000000')]);
    const id = ((await res.json()) as { messages: { messageId: number }[] }).messages[0]!.messageId;
    const other = await s.server.engine.accounts.create({ login: 'other', password: 'other-password' });
    const { key } = await s.server.engine.accounts.createKey(other.id);
    const hidden = await s.call(`/bat/message/${id}`, { headers: { 'x-authorization-key': key } });
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toMatchObject({ error: 'not_found', status: 404 });
    expect((await s.call('/bat/message/abc')).status).toBe(400);
    expect((await s.call('/bat/message/999999999')).status).toBe(404);
  });
});

describe('PATCH /bat/message/{messageId} and the wallet', () => {
  it('cancels a scheduled message with a refund, and answers 409 once it is no longer scheduled', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const res = await send([sms('99900000000', { scheduledAt: at })]);
    const id = ((await res.json()) as { messages: { messageId: number }[] }).messages[0]!.messageId;
    expect((await statusOf(id))['deliverystatus']).toBe('scheduled');
    const before = await balance();
    const cancelled = await s.call(`/bat/message/${id}`, { method: 'PATCH', json: { cancel: true } });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ deliverystatus: 'cancelled' });
    expect(await balance()).toBeGreaterThan(before);
    expect((await s.call(`/bat/message/${id}`, { method: 'PATCH', json: { text: 'again' } })).status).toBe(409);
    const wallet = (await (await s.call('/api/AlphaName/wallet/info?TransactionTypes=refund')).json()) as {
      items: { messageId: number }[];
    };
    expect(wallet.items.map((t) => t.messageId)).toContain(id);
  });

  it('changes the text of a scheduled message', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const res = await send([sms('99900000000', { scheduledAt: at })]);
    const id = ((await res.json()) as { messages: { messageId: number }[] }).messages[0]!.messageId;
    const changed = await s.call(`/bat/message/${id}`, { method: 'PATCH', json: { text: 'y'.repeat(161) } });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ deliverystatus: 'scheduled', partsCount: 2 });
    const bad = await s.call(`/bat/message/${id}`, { method: 'PATCH', json: { text: '' } });
    expect(bad.status).toBe(400);
  });
});

describe('time and ttl fields of a send, as a production client writes them', () => {
  /** A whole minute an hour or so ahead, and its wall-clock time at `hours` east of UTC without the offset. */
  const dueAt = () => Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000;
  const wallClock = (ms: number, hours: number) => new Date(ms + hours * 3_600_000).toISOString().slice(0, 19);
  const idOf = async (res: Response) => ((await res.json()) as { messages: { messageId: number }[] }).messages[0]!.messageId;

  it('takes scheduledAt without seconds or with an offset without its colon, and refuses one without an offset', async () => {
    const due = dueAt();
    for (const scheduledAt of [wallClock(due, 0).slice(0, 16) + 'Z', wallClock(due, 3) + '+0300']) {
      const res = await send([sms('99900000000', { scheduledAt })]);
      expect(res.status, `${scheduledAt}: ${await res.clone().text()}`).toBe(200);
      const id = await idOf(res);
      expect((await statusOf(id))['deliverystatus']).toBe('scheduled');
      expect((await s.server.storage.getMessage(id))?.dueAt, scheduledAt).toBe(due);
    }
    const res = await send([sms('99900000000', { scheduledAt: wallClock(due, 0) })]);
    expect(res.status).toBe(400);
    expect((await res.json()).details).toEqual([
      { path: 'messages[0].scheduledAt', message: expect.stringMatching(/no offset.*ambiguous/) },
    ]);
    // PATCH reads it the same way.
    const scheduled = await idOf(await send([sms('99900000000', { scheduledAt: new Date(due).toISOString() })]));
    const later = due + 600_000;
    const moved = await s.call(`/bat/message/${scheduled}`, {
      method: 'PATCH',
      json: { scheduledAt: wallClock(later, -3).slice(0, 16) + '-0300' },
    });
    expect(moved.status, await moved.clone().text()).toBe(200);
    expect((await s.server.storage.getMessage(scheduled))?.dueAt).toBe(later);
  });

  it('answers a ttl too large for a safe integer with the 14-day bound, on a message, a fallback and a PATCH', async () => {
    const bound = expect.stringContaining('1209600');
    for (const ttl of [1e308, 2 ** 53, 1.5]) {
      const res = await send([sms('99900000000', { ttl, fallbacks: [sms('99900000000', { ttl })] })]);
      expect(res.status).toBe(400);
      expect((await res.json()).details, String(ttl)).toEqual([
        { path: 'messages[0].ttl', message: bound },
        { path: 'messages[0].fallbacks[0].ttl', message: bound },
      ]);
    }
    const unknownType = await send([sms('99900000000', { type: 'nope', ttl: 1e308 })]);
    expect((await unknownType.json()).details).toContainEqual({ path: 'messages[0].ttl', message: bound });
    const id = await idOf(await send([sms('99900000000', { scheduledAt: new Date(dueAt()).toISOString() })]));
    for (const ttl of [1e308, 1.5]) {
      const patched = await s.call(`/bat/message/${id}`, { method: 'PATCH', json: { ttl } });
      expect(patched.status).toBe(400);
      expect((await patched.json()).details, String(ttl)).toEqual([{ path: 'ttl', message: bound }]);
    }
  });
});

describe('rate limits (section 8)', () => {
  it('answers 429 with the documented body, Retry-After and RateLimit headers', async () => {
    const account = await s.server.engine.accounts.create({ login: 'limited', password: 'limited-password' });
    await s.server.engine.accounts.setRateLimit(account.id, 'messaging', { perSecond: 1, burst: 2 });
    await s.server.engine.accounts.approveAlphaName(account.id, 'Acme');
    await s.server.engine.accounts.topUp(account.id, 10);
    const { key } = await s.server.engine.accounts.createKey(account.id);
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await send([sms('99900000000')], { headers: { 'x-authorization-key': key } });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(limited).toBeDefined();
    expect(await limited!.json()).toMatchObject({ error: 'rate_limited', status: 429 });
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited!.headers.get('ratelimit-limit')).toBe('2');
    expect(limited!.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited!.headers.get('ratelimit-reset')).not.toBeNull();
  });
});

describe('system endpoints', () => {
  it('answers /health, /metrics, /openapi.json and /docs', async () => {
    expect(await (await s.call('/health', { auth: 'none' })).json()).toMatchObject({ status: 'ok' });
    const metrics = await (await s.call('/metrics', { auth: 'none' })).text();
    expect(metrics).toContain('spillway_http_requests_total');
    // Engine metrics: the deliveries of the tests above.
    expect(metrics).toMatch(/spillway_message_events_total\{channel="sms",status="Delivered"\} [1-9]/);
    expect(metrics).toMatch(/spillway_messages_finished_total\{status="delivered"\} [1-9]/);
    const doc = (await (await s.call('/openapi.json', { auth: 'none' })).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const path of [
      '/bat/messagelist',
      '/bat/message/{messageId}',
      '/bat/balance',
      '/api/company/get-token',
      '/api/operator/validate-token',
      '/api/auth',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => (op as { operationId: string }).operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const docs = await s.call('/docs', { auth: 'none' });
    expect(docs.headers.get('content-type')).toContain('text/html');
  });

  it('answers JSON 404 for unknown paths', async () => {
    const res = await s.call('/nope', { auth: 'none' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404 });
  });
});
