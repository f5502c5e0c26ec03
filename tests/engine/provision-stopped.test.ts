import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createClientService } from '@spillway/core/adapter';
import type { ClientStorage } from '@spillway/core/storage';
import { createNodeHasher } from '@spillway/http';
import { testClientStorage } from '../support/engine-fixture.ts';

// Should the process stop at any point of the provisioning of a sub-client (a crash, a deploy),
// either nothing of the client exists, so that the parent's retry makes it, or the client exists
// whole: linked to its parent, with its shared alpha-names, its API key and its opening balance.
// The account was once created, then linked, then given its names, its money and its key, each
// in its own write: a stop after the first left an account its parent could not see, fund or
// retry (409, the login taken). Referred clients likewise. Run on both storages
// (SPILLWAY_TEST_STORAGE=postgres in CI's PostgreSQL suite).

type Full = Storage & ClientStorage;
let storage: Full;
beforeAll(async () => {
  storage = await testClientStorage();
});
afterAll(() => storage?.close());

const hasher = createNodeHasher({ N: 2 ** 10 });
const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
const EUR = 1_000_000;

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

/** The client services of a process on `over` (the storage, or a stopping view of it). */
function servicesOn(over: Full) {
  const engine = createEngine({ storage: over, channels: [], hasher, clock, worker: false });
  return { engine, clients: createClientService({ storage: over, accounts: engine.accounts, clock }) };
}

describe('provisioning a sub-client, stopped at any point', () => {
  it('leaves nothing of the client, and the retry makes it, or the client whole: linked, with its names, key and money', async () => {
    const { engine: setup, clients: retrying } = servicesOn(storage);
    const parent = await setup.accounts.create({ login: 'parent', password: 'parent-password', balance: 100 });
    await setup.accounts.approveAlphaName(parent.id, 'Parent', ['sms', 'chatapp']);
    let finished = false;
    for (let calls = 0; !finished && calls < 200; calls++) {
      const body = { login: `child-${calls}`, password: 'child-password', balance: 2, alphaNames: ['Parent'] };
      const before = await storage.getBalance(parent.id);
      const { storage: stopping, stopped } = stoppingAfter(calls);
      let apiKey: string | null = null;
      try {
        apiKey = (await servicesOn(stopping).clients.provision(parent.id, body)).apiKey;
        finished = !stopped();
      } catch (error) {
        expect(String(error)).toContain('the process stopped');
      }

      let child = await storage.findAccountByLogin(body.login);
      if (!child) {
        // Nothing of it: the parent's money untouched, and the login free for the retry.
        expect({ calls, balance: await storage.getBalance(parent.id) }).toEqual({ calls, balance: before });
        const retried = await retrying.provision(parent.id, body);
        expect(retried).toMatchObject({ balance: 2, link: { parentId: parent.id, kind: 'sub' } });
        apiKey = retried.apiKey;
        child = await storage.findAccountByLogin(body.login);
      }
      // The client, whole.
      const id = child!.account.id;
      expect({ calls, link: await storage.getClientLink(id) }).toMatchObject({ calls, link: { parentId: parent.id, kind: 'sub' } });
      expect((await storage.listClientLinks(parent.id)).map((l) => l.childId)).toContain(id);
      expect({ calls, names: await storage.listAlphaNames(id) }).toMatchObject({
        calls,
        names: [{ name: 'Parent', channels: ['sms', 'chatapp'] }],
      });
      expect({ calls, keys: (await storage.listApiKeys(id)).map((k) => k.label) }).toEqual({ calls, keys: ['provisioned'] });
      expect({ calls, balances: [await storage.getBalance(parent.id), await storage.getBalance(id)] }).toEqual({
        calls,
        balances: [before - 2 * EUR, 2 * EUR],
      });
      // The key answered once is the one stored.
      if (apiKey) expect((await setup.accounts.authenticateKey(apiKey))?.id).toBe(id);
    }
    expect(finished).toBe(true);
  });
});

describe('registering a referred client, stopped at any point', () => {
  it('leaves nothing of the client, and the retry registers it, or the client linked to its referrer', async () => {
    const { engine: setup, clients: retrying } = servicesOn(storage);
    const referrer = await setup.accounts.create({ login: 'referrer', password: 'referrer-password' });
    let finished = false;
    for (let calls = 0; !finished && calls < 200; calls++) {
      const referralId = `0b7f7a55-9d3c-4f0e-8b4a-${String(calls).padStart(12, '0')}`;
      const body = { login: `friend-${calls}`, password: 'friend-password' };
      const { storage: stopping, stopped } = stoppingAfter(calls);
      try {
        const made = await servicesOn(stopping).clients.registerReferral(referrer.id, referralId, body);
        expect(made.created).toBe(true);
        finished = !stopped();
      } catch (error) {
        expect(String(error)).toContain('the process stopped');
      }
      // The retry (a replay when the first registered it) answers the client, linked under the referral id.
      const retried = await retrying.registerReferral(referrer.id, referralId, body);
      expect({ calls, login: retried.account.login }).toEqual({ calls, login: body.login });
      expect({ calls, link: await storage.getClientLink(retried.account.id) }).toMatchObject({
        calls,
        link: { parentId: referrer.id, kind: 'referral', referralId },
      });
    }
    expect(finished).toBe(true);
  });
});
