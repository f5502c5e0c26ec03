import { createEngine } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createHttpApp, createNodeHasher } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { describe, expect, it } from 'vitest';

const quiet = { info() {}, warn() {}, error() {} };

describe('GET /bat/message/{id}', () => {
  it("answers in the account's own currency, taken from the authenticated account rather than read again", async () => {
    const sqlite = createSqliteStorage();
    let accountReads = 0;
    const storage: Storage = {
      ...sqlite,
      getAccount: async (id) => {
        accountReads++;
        return sqlite.getAccount(id);
      },
    };
    const engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher: createNodeHasher({ N: 1024 }) });
    const account = await engine.accounts.create({ login: 'usd-shop', password: 'password-1', currency: 'USD', balance: 100 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const { key } = await engine.accounts.createKey(account.id);
    const app = createHttpApp({ engine, defaultMetrics: false, logger: quiet });
    const headers = { 'X-Authorization-Key': key, 'Content-Type': 'application/json' };
    const sent = await app.request('/bat/messagelist', {
      method: 'POST',
      headers,
      body: JSON.stringify({ messages: [{ from: 'Shop', to: '4915123456789', text: 'Hello', type: 'sms' }] }),
    });
    expect(sent.status).toBe(200);
    const id = ((await sent.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;

    accountReads = 0;
    const res = await app.request(`/bat/message/${id}`, { headers });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ messageId: id, rateCurrency: 'USD', billCurrency: 'USD' });
    expect(accountReads).toBe(0);
    // Another account's message, a bad id and a missing one are answered as before.
    expect((await app.request(`/bat/message/${id + 1000}`, { headers })).status).toBe(404);
    expect(await (await app.request('/bat/message/0', { headers })).json()).toMatchObject({ error: 'validation_failed', status: 400 });
    expect((await app.request('/bat/message/99999999999999999', { headers })).status).toBe(400);
    expect((await app.request('/bat/message/9999999999999999', { headers })).status).toBe(400);
    await sqlite.close();
  });
});
