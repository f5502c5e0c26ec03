import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

type ErrorBody = { error: string; status: number; message: string; details?: Array<{ path: string; message: string }> };

describe('route ids are own properties only', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])('GET /api/routes/%s is a JSON 404', async (id) => {
    const res = await s.call(`/api/routes/${id}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found', status: 404 });
  });

  it('does not treat a built-in of Object as a built-in route when writing either', async () => {
    const body = { name: 'x', start: 'a', steps: [{ id: 'a', channel: 'sms' }], edges: [] };
    for (const id of ['constructor', 'toString']) {
      const put = await s.call(`/api/routes/${id}`, { method: 'PUT', json: { ...body, revision: 1 } });
      expect(put.status).toBe(404);
      expect((await s.call(`/api/routes/${id}`, { method: 'DELETE' })).status).toBe(404);
    }
  });
});

describe('every stored string has a length limit', () => {
  const big = 'x'.repeat(1024 * 1024);
  const cascade = (extra: Record<string, unknown>) => [{ fromName: 'Acme', toPhone: '9990000000100', text: 'hi', ...extra }];
  const refused = async (extra: Record<string, unknown>) => {
    const res = await s.call('/api/CascadeMessage/send_message/async', { json: cascade(extra) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ error: 'validation_failed', status: 400 });
    return body.details?.map((d) => d.path) ?? [];
  };

  it('refuses 1 MB in chatappMessage.keyboard.type and the buttons, with the path of each', async () => {
    expect(await refused({ chatappMessage: { text: 'hi', keyboard: { type: big } } })).toContain('[0].chatappMessage.keyboard.type');
    const paths = await refused({
      chatappMessage: { text: 'hi', keyboard: { type: 'keyboard', buttons: [{ actionType: big, actionBody: big, text: big }] } },
    });
    expect(paths).toEqual(
      expect.arrayContaining([
        '[0].chatappMessage.keyboard.buttons[0].actionType',
        '[0].chatappMessage.keyboard.buttons[0].actionBody',
        '[0].chatappMessage.keyboard.buttons[0].text',
      ]),
    );
  });

  it('refuses 1 MB in customerData.type and in members the schema does not name', async () => {
    expect(await refused({ customerData: { type: big } })).toContain('[0].customerData.type');
    expect(await refused({ customerData: { type: 'order', note: big } })).toContain('[0].customerData');
    expect(await refused({ chatappMessage: { text: 'hi', extra: big } })).toContain('[0].chatappMessage');
  });

  it('refuses oversized alpha-names and callback URLs', async () => {
    const res = await s.call('/api/AlphaName/callback', {
      method: 'PUT',
      json: { alphaName: big, url: `https://example.com/${'a'.repeat(5000)}` },
    });
    expect(res.status).toBe(400);
    const paths = ((await res.json()) as ErrorBody).details!.map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['alphaName', 'url']));
  });
});

describe('bodies nested thousands of levels deep', () => {
  // JSON.parse takes them, but walking or writing them again by recursion overflows the stack:
  // such a body got a 500 wherever the value was looked through (for U+0000) or stored as JSON.
  const DEPTH = 12_000;
  const deep = (inner = '1') => `${'{"a":'.repeat(DEPTH)}${inner}${'}'.repeat(DEPTH)}`;
  const post = (path: string, body: string, method = 'POST') =>
    s.call(path, { method, body, headers: { 'content-type': 'application/json' } });
  const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as ErrorBody });
  const tooDeep = (path: string) => ({
    status: 400,
    body: expect.objectContaining({
      error: 'validation_failed',
      details: [
        {
          path: expect.stringMatching(new RegExp(`^${path.replace(/[[\].]/g, '\\$&')}(\\.a)+$`)),
          message: expect.stringMatching(/64 levels/),
        },
      ],
    }),
  });

  it('are a JSON 400 at the path of the first member nested more than 64 levels deep, wherever free-form JSON is taken', async () => {
    expect(await answer(await post('/api/items', `{"items":[{"id":"n","value":${deep()}}]}`))).toEqual(tooDeep('items[0].value'));
    expect(
      await answer(
        await post(
          '/api/CascadeMessage/send_message/async',
          `[{"fromName":"Acme","toPhone":"9990000000100","text":"hi","customerData":${deep()}}]`,
        ),
      ),
    ).toEqual(tooDeep('[0].customerData'));
    expect(await answer(await post('/api/external-data/user-bonuses/9990000000100', deep()))).toEqual(tooDeep('a'));
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const sent = await s.call('/bat/messagelist', {
      json: { messages: [{ from: 'Acme', to: '9990000000100', text: 'later', type: 'sms', scheduledAt }] },
    });
    const id = ((await sent.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
    expect(await answer(await post(`/bat/message/${id}`, `{"messageData":${deep()}}`, 'PATCH'))).toEqual(tooDeep('messageData'));
  });

  it('holding U+0000 deep down, are a JSON 400 at its path', async () => {
    const res = await answer(
      await post(
        '/bat/messagelist',
        `{"messages":[{"from":"Acme","to":"9990000000100","text":"hi","type":"sms","x":${deep('"\\u0000"')}}]}`,
      ),
    );
    expect(res).toMatchObject({
      status: 400,
      body: { error: 'validation_failed', details: [{ path: `messages[0].x${'.a'.repeat(DEPTH)}` }] },
    });
    expect((await s.call('/health', { auth: 'none' })).status).toBe(200);
  });
});
