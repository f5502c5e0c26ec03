import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { OutboundAttempt, Receipt } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import { startBotApi } from '../testing/bot-api-server.ts';
import type { TestBotApi } from '../testing/bot-api-server.ts';
import { createTelegramDriver } from './telegram.ts';
import type { TelegramOptions } from './telegram.ts';

let api: TestBotApi;
beforeAll(async () => {
  api = await startBotApi();
});
afterAll(async () => {
  await api?.close();
});

const driver = (over: TelegramOptions = {}) => createTelegramDriver({ apiUrl: api.url, botToken: 'T1', ...over });

// The local Bot API's chats are named after the contract's recipients.
const chatIsRecipient: TelegramOptions = { resolveChatId: (a) => a.to };

runChannelDriverContract({
  name: 'telegram (a local Bot API)',
  create: () => driver(chatIsRecipient),
  deliverableRecipient: '123456',
  reportWithinMs: 10,
  failures: [
    { name: '403 bot was blocked by the user', failure: 'not_on_channel', recipient: '100403' },
    { name: '400 chat not found', failure: 'not_on_channel', recipient: '100400' },
    { name: 'the recipient never started the bot', failure: 'not_on_channel', create: () => driver({ resolveChatId: () => null }) },
    { name: '429 with retry_after', failure: 'throttled', recipient: '100429' },
    { name: '500', failure: 'temporary', recipient: '100500' },
    { name: '401 (a bad token)', failure: 'permanent', create: () => driver({ ...chatIsRecipient, botToken: 'bad' }) },
  ],
});

describe('telegram driver', () => {
  const attempt = (over: Partial<OutboundAttempt> = {}): OutboundAttempt => ({
    messageId: 1,
    accountId: 1,
    step: 0,
    try: 0,
    idempotencyKey: '1:0:0',
    partsCount: 1,
    channel: 'messenger',
    type: 'sms',
    from: 'ShopBot',
    to: '4915112345678',
    text: 'Your order shipped',
    ttl: 60,
    ...over,
  });

  it("uses the client's token, the bound chat, inline buttons and sendPhoto for a photo", async () => {
    const clock = createFakeClock();
    const reports: Receipt[] = [];
    const d = driver();
    const ctx = { clock, report: async (r: Receipt) => void reports.push(r) };
    const result = await d.send(
      attempt({
        credentials: { botToken: 'client-token' },
        messageData: {
          chatId: 777,
          photoUrl: 'https://shop.example/p.png',
          buttons: [
            { text: 'Track', action: 'https://shop.example/t/1' },
            { text: 'Stop', action: 'stop' },
          ],
        },
      }),
      ctx,
    );
    expect(result).toEqual({ outcome: 'accepted', providerMessageId: expect.stringMatching(/^777:\d+$/) });
    expect(api.requests.at(-1)).toEqual({
      token: 'client-token',
      method: 'sendPhoto',
      body: {
        chat_id: '777',
        photo: 'https://shop.example/p.png',
        caption: 'Your order shipped',
        reply_markup: {
          inline_keyboard: [[{ text: 'Track', url: 'https://shop.example/t/1' }], [{ text: 'Stop', callback_data: 'stop' }]],
        },
      },
    });
    expect(reports).toEqual([]);
    await clock.advance(0);
    expect(reports).toEqual([{ messageId: 1, step: 0, outcome: 'delivered' }]);
  });

  it('keeps retry_after of a 429', async () => {
    expect(
      await driver().send(attempt({ messageData: { chatId: '555429' } }), { clock: createFakeClock(), report: async () => {} }),
    ).toMatchObject({
      failure: 'throttled',
      retryAfter: 3,
      error: 'Bot API 429: Too Many Requests: retry after 3',
    });
  });

  it('never takes the phone number for a chat: without a bound chat the recipient is not on this channel', async () => {
    const before = api.requests.length;
    expect(await driver().send(attempt({ to: '4915112345678' }), { clock: createFakeClock(), report: async () => {} })).toEqual({
      outcome: 'failed',
      failure: 'not_on_channel',
      error: 'the recipient never started the bot',
    });
    expect(api.requests.length).toBe(before);
  });

  it('check() calls getMe', async () => {
    expect(await driver().check!()).toEqual({ ok: true, detail: 'bot @spillway_test_bot' });
    expect(await driver({ botToken: 'bad' }).check!()).toEqual({ ok: false, detail: 'getMe: Unauthorized' });
  });
});
