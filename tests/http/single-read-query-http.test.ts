import { describe, expect, it } from 'vitest';
import { LOGIN, PASSWORD } from '../support/server-fixture.ts';
import { serverOnTestDatabase } from '../support/test-database.ts';

// Three reads ignored a query parameter they do not take, as the lists no longer do: a misspelt
// `?revison=1` answered the latest revision, a `?from=` the last 24 hours, as if obeyed. Runs on
// SQLite, and on PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const s = serverOnTestDatabase('single_read_query');

const json = async (res: Response) => (await res.json()) as any;

async function refuses(path: string, name: string, takes: string, init?: Parameters<typeof s.call>[1]): Promise<void> {
  const res = await s.call(path, init);
  expect([path, res.status]).toEqual([path, 400]);
  const body = await json(res);
  expect(body).toMatchObject({ error: 'validation_failed', status: 400 });
  expect(body.details).toEqual([{ path: name, message: `is not a parameter of this route; ${takes}` }]);
  expect(body.message).toContain(name);
}

describe(`reads of one thing refuse a query parameter they do not take (${s.database.label})`, () => {
  it('GET /api/routes/{id} takes revision, in either casing, and refuses any other', async () => {
    const created = await s.call('/api/routes', {
      json: { name: 'SMS only', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [] },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const updated = await s.call(`/api/routes/${id}`, {
      method: 'PUT',
      json: { name: 'SMS only, renamed', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [], revision: 1 },
    });
    expect(updated.status).toBe(200);

    await refuses(`/api/routes/${id}?revison=1`, 'revison', 'it takes revision');
    await refuses('/api/routes/default?name=x', 'name', 'it takes revision');
    for (const query of ['revision=1', 'Revision=1'])
      expect(await json(await s.call(`/api/routes/${id}?${query}`))).toMatchObject({ revision: 1, name: 'SMS only' });
    expect(await json(await s.call(`/api/routes/${id}`))).toMatchObject({ revision: 2, name: 'SMS only, renamed' });
    const bad = await s.call(`/api/routes/${id}?revision=abc`);
    expect(bad.status).toBe(400);
    expect((await json(bad)).details).toEqual([{ path: 'revision', message: expect.stringContaining('"abc"') }]);
  });

  it('GET /api/routes/{id}/stats takes since, until and revision, and refuses any other', async () => {
    await refuses('/api/routes/default/stats?from=2026-01-01T00:00:00Z', 'from', 'it takes since, until, revision');
    const window = 'since=2026-01-01T00:00:00Z&until=2026-01-02T00:00:00Z';
    for (const query of [window, `${window}&revision=1`, 'Since=2026-01-01T00:00:00Z&UNTIL=2026-01-02T00:00:00Z']) {
      const res = await s.call(`/api/routes/default/stats?${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      expect(await json(res)).toMatchObject({ since: '2026-01-01T00:00:00.000Z', until: '2026-01-02T00:00:00.000Z' });
    }
  });

  it('GET /api/company/operators takes none', async () => {
    const got = await s.call('/api/company/get-token', { auth: 'none', json: { login: LOGIN, password: PASSWORD } });
    expect(got.status).toBe(200);
    const headers = { authorization: `Bearer ${(await got.json()) as string}` };
    expect((await s.call('/api/company/operators', { auth: 'none', headers, json: { name: 'Ann' } })).status).toBe(200);

    await refuses('/api/company/operators?name=Ann', 'name', 'it takes none', { auth: 'none', headers });
    const list = await s.call('/api/company/operators', { auth: 'none', headers });
    expect(list.status).toBe(200);
    expect((await json(list)).map((o: any) => o.name)).toEqual(['Ann']);
  });
});
