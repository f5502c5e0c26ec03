import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresStorage } from '@spillway/postgres';
import { listen, readBody } from '../support/local-http.ts';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { testDatabase } from '../support/test-database.ts';

// A lone UTF-16 surrogate cannot travel as UTF-8: both storages keep it as U+FFFD. The answer of
// POST /sandbox/inbound echoed the text as sent (the lone surrogate), not as stored, so the
// receipt, the record (GET) and the webhook disagreed. SQLite, and PostgreSQL with
// SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const database = testDatabase('inbound_surrogate');
const { url: databaseUrl, schema } = database;

const hooks: Array<{ text: string }> = [];
const hookServer = createServer((req, res) => {
  void readBody(req).then((body) => {
    hooks.push(JSON.parse(body) as { text: string });
    res.writeHead(204).end();
  });
});

let s: RunningFixture;
beforeAll(async () => {
  const hookUrl = `${await listen(hookServer)}/hook`;
  s = await startServer({
    ...database.env,
    SPILLWAY_ALLOW_PRIVATE_URLS: 'true',
  });
  expect((await s.call('/api/AlphaName/callback', { method: 'PUT', json: { alphaName: 'Acme', url: hookUrl } })).status).toBe(200);
});
afterAll(async () => {
  await s?.close();
  await new Promise<void>((resolve) => hookServer.close(() => resolve()));
  await database.drop();
});

/** The text stored for an incoming message, read from the database itself. */
const storedText = async (idUuid: string): Promise<string | undefined> => {
  if (databaseUrl) {
    const { pool } = s.server.storage as PostgresStorage;
    const found = await pool.query<{ text: string }>(`SELECT text FROM "${schema}".inbound_messages WHERE id = $1`, [idUuid]);
    return found.rows[0]?.text;
  }
  const db = (s.server.storage as unknown as { db: { prepare(q: string): { get(id: string): { text: string } | undefined } } }).db;
  return db.prepare('SELECT text FROM inbound_messages WHERE id = ?').get(idUuid)?.text;
};

describe(`POST /sandbox/inbound with a lone surrogate in the text (${database.label})`, () => {
  it('answers the text as stored, U+FFFD in place of each lone surrogate, as the record and the webhook show it', async () => {
    // JSON carries a lone surrogate as an escape; a surrogate pair (an emoji) is kept whole.
    const body = '{"alphaName":"Acme","phoneNumber":"79991234567","text":"high \\ud800 low \\udc00 pair \\ud83d\\ude00 end"}';
    const res = await s.call('/sandbox/inbound', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const receipt = (await res.json()) as { idUuid: string; text: string };
    const kept = 'high \uFFFD low \uFFFD pair \u{1F600} end';

    expect(await storedText(receipt.idUuid)).toBe(kept);
    expect(receipt.text).toBe(kept);
    const record = (await (await s.call(`/sandbox/inbound/${receipt.idUuid}`)).json()) as { text: string };
    expect(record.text).toBe(kept);
    await until(
      async () => hooks.length,
      (n) => n > 0,
    );
    expect(hooks.map((h) => h.text)).toEqual([kept]);
  });
});
