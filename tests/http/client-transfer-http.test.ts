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

  it('is in the OpenAPI document, with its Idempotency-Key header', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    const op = doc.paths['/api/client/clients/{clientId}/transfer'].post;
    expect(op.operationId).toBe('transferClientBalance');
    expect(op.parameters).toContainEqual(
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: expect.objectContaining({ type: 'string' }),
      }),
    );
    expect(op.responses['409']).toBeDefined();
  });
});

// A client whose request timed out sends it again: with the same Idempotency-Key the money moves once.
describe('POST /api/client/clients/{clientId}/transfer with an Idempotency-Key', () => {
  const keyed = (clientId: number, body: unknown, key: string, apiKey?: string) =>
    s.call(`/api/client/clients/${clientId}/transfer`, {
      json: body,
      headers: { 'idempotency-key': key, ...(apiKey ? { 'x-authorization-key': apiKey } : {}) },
    });
  const both = async () => [await balanceOf(), await balanceOf(child.apiKey)];
  const historyOf = async (key?: string) =>
    (await json(key ? await as(key, '/api/AlphaName/wallet/info?PageSize=1000') : await s.call('/api/AlphaName/wallet/info?PageSize=1000')))
      .items.length;

  it('moves the money once: a retry with the same key and body answers the first result again, replayed', async () => {
    const before = await both();
    const rows = [await historyOf(), await historyOf(child.apiKey)];
    const key = crypto.randomUUID();
    const first = await keyed(child.clientId, { amount: 12.5 }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const answer = await json(first);
    expect(answer).toEqual({
      clientId: child.clientId,
      direction: 'to_client',
      amount: 12.5,
      currency: 'EUR',
      balance: before[0] - 12.5,
      clientBalance: before[1] + 12.5,
    });
    // The same transfer written otherwise (the default direction spelled out, the amount as 12.50) is the same body.
    for (const body of [{ amount: 12.5 }, { amount: 12.5, direction: 'to_client' }]) {
      const again = await keyed(child.clientId, body, key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await json(again)).toEqual(answer);
    }
    expect(await both()).toEqual([before[0] - 12.5, before[1] + 12.5]);
    expect([await historyOf(), await historyOf(child.apiKey)]).toEqual([rows[0] + 1, rows[1] + 1]);
  });

  it('moves once when the same request arrives several times at once', async () => {
    const before = await both();
    const key = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => keyed(child.clientId, { amount: 1.25, direction: 'to_client' }, key)),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    const bodies = await Promise.all(answers.map(json));
    expect(bodies).toEqual(bodies.map(() => bodies[0]));
    expect(await both()).toEqual([before[0] - 1.25, before[1] + 1.25]);
  });

  it('refuses the same key with another transfer with 409 naming what differs, moving nothing', async () => {
    const other = await json(await s.call('/api/client/provision', { json: { login: 'acme-other', password: 'sub-password-3' } }));
    const key = `order-${crypto.randomUUID()}`;
    expect((await keyed(child.clientId, { amount: 2 }, key)).status).toBe(200);
    const before = await both();
    const cases: Array<[number, unknown, string[]]> = [
      [child.clientId, { amount: 3 }, ['amount']],
      [child.clientId, { amount: 2, direction: 'from_client' }, ['direction']],
      [other.clientId, { amount: 2 }, ['clientId']],
      [other.clientId, { amount: 1, direction: 'from_client' }, ['clientId', 'amount', 'direction']],
    ];
    for (const [clientId, body, paths] of cases) {
      const res = await keyed(clientId, body, key);
      expect(res.status).toBe(409);
      const error = await json(res);
      expect(error).toMatchObject({ error: 'conflict', status: 409 });
      expect(error.message).toContain(key);
      expect(error.details.map((d: any) => d.path)).toEqual(paths);
    }
    expect(await both()).toEqual(before);
    expect(await balanceOf(other.apiKey)).toBe(0);
  });

  it('keeps keys per account: a sub-client’s same key is its own', async () => {
    const grandchild = await json(
      await as(child.apiKey, '/api/client/provision', { json: { login: 'acme-shop-kid-2', password: 'sub-password-4' } }),
    );
    const key = crypto.randomUUID();
    expect((await keyed(child.clientId, { amount: 1 }, key)).status).toBe(200);
    const theirs = await keyed(grandchild.clientId, { amount: 0.5 }, key, child.apiKey);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await balanceOf(grandchild.apiKey)).toBe(0.5);
  });

  it('records nothing for a refused request: its key moves money once the wallet covers it', async () => {
    const key = crypto.randomUUID();
    const before = await both();
    const poor = await keyed(child.clientId, { amount: before[0] + 1 }, key);
    expect(poor.status).toBe(402);
    expect(await both()).toEqual(before);
    const fine = await keyed(child.clientId, { amount: 1 }, key);
    expect(fine.status).toBe(200);
    expect(fine.headers.get('idempotent-replayed')).toBeNull();
    expect(await both()).toEqual([before[0] - 1, before[1] + 1]);
  });

  it('refuses a key that is empty, too long or not visible ASCII with 400 at the header, moving nothing', async () => {
    const before = await both();
    for (const key of ['', 'a'.repeat(256), 'two words', 'tab\there']) {
      const res = await keyed(child.clientId, { amount: 1 }, key);
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error: 'validation_failed', details: [{ path: 'Idempotency-Key' }] });
    }
    expect((await keyed(child.clientId, { amount: 1 }, 'a'.repeat(255))).status).toBe(200);
    expect(await both()).toEqual([before[0] - 1, before[1] + 1]);
  });
});
