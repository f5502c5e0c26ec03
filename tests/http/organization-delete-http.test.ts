import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const create = async (name: string, taxId: string, key?: string) => {
  const res = await s.call('/organizations', { json: { name, taxId }, ...(key ? { headers: { 'x-authorization-key': key } } : {}) });
  expect(res.status).toBe(200);
  return (await json(res)).id as number;
};
const remove = (id: number | string, key?: string) =>
  s.call(`/organizations/${id}`, { method: 'DELETE', ...(key ? { headers: { 'x-authorization-key': key } } : {}) });

describe('DELETE /organizations/{id}', () => {
  it('deletes an organization of the caller, which is then gone from the list and may be added again', async () => {
    const first = await create('Acme Ltd', '7700000001');
    const second = await create('Acme Trading', '7700000002');
    const res = await remove(first);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const list = await s.call('/organizations');
    expect(await json(list)).toEqual([{ id: second, name: 'Acme Trading', taxId: '7700000002' }]);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect((await remove(first)).status).toBe(404);
    // Its tax id is free again.
    expect(await create('Acme Ltd', '7700000001')).not.toBe(first);
    // The company token (the account itself, not one of its organizations) keeps working.
    const token = await json(
      await s.call('/api/company/get-token', { auth: 'none', json: { login: 'acme', password: 'acme-password-1' } }),
    );
    await remove(second);
    const company = await s.call('/api/company/organization', { auth: 'none', headers: { authorization: `Bearer ${token}` } });
    expect(company.status).toBe(200);
  });

  it('never gives a deleted id to a new organization: a second DELETE with the stale id deletes nothing', async () => {
    // The newest organization is deleted: SQLite gave its id to the next one.
    const newest = await create('Stale Ltd', '7700000050');
    expect((await remove(newest)).status).toBe(204);
    const next = await create('Fresh Ltd', '7700000051');
    expect(next).toBeGreaterThan(newest);
    expect((await remove(newest)).status).toBe(404);
    expect((await json(await s.call('/organizations?pageSize=1000'))).map((o: any) => o.id)).toContain(next);
  });

  it("answers 404 for another account's organization and an unknown id, deleting nothing", async () => {
    const sub = await json(await s.call('/api/client/provision', { json: { login: 'acme-sub', password: 'sub-password-1' } }));
    const theirs = await create('Sub Ltd', '7700000009', sub.apiKey);
    const mine = await create('Mine Ltd', '7700000010');
    const res = await remove(theirs);
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: 'not_found', status: 404 });
    expect((await remove(mine, sub.apiKey)).status).toBe(404);
    expect((await remove(999_999)).status).toBe(404);
    expect((await json(await s.call('/organizations', { headers: { 'x-authorization-key': sub.apiKey } }))).map((o: any) => o.id)).toEqual([
      theirs,
    ]);
    expect((await json(await s.call('/organizations'))).map((o: any) => o.id)).toContain(mine);
  });

  it('refuses an id that is no positive integer with 400, and no credentials with 401', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const res = await remove(id);
      expect(res.status).toBe(400);
      expect((await json(res)).details.map((d: any) => d.path)).toEqual(['id']);
    }
    expect((await s.call('/organizations/1', { method: 'DELETE', auth: 'none' })).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    expect(doc.paths['/organizations/{id}'].delete.operationId).toBe('deleteOrganization');
  });
});
