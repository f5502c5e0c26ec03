import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createClientService } from '@spillway/core/adapter';
import { hasClientStorage } from '@spillway/core/storage';
import type { ClientStorage } from '@spillway/core/storage';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

// A sub-client's opening balance leaves its parent's wallet. Should the process stop at any point
// of the provisioning (a crash, a deploy), the money must be with the parent or with the client,
// never with neither: the parent's debit once stood alone for the half second the client's
// password took to hash. Run on both storages (SPILLWAY_TEST_STORAGE=postgres in CI's
// PostgreSQL suite).

type Full = Storage & ClientStorage;
let storage: Full;
beforeAll(async () => {
  const inner = await testStorage();
  if (!hasClientStorage(inner)) throw new Error('both storages keep client records');
  storage = inner;
});
afterAll(() => storage?.close());

const hasher = createNodeHasher({ N: 2 ** 10 });
const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));

/** `storage` as a process sees it that stops after `calls` calls: every later call fails, nothing of it is written. */
function stoppingAfter(calls: number): { storage: Full; stopped: () => boolean } {
  let made = 0;
  const proxy = new Proxy(storage, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (made++ >= calls) return Promise.reject(new Error('the process stopped'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { storage: proxy, stopped: () => made > calls };
}

describe('provisioning a sub-client, stopped at any point', () => {
  it('leaves the opening balance with the parent or with the client, never with neither', async () => {
    const setup = createEngine({ storage, channels: [], hasher, clock, worker: false });
    const parent = await setup.accounts.create({ login: 'parent', password: 'parent-password', balance: 100 });
    await setup.accounts.approveAlphaName(parent.id, 'Parent');
    let finished = false;
    for (let calls = 0; !finished && calls < 200; calls++) {
      const login = `child-${calls}`;
      const before = await storage.getBalance(parent.id);
      const { storage: stopping, stopped } = stoppingAfter(calls);
      const engine = createEngine({ storage: stopping, channels: [], hasher, clock, worker: false });
      const clients = createClientService({ storage: stopping, accounts: engine.accounts, clock });
      try {
        const made = await clients.provision(parent.id, { login, password: 'child-password', balance: 2, alphaNames: ['Parent'] });
        expect(made.balance).toBe(2);
        finished = !stopped();
      } catch (error) {
        expect(String(error)).toContain('the process stopped');
      }
      const child = await storage.findAccountByLogin(login);
      const childBalance = child ? await storage.getBalance(child.account.id) : 0;
      expect({ calls, total: (await storage.getBalance(parent.id)) + childBalance }).toEqual({ calls, total: before });
      // A client that got money is its parent's.
      if (childBalance > 0) expect((await storage.getClientLink(child!.account.id))?.parentId).toBe(parent.id);
    }
    expect(finished).toBe(true);
  });
});
