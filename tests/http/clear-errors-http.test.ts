import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { serverOnTestDatabase } from '../support/test-database.ts';

// A new user's run found answers right in status but unclear: a 415 about a Content-Type for a
// DELETE that named nothing, "required" for a revision that was given, a regex in a message, zod's
// "Invalid input" and "expected object, received undefined", a 409 message true of one case of
// two, and "token is malformed" for an API key given where a company token goes. Runs on SQLite,
// and on PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const s = serverOnTestDatabase('clear_errors');

interface ErrorBody {
  error: string;
  status: number;
  message: string;
  details?: { path: string; message: string }[];
}
const errorOf = async (res: Response, status: number): Promise<ErrorBody> => {
  const body = (await res.json()) as ErrorBody;
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
};
const send = (messages: unknown[]) => s.call('/bat/messagelist', { json: { messages } });
const item = (extra: Record<string, unknown>) => ({ from: 'Acme', to: '99900000000', ...extra });

describe(`clear error answers (${s.database.label})`, () => {
  it('DELETE /chat_bot/bot_receiver/phone with neither query nor body says phoneNumber is required, in the query or the body', async () => {
    const body = await errorOf(await s.call('/chat_bot/bot_receiver/phone', { method: 'DELETE' }), 400);
    expect(body.error).toBe('validation_failed');
    expect(body.message).toMatch(/phoneNumber is required/);
    expect(body.message).toMatch(/query/);
    expect(body.message).toMatch(/body/);
    expect(body.details).toEqual([{ path: 'phoneNumber', message: expect.stringMatching(/required/) }]);
    // A body without its Content-Type is still refused as before: only the empty request changed.
    const typed = await s.call('/chat_bot/bot_receiver/phone', { method: 'DELETE', body: '{"phoneNumber":"79991234567"}' });
    expect(typed.status).toBe(415);
  });

  it('PUT /api/routes/{id} with a bad revision says what is wrong with it; "required" only when it is missing', async () => {
    const definition = { name: 'SMS only', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [] };
    const created = await s.call('/api/routes', { json: definition });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const put = (extra: Record<string, unknown>) => s.call(`/api/routes/${id}`, { method: 'PUT', json: { ...definition, ...extra } });

    for (const [revision, shown] of [
      ['2', '"2"'],
      [0, '0'],
      [1.5, '1.5'],
      [null, 'null'],
    ] as const) {
      const body = await errorOf(await put({ revision }), 400);
      expect(body.details).toEqual([{ path: 'revision', message: `must be a whole number of 1 or more, got ${shown}` }]);
      expect(body.message).not.toMatch(/required/);
    }
    const missing = await errorOf(await put({}), 400);
    expect(missing.details).toEqual([{ path: 'revision', message: 'the revision being replaced is required (optimistic locking)' }]);
    expect((await put({ revision: 1 })).status).toBe(200);
  });

  it('a flash-call code with letters is told the code is 4 to 8 digits, without a regex', async () => {
    for (const text of ['12ab', '123', 99]) {
      const body = await errorOf(await send([item({ type: 'flashcall', text })]), 400);
      expect(body.details).toEqual([
        { path: 'messages[0].text', message: 'A flash call code is 4 to 8 digits, as a string or an integer' },
      ]);
    }
  });

  it('POST /api/email/send with a missing or numeric `to` is told what `to` must be', async () => {
    const want = 'to must be an e-mail address or a list of 1 to 50 e-mail addresses';
    for (const to of [undefined, 42, [], Array.from({ length: 51 }, (_, i) => `u${i}@example.com`)]) {
      const body = await errorOf(await s.call('/api/email/send', { json: { to, subject: 'Hi', text: 'x' } }), 400);
      expect(body.details, JSON.stringify(to)).toEqual([{ path: 'to', message: want }]);
    }
    const one = await errorOf(await s.call('/api/email/send', { json: { to: ['a@example.com', 'nope'], subject: 'Hi', text: 'x' } }), 400);
    expect(one.details).toEqual([{ path: 'to[1]', message: 'must be an e-mail address' }]);
  });

  it('chatapp_survey without messageData names what is required', async () => {
    const want = 'chatapp_survey needs messageData.survey.options: 2 to 10 answer options';
    const cases: [unknown, string][] = [
      [undefined, 'messages[0].messageData'],
      [null, 'messages[0].messageData'],
      [{}, 'messages[0].messageData.survey'],
      [{ survey: {} }, 'messages[0].messageData.survey.options'],
    ];
    for (const [messageData, path] of cases) {
      const body = await errorOf(await send([item({ type: 'chatapp_survey', text: 'How was it?', messageData })]), 400);
      expect(body.details, JSON.stringify(messageData)).toEqual([{ path, message: want }]);
    }
    // The other types whose messageData is required say so too.
    const carousel = await errorOf(await send([item({ type: 'chatapp_carousel' })]), 400);
    expect(carousel.details).toEqual([
      { path: 'messages[0].messageData', message: 'chatapp_carousel needs messageData.carousel: 2 to 10 cards' },
    ]);
    const otp = await errorOf(await send([item({ type: 'chatapp_otp' })]), 400);
    expect(otp.details).toEqual([
      { path: 'messages[0].messageData', message: 'chatapp_otp needs messageData: templateId, templateLang and templateParams' },
    ]);
  });

  it('a customerMessageId twice in one request is told so at the top, and reuse with other content is told apart', async () => {
    const sms = { ...item({ type: 'sms', text: 'Hello' }), customerMessageId: 'twice-1' };
    const twice = await errorOf(await send([sms, sms]), 409);
    expect(twice.message).toBe('customerMessageId appears more than once in this request');
    expect(twice.details).toEqual([
      { path: 'messages[0].customerMessageId', message: 'this customerMessageId appears again at messages[1]' },
      { path: 'messages[1].customerMessageId', message: 'this customerMessageId appears again at messages[0]' },
    ]);

    const first = { ...item({ type: 'sms', text: 'Hello' }), customerMessageId: 'reused-1' };
    expect((await send([first])).status).toBe(200);
    const reused = await errorOf(await send([{ ...first, text: 'Other' }]), 409);
    expect(reused.message).toBe('customerMessageId reused with other content');
    expect(reused.details).toEqual([
      { path: 'messages[0].customerMessageId', message: 'this customerMessageId was already used with other content' },
    ]);

    // Both at once: the top-level message is true of both.
    const both = await errorOf(await send([{ ...first, text: 'Other' }, sms, sms]), 409);
    expect(both.message).toBe('customerMessageId reused with other content, or appearing more than once in this request');
    expect(both.details?.map((d) => d.path)).toEqual([
      'messages[0].customerMessageId',
      'messages[1].customerMessageId',
      'messages[2].customerMessageId',
    ]);
  });

  it('an API key given to the chat hub for a company token is told a company token is expected', async () => {
    const res = await s.call('/api/operator/get-token', {
      json: { id: 1, expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      auth: 'none',
      headers: { 'x-authorization-key': API_KEY },
    });
    const body = await errorOf(res, 401);
    expect(body.message).toMatch(/API key/);
    expect(body.message).toMatch(/company token/);
    expect(body.message).toMatch(/\/api\/company\/get-token/);
    // Any other bad token is still just malformed.
    const other = await s.call('/api/company/organization', { auth: 'none', headers: { authorization: 'Bearer not-a-jwt' } });
    expect((await errorOf(other, 401)).message).toBe('token is malformed');
  });
});

describe('a regex schema without a message of its own', () => {
  let social: RunningFixture;
  beforeAll(async () => {
    social = await startServer({
      SPILLWAY_SOCIAL_TOKEN_URL: 'https://platform.example/oauth/access_token',
      SPILLWAY_SOCIAL_TOKEN_KEY: '11'.repeat(32),
    });
  });
  afterAll(() => social.close());

  it('GET /social/authorize with a bad externalId says what an external id is, without a regex', async () => {
    const body = await errorOf(await social.call('/social/authorize?alphaName=Acme&externalId=has%20space'), 400);
    expect(body.details).toEqual([
      { path: 'externalId', message: '1 to 128 letters, digits, "_", ".", ":" or "-" (the platform’s id of the number or page)' },
    ]);
  });
});
