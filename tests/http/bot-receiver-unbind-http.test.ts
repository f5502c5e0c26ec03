import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
let s: RunningFixture;
beforeAll(async () => {
  s = await startServer({ SPILLWAY_ADMIN_KEY: ADMIN_KEY });
  // A named bot must be one of the account's approved messenger bots.
  const app = await (
    await s.call('/bots/application', { json: { botName: 'shop_bot', kind: 'messenger_bot', companyName: 'Acme', description: 'Orders' } })
  ).json();
  const decided = await s.call(`/admin/sender-applications/${app.id}/decision`, {
    auth: 'none',
    headers: { 'x-admin-key': ADMIN_KEY },
    json: { status: 'approved' },
  });
  expect(decided.status).toBe(200);
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const PATH = '/chat_bot/bot_receiver/phone';
const bind = async (body: Record<string, unknown>) => {
  const res = await s.call(PATH, { method: 'PUT', json: body });
  expect(res.status).toBe(200);
};
const unbind = (body: unknown, init: Parameters<RunningFixture['call']>[1] = {}) => s.call(PATH, { method: 'DELETE', json: body, ...init });
const bound = async (phoneNumber: string, botName = '') =>
  (await s.call(`${PATH}?phoneNumber=${phoneNumber}${botName ? `&botName=${botName}` : ''}`)).status === 200;
const BOTS = { 'x-tg-bot-key': '123456:tg-test', 'x-viber-auth-token': 'viber-test-token' };

describe('DELETE /chat_bot/bot_receiver/phone', () => {
  it('unbinds the chat of a number, identified as the PUT identifies it, and the messenger step no longer uses it', async () => {
    await bind({ phoneNumber: '99900000000', chatId: 4242 });
    await bind({ phoneNumber: '99900000000', chatId: 5151, botName: 'shop_bot' });
    const res = await unbind({ phoneNumber: '+999 000 000 00' });
    expect(res.status).toBe(204);
    expect(await bound('99900000000')).toBe(false);
    // Another bot's binding of the number stays.
    expect(await bound('99900000000', 'shop_bot')).toBe(true);
    expect((await unbind({ phoneNumber: '99900000000' })).status).toBe(404);

    const send = await s.call('/api/CascadeMessage/send_message/async', {
      json: [{ fromName: 'Acme', toPhone: '99900000000', text: 'Hello' }],
      headers: BOTS,
    });
    expect(send.status).toBe(200);
    const [accepted] = await json(send);
    const status = await until(
      async () => json(await s.call(`/api/CascadeMessage/status_guid/${accepted.messageId}`)),
      (st) => st.status !== 'processing' && st.status !== 'scheduled',
    );
    expect(status.steps[0]).toMatchObject({
      channel: 'messenger',
      status: 'skipped',
      error: 'no messenger chat is bound to 99900000000 (PUT /chat_bot/bot_receiver/phone)',
    });
    expect(s.server.simulator.sent.some((a) => a.channel === 'messenger' && a.to === '99900000000')).toBe(false);
  });

  it('with the chatId of the PUT, unbinds only while the number is bound to that chat (409 otherwise)', async () => {
    await bind({ phoneNumber: '99900000005', chatId: 7001 });
    await bind({ phoneNumber: '99900000005', chatId: 7002 });
    const stale = await unbind({ phoneNumber: '99900000005', chatId: 7001 });
    expect(stale.status).toBe(409);
    expect(await json(stale)).toMatchObject({ error: 'conflict', status: 409 });
    expect(await bound('99900000005')).toBe(true);
    // The PUT's own body unbinds what it bound.
    expect((await unbind({ phoneNumber: '99900000005', chatId: '7002', botName: '' })).status).toBe(204);
    expect(await bound('99900000005')).toBe(false);
    expect((await unbind({ phoneNumber: '99900000005', chatId: 7002 })).status).toBe(404);
  });

  it("never unbinds another account's chat", async () => {
    await bind({ phoneNumber: '99900000007', chatId: 8001 });
    const sub = await json(await s.call('/api/client/provision', { json: { login: 'acme-bots', password: 'sub-password-1' } }));
    const res = await unbind({ phoneNumber: '99900000007' }, { headers: { 'x-authorization-key': sub.apiKey } });
    expect(res.status).toBe(404);
    expect(await bound('99900000007')).toBe(true);
  });

  it('refuses bad bodies with 400 naming the path, other content types with 415 and no credentials with 401', async () => {
    const bad = await unbind({ phoneNumber: 'x', chatId: 'abc' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['chatId', 'phoneNumber']);
    expect((await json(await unbind({}))).details.map((d: any) => d.path)).toEqual(['phoneNumber']);
    expect((await json(await unbind({ phoneNumber: '99900000000', extra: 1 }))).details.map((d: any) => d.path)).toEqual(['(body)']);
    expect((await s.call(PATH, { method: 'DELETE', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await s.call(PATH, { method: 'DELETE', body: 'phoneNumber=1' })).status).toBe(415);
    expect((await unbind({ phoneNumber: '99900000000' }, { auth: 'none' })).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    expect(doc.paths[PATH].delete.operationId).toBe('unbindBotReceiverPhone');
  });
});
