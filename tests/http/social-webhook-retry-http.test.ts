import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { PostgresStorage } from '@spillway/postgres';
import { listen, readBody, socialWebhook } from '../support/local-http.ts';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { testDatabase } from '../support/test-database.ts';

const APP_SECRET = 'app-secret-for-tests';
// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL: the retry is
// recognised by the storage's refusal of a second record under the same id.
const database = testDatabase('social_retry');
const { url: databaseUrl, schema } = database;

const tokenServer = createServer((req, res) => {
  void readBody(req).then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"tok"}'));
});
const hooks: Array<{ id: string; body: { text: string; phoneNumber: string } }> = [];
const hookServer = createServer((req, res) => {
  void readBody(req).then((body) => {
    hooks.push({ id: String(req.headers['webhook-id']), body: JSON.parse(body) as { text: string; phoneNumber: string } });
    res.writeHead(204).end();
  });
});

let s: RunningFixture;
beforeAll(async () => {
  const tokenUrl = `${await listen(tokenServer)}/token`;
  const hookUrl = `${await listen(hookServer)}/hook`;
  s = await startServer(
    {
      ...database.env,
      SPILLWAY_ALLOW_PRIVATE_URLS: 'true',
      SPILLWAY_SOCIAL_APP_SECRET: APP_SECRET,
      SPILLWAY_SOCIAL_CLIENT_ID: 'client-1',
      SPILLWAY_SOCIAL_TOKEN_URL: tokenUrl,
      SPILLWAY_SOCIAL_GRAPH_URL: 'https://graph.example',
      SPILLWAY_SOCIAL_TOKEN_KEY: '22'.repeat(32),
    },
    // A clock that stands still: the webhook delivery worker's poll never comes, so a webhook goes
    // out only when the request that queued it wakes the worker, as /sandbox/inbound does.
    { clock: createFakeClock(Date.UTC(2026, 10, 28, 12)) },
  );
  expect((await s.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Acme', url: hookUrl } })).status).toBe(200);
  const { state } = (await (await s.call('/social/authorize?alphaName=Acme&externalId=pn-200')).json()) as { state: string };
  expect((await s.call(`/social/add-token?code=c&state=${state}`, { auth: 'none' })).status).toBe(200);
});
afterAll(async () => {
  await s?.close();
  for (const server of [tokenServer, hookServer]) await new Promise<void>((resolve) => server.close(() => resolve()));
  await database.drop();
});

const sign = (body: string) => `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
const post = (body: string) =>
  s.call('/social', {
    method: 'POST',
    auth: 'none',
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) },
  });
const event = (messages: Array<{ from: string; id?: string; text: string }>) => socialWebhook('pn-200', messages);
/** The texts of the incoming messages stored, oldest first. */
const storedTexts = async (): Promise<string[]> => {
  const sql = 'SELECT text FROM inbound_messages ORDER BY received_at, text';
  if (databaseUrl) {
    const { pool } = s.server.storage as PostgresStorage;
    return (await pool.query<{ text: string }>(sql.replace('inbound_messages', `"${schema}".inbound_messages`))).rows.map((r) => r.text);
  }
  const db = (s.server.storage as unknown as { db: { prepare(q: string): { all(): Array<{ text: string }> } } }).db;
  return db
    .prepare(sql)
    .all()
    .map((r) => r.text);
};

describe(`POST /social: a batch the platform sends again (${database.label})`, () => {
  it('takes the good messages of a batch with a bad one, answers 200, and a retry stores and delivers nothing twice', async () => {
    const body = event([
      { from: '4915123456789', id: 'wamid.A', text: 'first' },
      { from: 'not-a-phone', id: 'wamid.B', text: 'from nowhere' },
      { from: '4915123456780', id: 'wamid.C', text: 'nul \u0000 inside' },
    ]);
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 2, ignored: 1 });
    // U+0000 is kept as U+FFFD, as for every channel's incoming message.
    expect(await storedTexts()).toEqual(['first', 'nul \uFFFD inside']);

    // The platform retries (its last answer lost, or a 5xx): the same messages are not taken twice.
    const again = await post(body);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: 0, ignored: 3 });
    expect(await storedTexts()).toHaveLength(2);

    // Delivered without waiting for the worker's next poll: the route woke it.
    await until(
      async () => hooks.length,
      (n) => n >= 2,
    );
    expect(hooks.map((h) => h.body.text).sort()).toEqual(['first', 'nul \uFFFD inside']);
    expect(new Set(hooks.map((h) => h.id)).size).toBe(2);
  });

  it('takes a message with a new platform id; without an id, every post is taken', async () => {
    const before = (await storedTexts()).length;
    const res = await post(event([{ from: '4915123456789', id: 'wamid.other', text: 'second' }]));
    expect(await res.json()).toEqual({ received: 1, ignored: 0 });
    // Without a platform id nothing can be recognised: each post is taken.
    const noId = event([{ from: '4915123456789', text: 'no id' }]);
    expect(await (await post(noId)).json()).toEqual({ received: 1, ignored: 0 });
    expect(await (await post(noId)).json()).toEqual({ received: 1, ignored: 0 });
    expect(await storedTexts()).toHaveLength(before + 3);
  });
});
