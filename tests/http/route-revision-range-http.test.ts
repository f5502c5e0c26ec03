import { describe, expect, it } from 'vitest';
import { serverOnTestDatabase } from '../support/test-database.ts';

// A revision past the stored integer range (PostgreSQL's `integer`) was passed to the database:
// PostgreSQL answered "out of range for type integer" and the API a 500; SQLite a 404. Runs on
// SQLite, and on PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const s = serverOnTestDatabase('revision');

describe(`a route revision out of the stored range (${s.database.label})`, () => {
  it('is a 404 like any revision the route does not have, for the route and for its stats', async () => {
    const res = await s.call('/api/routes', {
      json: { name: 'SMS only', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [] },
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    for (const revision of ['2147483648', '9007199254740991']) {
      for (const path of [`/api/routes/${id}?revision=${revision}`, `/api/routes/${id}/stats?revision=${revision}`]) {
        const answer = await s.call(path);
        expect(answer.status, `${path}: ${await answer.clone().text()}`).toBe(404);
        expect(await answer.json()).toMatchObject({ error: 'not_found', message: `route ${id} has no revision ${revision}` });
      }
    }
    expect((await s.call(`/api/routes/${id}?revision=1`)).status).toBe(200);
  });

  it('answers an older revision with its members in the order of the latest (PostgreSQL jsonb reorders them)', async () => {
    const body = {
      edges: [{ on: 'undeliverable', to: 'sms', from: 'chat' }],
      steps: [
        { channel: 'chatapp', id: 'chat' },
        { channel: 'sms', id: 'sms' },
      ],
      start: 'chat',
      name: 'two',
    };
    const created = await s.call('/api/routes', { json: body });
    const { id } = (await created.json()) as { id: string };
    const latest = await s.call(`/api/routes/${id}`, { method: 'PUT', json: { ...body, revision: 1 } });
    expect(latest.status).toBe(200);
    const first = (await (await s.call(`/api/routes/${id}?revision=1`)).json()) as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(['name', 'start', 'steps', 'edges', 'id', 'revision', 'builtin', 'createdAt', 'updatedAt']);
    expect(Object.keys((first['edges'] as object[])[0]!)).toEqual(['from', 'to', 'on']);
  });
});
