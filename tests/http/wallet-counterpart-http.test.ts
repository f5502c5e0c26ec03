import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { testDatabase } from '../support/test-database.ts';

// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const database = testDatabase('wallet_counterpart');

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer({ ...database.env });
});
afterAll(async () => {
  await s?.close();
  await database.drop();
});

const json = async (res: Response) => (await res.json()) as any;
/** The wallet history of the bootstrap account, or of the account of `key`, newest first. */
const entries = async (key?: string) =>
  (await json(await s.call('/api/AlphaName/wallet/info?PageSize=1000', key ? { headers: { 'x-authorization-key': key } } : {}))).items;
const transfer = (clientId: number, body: unknown, idempotencyKey?: string) =>
  s.call(`/api/client/clients/${clientId}/transfer`, {
    json: body,
    headers: { 'x-authorization-key': API_KEY, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
  });

describe(`wallet history: the other account of a move (${database.label})`, () => {
  it('names it in each entry of a move: the opening balance, a transfer and its return, on both sides', async () => {
    const made = await json(
      await s.call('/api/client/provision', { json: { login: 'acme-named', password: 'sub-password-3', balance: 10 } }),
    );
    expect((await transfer(made.clientId, { amount: 4 })).status).toBe(200);
    // Under an Idempotency-Key: the keyed move writes its rows the same way.
    expect((await transfer(made.clientId, { amount: 1.5, direction: 'from_client' }, 'back-1')).status).toBe(200);

    const mine = await entries();
    expect(mine.slice(0, 3).map((t: any) => [t.transactionType, t.amount, t.counterpartAccountId])).toEqual([
      ['topup', 1.5, made.clientId],
      ['adjustment', -4, made.clientId],
      ['adjustment', -10, made.clientId],
    ]);
    // The parent's own funding came from no account: the field is there, null.
    expect(mine.at(-1)).toMatchObject({ transactionType: 'topup', counterpartAccountId: null });
    expect((await entries(made.apiKey)).map((t: any) => [t.transactionType, t.amount, t.counterpartAccountId])).toEqual([
      ['adjustment', -1.5, made.parentId],
      ['topup', 4, made.parentId],
      ['topup', 10, made.parentId],
    ]);
  });

  it('documents the field in the OpenAPI document, nullable', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    const item = doc.components.schemas.WalletTransaction;
    expect(item.required).toContain('counterpartAccountId');
    expect(item.properties.counterpartAccountId.anyOf).toEqual([expect.objectContaining({ type: 'integer' }), { type: 'null' }]);
  });
});
