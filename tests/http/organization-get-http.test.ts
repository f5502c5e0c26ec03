import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// GET /organizations/{id}: the whole record of one organization (the list has its id, name and
// taxId only), the caller's own only. The list's total is in X-Total-Count: the interface answers
// the list as a bare array (OrganizationNameSync), which leaves no room for a total in the body.

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;

describe('GET /organizations/{id}', () => {
  it('answers one organization of the caller whole, and 404 for another account’s, an unknown or a deleted one', async () => {
    const body = { name: 'Acme Ltd', taxId: '7700000101', address: '1 Main St', email: 'ops@acme.example', phone: '+442071234567' };
    const created = await json(await s.call('/organizations', { json: body }));
    const res = await s.call(`/organizations/${created.id}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(created);
    expect(created).toMatchObject({ ...body, id: expect.any(Number), createdAt: expect.any(String) });

    const list = await s.call('/organizations?pageSize=1');
    expect(Number(list.headers.get('x-total-count'))).toBeGreaterThanOrEqual(1);

    const sub = await json(await s.call('/api/client/provision', { json: { login: 'org-sub', password: 'sub-password-1' } }));
    const other = await s.call(`/organizations/${created.id}`, { headers: { 'x-authorization-key': sub.apiKey } });
    expect(other.status).toBe(404);
    expect(await json(other)).toMatchObject({ error: 'not_found', status: 404 });
    expect((await s.call('/organizations/999999')).status).toBe(404);
    const bad = await s.call('/organizations/0x1');
    expect(bad.status).toBe(400);
    expect((await json(bad)).details[0].path).toBe('id');
    expect((await s.call(`/organizations/${created.id}`, { auth: 'none' })).status).toBe(401);
    expect((await s.call(`/organizations/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.call(`/organizations/${created.id}`)).status).toBe(404);
  });
});
