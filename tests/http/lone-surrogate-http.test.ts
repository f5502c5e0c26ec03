import { describe, expect, it } from 'vitest';
import { serverOnTestDatabase } from '../support/test-database.ts';

// JSON carries a lone UTF-16 surrogate only as an escape (`\ud800`), and no storage keeps it as
// such: PostgreSQL stores U+FFFD, SQLite kept it in its JSON columns and stored its text columns
// another way. Every string of a request body is made well-formed at the door, so both storages
// store, replay and send the same. SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres.
const s = serverOnTestDatabase('surrogate');

const send = (customerMessageId: string) =>
  s.call('/bat/messagelist', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"messages":[{"type":"sms","from":"Acme","to":"79991234567","text":"high \\ud800 pair \\ud83d\\ude00","customerMessageId":"${customerMessageId}"}]}`,
  });

describe(`a lone surrogate in a sent message (${s.database.label})`, () => {
  it('stores U+FFFD in its place, in the text and in the customerMessageId, and a retry is a replay', async () => {
    const first = await send('order-\\udc00');
    expect(first.status).toBe(200);
    const { messages } = (await first.json()) as { messages: Array<{ messageId: number }> };
    const stored = await s.server.storage.getMessage(messages[0]!.messageId);
    expect(stored?.steps[0]?.text).toBe('high \uFFFD pair \u{1F600}');
    expect(stored?.customerMessageId).toBe('order-\uFFFD');

    const again = await send('order-\\udc00');
    expect(again.status).toBe(200);
    const replayed = (await again.json()) as { messages: Array<{ messageId: number }> };
    expect(replayed.messages[0]!.messageId).toBe(messages[0]!.messageId);
  });
});
