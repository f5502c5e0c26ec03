import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpillwayError, createEngine, createFakeClock } from '@spillway/core';
import type { PasswordHasher, Storage } from '@spillway/core';
import { createClientService } from '@spillway/core/adapter';
import type { ClientStorage } from '@spillway/core/storage';
import { createNodeHasher } from '@spillway/http';
import { testClientStorage } from '../support/engine-fixture.ts';

// Provisions (and referrals) that come in together all pass the checks that come before the slow
// password hash (login free, balance covering), then write: the one transaction that creates the
// client decides, and the others are answered as the checks would have answered them, leaving
// nothing of themselves. Run on both storages (SPILLWAY_TEST_STORAGE=postgres).

type Full = Storage & ClientStorage;
let storage: Full;
beforeAll(async () => {
  storage = await testClientStorage();
});
afterAll(() => storage?.close());

const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
const EUR = 1_000_000;

/**
 * A hasher whose password hashes are answered together once `n` are under way: the `n` requests
 * hashing have all passed their checks before any of them writes.
 */
function together(n: number): PasswordHasher {
  const inner = createNodeHasher({ N: 2 ** 10 });
  let waiting: Array<() => void> = [];
  return {
    hashPassword: async (password) => {
      const hash = await inner.hashPassword(password);
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length < n) return;
        for (const release of waiting) release();
        waiting = [];
      });
      return hash;
    },
    verifyPassword: (password, hash) => inner.verifyPassword(password, hash),
    hashKey: (key) => inner.hashKey(key),
  };
}

let parents = 0;
/**
 * A parent holding `balance` with the approved name `Parent`; client services whose requests hash
 * in pairs (`clients`), and others that do not wait (`alone`).
 */
async function setUp(balance: number) {
  const setup = createEngine({ storage, channels: [], hasher: createNodeHasher({ N: 2 ** 10 }), clock, worker: false });
  const parent = await setup.accounts.create({ login: `parent-${++parents}`, password: 'parent-password', balance });
  await setup.accounts.approveAlphaName(parent.id, 'Parent');
  const engine = createEngine({ storage, channels: [], hasher: together(2), clock, worker: false });
  return {
    clients: createClientService({ storage, accounts: engine.accounts, clock }),
    alone: createClientService({ storage, accounts: setup.accounts, clock }),
    parent,
  };
}

/** The fulfilled answers and the rejections of `calls`, in their order. */
async function settle<T>(calls: Array<Promise<T>>) {
  const settled = await Promise.allSettled(calls);
  return {
    answers: settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])),
    errors: settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : [])),
    settled,
  };
}

describe('provisions at once', () => {
  it('answers one of two provisions of one login and refuses the other with 409 at login, creating the client once', async () => {
    const { clients, parent } = await setUp(100);
    const body = (balance: number) => ({ login: 'twin', password: 'twin-password', balance, alphaNames: ['Parent'] });
    const { answers, errors } = await settle([clients.provision(parent.id, body(3)), clients.provision(parent.id, body(4))]);
    expect(answers).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SpillwayError);
    expect(errors[0]).toMatchObject({ code: 'conflict', status: 409, details: [{ path: 'login', message: 'taken' }] });
    expect((errors[0] as Error).message).toBe("login 'twin' is taken");

    const made = answers[0]!;
    expect(await storage.listClientLinks(parent.id)).toEqual([made.link]);
    expect(await storage.listApiKeys(made.account.id)).toHaveLength(1);
    expect(await storage.getBalance(parent.id)).toBe(100 * EUR - made.balance * EUR);
    expect(await storage.getBalance(made.account.id)).toBe(made.balance * EUR);
  });

  it('refuses with 402 the provision whose opening balance the wallet no longer covers, and creates nothing of it', async () => {
    const { clients, alone, parent } = await setUp(10);
    const body = (login: string, balance = 6) => ({ login, password: 'rich-password', balance, alphaNames: ['Parent'] });
    const { answers, errors, settled } = await settle([
      clients.provision(parent.id, body('rich-a')),
      clients.provision(parent.id, body('rich-b')),
    ]);
    expect(answers).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ code: 'payment_required', status: 402 })]);
    const refused = settled[0]!.status === 'rejected' ? 'rich-a' : 'rich-b';

    // Nothing of the refused one: its login is free, and the parent's retry within its means makes it.
    expect(await storage.findAccountByLogin(refused)).toBeNull();
    expect(await storage.getBalance(parent.id)).toBe(4 * EUR);
    const retried = await alone.provision(parent.id, body(refused, 4));
    expect(retried).toMatchObject({ balance: 4, alphaNames: [{ name: 'Parent' }] });
    expect(await storage.getBalance(parent.id)).toBe(0);
    expect((await storage.listClientLinks(parent.id)).map((l) => l.childId)).toEqual([answers[0]!.account.id, retried.account.id]);
  });
});

describe('referrals at once', () => {
  const referralId = 'c0ffee00-9d3c-4f0e-8b4a-5d1f2a3c4e5f';

  it('answers the same client to two registrations of one referral and login, creating it once', async () => {
    const { clients, parent } = await setUp(0);
    const body = { login: 'friend-twin', password: 'friend-password' };
    const { answers, errors } = await settle([
      clients.registerReferral(parent.id, referralId, body),
      clients.registerReferral(parent.id, referralId, body),
    ]);
    expect(errors).toEqual([]);
    expect(answers.map((a) => a.created).sort()).toEqual([false, true]);
    expect(answers[0]!.account).toEqual(answers[1]!.account);
    expect(await storage.listClientLinks(parent.id, 'referral')).toMatchObject([{ childId: answers[0]!.account.id, referralId }]);
  });

  it('refuses with 409 the second login under one referral id, creating nothing of it', async () => {
    const { clients, parent } = await setUp(0);
    const { answers, errors, settled } = await settle([
      clients.registerReferral(parent.id, referralId, { login: 'friend-one', password: 'friend-password' }),
      clients.registerReferral(parent.id, referralId, { login: 'friend-two', password: 'friend-password' }),
    ]);
    expect(answers).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ code: 'conflict', message: `referral ${referralId} is used by another client` })]);
    const refused = settled[0]!.status === 'rejected' ? 'friend-one' : 'friend-two';
    expect(await storage.findAccountByLogin(refused)).toBeNull();
  });
});
