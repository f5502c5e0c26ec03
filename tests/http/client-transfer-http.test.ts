import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
let child: { clientId: number; apiKey: string; login: string; parentId: number };
beforeAll(async () => {
  s = await startServer();
  child = await json(await s.call('/api/client/provision', { json: { login: 'acme-shop', password: 'sub-password-1' } }));
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const as = (key: string, path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { ...init, headers: { 'x-authorization-key': key } });
const transfer = (clientId: number, body: unknown, key?: string) =>
  key
    ? as(key, `/api/client/clients/${clientId}/transfer`, { json: body })
    : s.call(`/api/client/clients/${clientId}/transfer`, { json: body });
const balanceOf = async (key?: string) => (await json(key ? await as(key, '/bat/balance') : await s.call('/bat/balance'))).balance;

describe('POST /api/client/clients/{clientId}/transfer', () => {
  it('moves money to a sub-client and takes it back; both wallets show each move', async () => {
    const res = await transfer(child.clientId, { amount: 25.5 });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      clientId: child.clientId,
      direction: 'to_client',
      amount: 25.5,
      currency: 'EUR',
      balance: 974.5,
      clientBalance: 25.5,
    });
    const back = await json(await transfer(child.clientId, { amount: 5.25, direction: 'from_client' }));
    expect(back).toMatchObject({ direction: 'from_client', amount: 5.25, balance: 979.75, clientBalance: 20.25 });
    expect([await balanceOf(), await balanceOf(child.apiKey)]).toEqual([979.75, 20.25]);
    expect((await json(await s.call('/api/client/clients'))).find((c: any) => c.clientId === child.clientId).balance).toBe(20.25);

    const mine = (await json(await s.call('/api/AlphaName/wallet/info?PageSize=2'))).items;
    expect(mine.map((t: any) => [t.transactionType, t.amount, t.description])).toEqual([
      ['topup', 5.25, 'returned from sub-client acme-shop'],
      ['adjustment', -25.5, 'transfer to sub-client acme-shop'],
    ]);
    const theirs = (await json(await as(child.apiKey, '/api/AlphaName/wallet/info'))).items;
    expect(theirs.map((t: any) => [t.amount, t.description])).toEqual([
      [-5.25, 'returned to acme'],
      [25.5, 'transfer from acme'],
    ]);
    // The top-ups filter finds the money that came in.
    const topups = (await json(await as(child.apiKey, '/api/AlphaName/wallet/info?TransactionTypes=topup'))).items;
    expect(topups.map((t: any) => t.description)).toEqual(['transfer from acme']);
  });

  it('refuses more than the paying wallet holds with 402 payment_required, moving nothing', async () => {
    const before = [await balanceOf(), await balanceOf(child.apiKey)];
    const poor = await transfer(child.clientId, { amount: 1e6 });
    expect(poor.status).toBe(402);
    expect(await json(poor)).toMatchObject({ error: 'payment_required', status: 402 });
    const greedy = await transfer(child.clientId, { amount: before[1] + 0.000001, direction: 'from_client' });
    expect(greedy.status).toBe(402);
    expect((await json(greedy)).message).toContain('acme-shop');
    expect([await balanceOf(), await balanceOf(child.apiKey)]).toEqual(before);
  });

  it('answers 404 for an account that is not a sub-client of the caller', async () => {
    const referred = await json(
      await s.call(`/api/client/${crypto.randomUUID()}`, { json: { login: 'acme-friend', password: 'friend-password' } }),
    );
    const grandchild = await json(
      await as(child.apiKey, '/api/client/provision', { json: { login: 'acme-shop-kid', password: 'sub-password-2' } }),
    );
    for (const id of [Number(referred), grandchild.clientId, 999_999]) {
      const res = await transfer(id, { amount: 1 });
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ error: 'not_found', status: 404 });
    }
    // A sub-client cannot move its parent's money, nor its own through this route; it moves its sub-client's.
    expect((await transfer(child.parentId, { amount: 1, direction: 'from_client' }, child.apiKey)).status).toBe(404);
    expect((await transfer(child.clientId, { amount: 1 }, child.apiKey)).status).toBe(404);
    expect((await transfer(grandchild.clientId, { amount: 1 }, child.apiKey)).status).toBe(200);
  });

  it('refuses bad amounts, directions, bodies and ids with 400 naming the path', async () => {
    for (const amount of [0, -1, 0.0000001, '5']) {
      const res = await transfer(child.clientId, { amount });
      expect(res.status).toBe(400);
      expect((await json(res)).details.map((d: any) => d.path)).toContain('amount');
    }
    const fine = await json(await transfer(child.clientId, { amount: 0.0000001 }));
    expect(fine.details).toEqual([{ path: 'amount', message: 'at most 6 decimal places (wallets count in millionths)' }]);
    expect((await json(await transfer(child.clientId, { amount: 1, direction: 'up' }))).details.map((d: any) => d.path)).toEqual([
      'direction',
    ]);
    const id = await s.call('/api/client/clients/abc/transfer', { json: { amount: 1 } });
    expect(id.status).toBe(400);
    expect((await json(id)).details.map((d: any) => d.path)).toEqual(['clientId']);
    const empty = await s.call(`/api/client/clients/${child.clientId}/transfer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    const text = await s.call(`/api/client/clients/${child.clientId}/transfer`, { method: 'POST', body: 'amount=1' });
    expect(text.status).toBe(415);
    expect((await s.call(`/api/client/clients/${child.clientId}/transfer`, { auth: 'none', json: { amount: 1 } })).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    expect(doc.paths['/api/client/clients/{clientId}/transfer'].post.operationId).toBe('transferClientBalance');
  });
});
