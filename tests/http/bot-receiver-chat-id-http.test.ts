import { describe, expect, it } from 'vitest';
import { serverOnTestDatabase } from '../support/test-database.ts';

// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL: both store the id as text.
const s = serverOnTestDatabase('bot_chat_id');
const put = (json: unknown) => s.call('/chat_bot/bot_receiver/phone', { method: 'PUT', json });
const body = async (res: Response) => (await res.json()) as Record<string, any>;

describe(`PUT /chat_bot/bot_receiver/phone answers chatId as the integer it is (${s.database.label})`, () => {
  it('answers and reads back an integer chatId, not its digits as a string', async () => {
    const bound = await put({ phoneNumber: '99900000000', chatId: 123456789 });
    expect(bound.status).toBe(200);
    expect(await body(bound)).toMatchObject({ phoneNumber: '99900000000', chatId: 123456789 });
    const read = await s.call('/chat_bot/bot_receiver/phone?phoneNumber=99900000000');
    expect(await body(read)).toMatchObject({ chatId: 123456789 });
    // A Telegram group's id: negative, 13 digits.
    expect(await body(await put({ phoneNumber: '99900000001', chatId: -1001234567890 }))).toMatchObject({ chatId: -1001234567890 });
  });

  it('takes digits in a string as the same integer, so an unbind by the number finds the binding', async () => {
    expect(await body(await put({ phoneNumber: '99900000002', chatId: '0042' }))).toMatchObject({ chatId: 42 });
    const unbound = await s.call('/chat_bot/bot_receiver/phone', { method: 'DELETE', json: { phoneNumber: '99900000002', chatId: 42 } });
    expect(unbound.status).toBe(204);
  });

  it('refuses an id no JSON number carries exactly (past 2^53 - 1), at chatId', async () => {
    const refused = await put({ phoneNumber: '99900000003', chatId: '9007199254740993' });
    expect(refused.status).toBe(400);
    expect(await body(refused)).toMatchObject({ details: [{ path: 'chatId', message: expect.stringContaining('2^53 - 1') }] });
  });
});
