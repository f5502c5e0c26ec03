import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { Engine, Storage } from '@spillway/core';
import { CLIENT_TRANSFER_KEY_RETENTION_MS, createClientService } from '@spillway/core/adapter';
import type { ClientService } from '@spillway/core/adapter';
import type { ClientStorage } from '@spillway/core/storage';
import { createNodeHasher } from '@spillway/http';
import { testClientStorage } from '../support/engine-fixture.ts';

// A parent moves money to a sub-client after provisioning and takes unspent money back, through
// the storage's atomic transferBalance. Run on both storages (SPILLWAY_TEST_STORAGE=postgres).

type Full = Storage & ClientStorage;
let storage: Full;
let engine: Engine;
let clients: ClientService;
const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));

beforeAll(async () => {
  storage = await testClientStorage();
  engine = createEngine({ storage, channels: [], hasher: createNodeHasher({ N: 2 ** 10 }), clock, worker: false });
  clients = createClientService({ storage, accounts: engine.accounts, clock });
});
afterAll(() => storage?.close());

let n = 0;
async function family(balance = 100) {
  const parent = await engine.accounts.create({ login: `parent-${++n}`, password: 'parent-password', balance });
  const made = await clients.provision(parent.id, { login: `child-${n}`, password: 'child-password' });
  return { parent, child: made.account };
}
const balance = async (accountId: number) => (await engine.accounts.balance(accountId)).balance;
const history = async (accountId: number) =>
  (await engine.accounts.walletHistory(accountId, {})).items.map((t) => [t.kind, t.amount, t.description]);

describe('moving money between a parent and its sub-client', () => {
  it('moves money to the sub-client and takes it back, both wallets recording each move', async () => {
    const { parent, child } = await family();
    const there = await clients.transfer(parent.id, child.id, { amount: 30.5 });
    expect(there).toMatchObject({ direction: 'to_client', amount: 30.5, balance: 69.5, clientBalance: 30.5 });
    const back = await clients.transfer(parent.id, child.id, { amount: 10.25, direction: 'from_client' });
    expect(back).toMatchObject({ direction: 'from_client', amount: 10.25, balance: 79.75, clientBalance: 20.25 });
    expect([await balance(parent.id), await balance(child.id)]).toEqual([79.75, 20.25]);

    expect((await history(parent.id)).slice(0, 2)).toEqual([
      ['topup', 10_250_000, `returned from sub-client ${child.login}`],
      ['adjustment', -30_500_000, `transfer to sub-client ${child.login}`],
    ]);
    expect(await history(child.id)).toEqual([
      ['adjustment', -10_250_000, `returned to ${parent.login}`],
      ['topup', 30_500_000, `transfer from ${parent.login}`],
    ]);
  });

  it('refuses what the paying wallet does not cover with payment_required, moving nothing', async () => {
    const { parent, child } = await family(10);
    await expect(clients.transfer(parent.id, child.id, { amount: 10.000001 })).rejects.toMatchObject({ code: 'payment_required' });
    await clients.transfer(parent.id, child.id, { amount: 4 });
    await expect(clients.transfer(parent.id, child.id, { amount: 4.5, direction: 'from_client' })).rejects.toMatchObject({
      code: 'payment_required',
      status: 402,
    });
    expect([await balance(parent.id), await balance(child.id)]).toEqual([6, 4]);
    // Two take-backs that the sub-client's balance covers once: one moves.
    const both = await Promise.allSettled([
      clients.transfer(parent.id, child.id, { amount: 3, direction: 'from_client' }),
      clients.transfer(parent.id, child.id, { amount: 3, direction: 'from_client' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect([await balance(parent.id), await balance(child.id)]).toEqual([9, 1]);
  });

  it('refuses accounts that are not its own sub-clients as not found', async () => {
    const { parent, child } = await family();
    const other = await family();
    const referred = await clients.registerReferral(parent.id, crypto.randomUUID(), { login: `ref-${n}`, password: 'ref-password' });
    const grandchild = (await clients.provision(child.id, { login: `grandchild-${n}`, password: 'child-password' })).account;
    for (const id of [other.child.id, other.parent.id, referred.account.id, grandchild.id, parent.id, 999_999]) {
      await expect(clients.transfer(parent.id, id, { amount: 1 })).rejects.toMatchObject({ code: 'not_found', status: 404 });
    }
    // The sub-client cannot pull money from its parent either.
    await expect(clients.transfer(child.id, parent.id, { amount: 1, direction: 'from_client' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await balance(parent.id)).toBe(100);
  });

  it('refuses amounts that are not positive or finer than a millionth, and unknown fields, at their path', async () => {
    const { parent, child } = await family();
    const details = async (body: unknown) => {
      try {
        await clients.transfer(parent.id, child.id, body);
      } catch (error) {
        expect(error).toMatchObject({ code: 'validation_failed', status: 400 });
        return (error as { details: Array<{ path: string }> }).details.map((d) => d.path);
      }
      throw new Error('accepted');
    };
    for (const amount of [0, -5, 0.0000001, 1.0000005, '5', null]) expect(await details({ amount })).toContain('amount');
    expect(await details({})).toEqual(['amount']);
    expect(await details({ amount: 1, direction: 'sideways' })).toEqual(['direction']);
    expect(await details({ amount: 1, to: 'x' })).toEqual(['(body)']);
    expect(await details([])).toEqual(['(body)']);
    expect(await balance(parent.id)).toBe(100);
    // A millionth is fine.
    expect(await clients.transfer(parent.id, child.id, { amount: 0.000001 })).toMatchObject({ clientBalance: 0.000001 });
  });

  it('moves once per idempotency key: a retry answers the first move, another transfer under the key is a conflict', async () => {
    const { parent, child } = await family();
    const key = crypto.randomUUID();
    const first = await clients.transfer(parent.id, child.id, { amount: 30 }, { idempotencyKey: key });
    expect(first).toMatchObject({ direction: 'to_client', amount: 30, balance: 70, clientBalance: 30, replayed: false });
    // Retries, one after the other and several at once.
    const again = await Promise.all([1, 2, 3].map(() => clients.transfer(parent.id, child.id, { amount: 30 }, { idempotencyKey: key })));
    expect(again).toEqual([1, 2, 3].map(() => ({ ...first, replayed: true })));
    expect([await balance(parent.id), await balance(child.id)]).toEqual([70, 30]);
    expect(await history(child.id)).toEqual([['topup', 30_000_000, `transfer from ${parent.login}`]]);

    await expect(
      clients.transfer(parent.id, child.id, { amount: 30, direction: 'from_client' }, { idempotencyKey: key }),
    ).rejects.toMatchObject({ code: 'conflict', status: 409, details: [{ path: 'direction' }] });
    await expect(clients.transfer(parent.id, child.id, { amount: 1 }, { idempotencyKey: 'bad key' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'idempotencyKey' }],
    });
    expect([await balance(parent.id), await balance(child.id)]).toEqual([70, 30]);
  });

  it('keeps an idempotency key for its retention: a retry inside it replays, one after it moves money again', async () => {
    const { parent, child } = await family();
    const key = crypto.randomUUID();
    const first = await clients.transfer(parent.id, child.id, { amount: 10 }, { idempotencyKey: key });
    expect(first).toMatchObject({ balance: 90, clientBalance: 10, replayed: false });

    await clock.advance(CLIENT_TRANSFER_KEY_RETENTION_MS);
    expect(await clients.transfer(parent.id, child.id, { amount: 10 }, { idempotencyKey: key })).toEqual({ ...first, replayed: true });
    // A key past its retention is free again: even another transfer under it is a new one.
    await clock.advance(1);
    const later = await clients.transfer(parent.id, child.id, { amount: 5, direction: 'from_client' }, { idempotencyKey: key });
    expect(later).toMatchObject({ direction: 'from_client', amount: 5, balance: 95, clientBalance: 5, replayed: false });
    expect(await clients.transfer(parent.id, child.id, { amount: 5, direction: 'from_client' }, { idempotencyKey: key })).toEqual({
      ...later,
      replayed: true,
    });
    expect([await balance(parent.id), await balance(child.id)]).toEqual([95, 5]);
  });
});
