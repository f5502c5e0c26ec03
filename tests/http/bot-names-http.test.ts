import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// A bot is named by the account's approved messenger bots (`POST /bots/application`); the
// receiver's DELETE takes the query as the GET does; bot costs are per bot, not per alpha-name.

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const PATH = '/chat_bot/bot_receiver/phone';
const BOT_KEY = { 'x-tg-bot-key': '123456:bot-key' };

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer({ SPILLWAY_ADMIN_KEY: ADMIN_KEY });
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const approveBot = async (botName: string) => {
  const app = await json(
    await s.call('/bots/application', { json: { botName, kind: 'messenger_bot', companyName: 'Acme', description: 'Support' } }),
  );
  const decided = await s.call(`/admin/sender-applications/${app.id}/decision`, {
    auth: 'none',
    headers: { 'x-admin-key': ADMIN_KEY },
    json: { status: 'approved' },
  });
  expect(decided.status).toBe(200);
};
const unknownBot = (name: string, approved = 'it has no approved messenger bot') =>
  `unknown bot "${name}": ${approved} (apply with POST /bots/application, or leave botName out for the account's only bot)`;

describe('bot names', () => {
  it('refuses a bot the account has no approved messenger bot of, naming it, everywhere a bot is named', async () => {
    const put = await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000001', chatId: 1, botName: 'helpdesk' } });
    expect(put.status).toBe(400);
    expect((await json(put)).details).toEqual([{ path: 'botName', message: unknownBot('helpdesk') }]);
    const get = await s.call(`${PATH}?phoneNumber=99900000001&botName=helpdesk`);
    expect(get.status).toBe(400);
    expect((await json(get)).details).toEqual([{ path: 'botName', message: unknownBot('helpdesk') }]);
    const chat = await s.call('/api/myCodeBot/sendChatMessage', {
      json: { phoneNumber: '99900000001', fromName: 'Acme', text: 'Hi', botName: 'helpdesk' },
      headers: BOT_KEY,
    });
    expect(chat.status).toBe(400);
    expect((await json(chat)).details).toEqual([{ path: 'botName', message: unknownBot('helpdesk') }]);
    const cascade = await s.call('/api/CascadeMessage/send_message/async', {
      json: [{ fromName: 'Acme', toPhone: '99900000001', text: 'Hi', messengerMessage: { text: 'Hi', botName: 'helpdesk' } }],
      headers: BOT_KEY,
    });
    expect(cascade.status).toBe(400);
    expect((await json(cascade)).details).toEqual([{ path: '[0].messengerMessage.botName', message: unknownBot('helpdesk') }]);
    // The account's only bot ('') needs no name.
    expect((await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000001', chatId: 1 } })).status).toBe(200);

    await approveBot('support');
    const named = await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000001', chatId: 2, botName: 'support' } });
    expect(named.status).toBe(200);
    const still = await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000001', chatId: 1, botName: 'helpdesk' } });
    expect((await json(still)).details).toEqual([
      { path: 'botName', message: unknownBot('helpdesk', 'its approved messenger bots are support') },
    ]);
  });

  it('counts bot costs per bot, whatever the alpha-name the messages went from', async () => {
    await approveBot('sales');
    await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000002', chatId: 3, botName: 'sales' } });
    await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000002', chatId: 4 } });
    const send = async (fromName: string, botName?: string) => {
      const res = await s.call('/api/myCodeBot/sendChatMessage', {
        json: { phoneNumber: '99900000002', fromName, text: 'Hi', ...(botName ? { botName } : {}) },
        headers: BOT_KEY,
      });
      expect(res.status).toBe(200);
    };
    await send('Acme', 'sales');
    await send('Promo', 'sales');
    await send('Acme');
    const today = new Date().toISOString().slice(0, 10);
    const costs = await until(
      async () => json(await s.call(`/api/Costs/bots?date=${today}`)),
      (c) => c.totalCount >= 3,
    );
    expect(costs.items.map((i: any) => [i.botName, i.channel, i.count])).toEqual([
      ['', 'messenger', 1],
      ['sales', 'messenger', 2],
    ]);
    expect((await json(await s.call(`/api/Costs/bots?date=${today}&bot_name=sales`))).totalCount).toBe(2);
    expect((await json(await s.call(`/api/Costs/bots?date=${today}&bot_name=Acme`))).totalCount).toBe(0);
  });

  it('unbinds a chat named in the query, as the GET reads it, and refuses a query beside a body', async () => {
    await approveBot('desk');
    await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000003', chatId: 5, botName: 'desk' } });
    await s.call(PATH, { method: 'PUT', json: { phoneNumber: '99900000003', chatId: 6 } });
    const both = await s.call(`${PATH}?phoneNumber=99900000003`, { method: 'DELETE', json: { phoneNumber: '99900000003' } });
    expect(both.status).toBe(400);
    expect((await json(both)).details).toEqual([{ path: '(query)', message: 'give either the query parameters or a body' }]);
    const stale = await s.call(`${PATH}?phoneNumber=99900000003&botName=desk&chatId=99`, { method: 'DELETE' });
    expect(stale.status).toBe(409);
    const gone = await s.call(`${PATH}?phoneNumber=%2B999%20000%20000%2003&botName=desk&chatId=5`, { method: 'DELETE' });
    expect(gone.status).toBe(204);
    expect((await s.call(`${PATH}?phoneNumber=99900000003&botName=desk`)).status).toBe(404);
    // The account's only bot's binding stays, and goes with a query naming no bot.
    expect((await s.call(`${PATH}?phoneNumber=99900000003`)).status).toBe(200);
    expect((await s.call(`${PATH}?phoneNumber=99900000003`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.call(`${PATH}?phoneNumber=99900000003`, { method: 'DELETE' })).status).toBe(404);
    const bad = await s.call(`${PATH}?phoneNumber=x&chatId=abc`, { method: 'DELETE' });
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['chatId', 'phoneNumber']);
  });

  it('refuses query parameters the bot routes do not take, naming them', async () => {
    for (const path of [`${PATH}?phoneNumber=99900000003&bot=desk`, '/api/Costs/bots?botName=desk']) {
      const res = await s.call(path);
      expect(res.status).toBe(400);
      expect((await json(res)).details[0]).toMatchObject({ message: expect.stringContaining('is not a parameter of this route') });
    }
    const del = await s.call(`${PATH}?phone=99900000003`, { method: 'DELETE' });
    expect(del.status).toBe(400);
    expect((await json(del)).details.map((d: any) => d.path)).toEqual(['phone']);
  });
});
