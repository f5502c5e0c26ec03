import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { Engine, Storage } from '@spillway/core';
import { CLIENT_PROVISION_KEY_RETENTION_MS, createClientService } from '@spillway/core/adapter';
import type { ClientService } from '@spillway/core/adapter';
import type { ClientStorage } from '@spillway/core/storage';
import { createNodeHasher } from '@spillway/http';
import { testClientStorage } from '../support/engine-fixture.ts';

// A parent whose provisioning answer was lost sends it again with the same Idempotency-Key: the
// same client is answered (its API key, shown once, is not kept), and no second opening balance
// moves. Then the parent issues the sub-client a new key, and revokes the old one. Run on both
// storages (SPILLWAY_TEST_STORAGE=postgres).

type Full = Storage & ClientStorage;
let storage: Full;
let engine: Engine;
let clients: ClientService;
const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
const EUR = 1_000_000;

beforeAll(async () => {
  storage = await testClientStorage();
  engine = createEngine({ storage, channels: [], hasher: createNodeHasher({ N: 2 ** 10 }), clock, worker: false });
  clients = createClientService({ storage, accounts: engine.accounts, clock });
});
afterAll(() => storage?.close());

let n = 0;
async function parentWith(balance = 100) {
  const parent = await engine.accounts.create({ login: `parent-${++n}`, password: 'parent-password', balance });
  await engine.accounts.approveAlphaName(parent.id, 'Parent', ['sms', 'chatapp']);
  return parent;
}
const body = (login: string, more: Record<string, unknown> = {}) => ({
  login,
  password: 'shop-password',
  name: 'Shop',
  balance: 10,
  alphaNames: ['Parent'],
  ...more,
});
const walletRows = async (accountId: number) => (await storage.listWalletTransactions(accountId, { page: 1, pageSize: 1000 })).total;

describe('provisioning under an idempotency key', () => {
  it('creates the client once: a retry answers the same client, replayed, with no API key, and moves no money again', async () => {
    const parent = await parentWith();
    const first = await clients.provision(parent.id, body(`shop-idem-${n}`), { idempotencyKey: 'prov-1' });
    expect(first).toMatchObject({ replayed: false, balance: 10, alphaNames: [{ name: 'Parent', channels: ['sms', 'chatapp'] }] });
    expect(first.apiKey).toMatch(/^sk_/);
    expect(first.keyId).toBe((await storage.listApiKeys(first.account.id))[0]!.id);
    const rows = await walletRows(parent.id);

    const again = await clients.provision(parent.id, body(`shop-idem-${n}`), { idempotencyKey: 'prov-1' });
    expect(again).toEqual({ ...first, apiKey: null, replayed: true });
    // Several retries at once: each the same client.
    const many = await Promise.all([1, 2, 3].map(() => clients.provision(parent.id, body(`shop-idem-${n}`), { idempotencyKey: 'prov-1' })));
    expect(many).toEqual([1, 2, 3].map(() => again));

    expect([await storage.getBalance(parent.id), await storage.getBalance(first.account.id)]).toEqual([90 * EUR, 10 * EUR]);
    expect(await walletRows(parent.id)).toBe(rows);
    expect(await storage.listClientLinks(parent.id)).toEqual([first.link]);
    expect(await storage.listApiKeys(first.account.id)).toHaveLength(1);
    // The key shown the first time is the client's still.
    expect((await engine.accounts.authenticateKey(first.apiKey!))?.id).toBe(first.account.id);
  });

  it('creates one client when the same keyed request arrives several times at once', async () => {
    const parent = await parentWith();
    const login = `shop-race-${n}`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => clients.provision(parent.id, body(login), { idempotencyKey: 'prov-race' })),
    );
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.account.id)).size).toBe(1);
    expect(answers.filter((a) => a.apiKey !== null)).toHaveLength(1);
    expect(await storage.getBalance(parent.id)).toBe(90 * EUR);
    expect(await storage.listClientLinks(parent.id)).toHaveLength(1);

    // Two other logins under one key at once: one is made, the other is told the key made another client.
    const settled = await Promise.allSettled(
      ['a', 'b'].map((x) => clients.provision(parent.id, body(`${login}-${x}`), { idempotencyKey: 'prov-race-2' })),
    );
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'conflict', status: 409, details: [{ path: 'login' }] });
    expect(await storage.getBalance(parent.id)).toBe(80 * EUR);
    expect(await storage.listClientLinks(parent.id)).toHaveLength(2);
  });

  it('refuses the key with another request with 409 naming what differs, creating nothing', async () => {
    const parent = await parentWith();
    const login = `shop-diff-${n}`;
    const first = await clients.provision(parent.id, body(login), { idempotencyKey: 'prov-2' });
    await engine.accounts.approveAlphaName(parent.id, 'Other');
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ login: `${login}-x` }, ['login']],
      [{ password: 'other-password' }, ['password']],
      [{ name: 'Other' }, ['name']],
      // Left out, the name is the login: not the name the key created the client with.
      [{ name: undefined }, ['name']],
      [{ balance: 11 }, ['balance']],
      [{ alphaNames: ['Parent', 'Other'] }, ['alphaNames']],
      [{ login: `${login}-y`, balance: 0, alphaNames: [] }, ['login', 'balance', 'alphaNames']],
    ];
    for (const [more, paths] of cases) {
      const refused = clients.provision(parent.id, body(login, more), { idempotencyKey: 'prov-2' });
      await expect(refused).rejects.toMatchObject({ code: 'conflict', status: 409 });
      const error = (await refused.catch((e: unknown) => e)) as { message: string; details: Array<{ path: string }> };
      expect(error.message).toContain("Idempotency-Key 'prov-2'");
      expect(error.details.map((d) => d.path)).toEqual(paths);
    }
    // The same request written otherwise (a name repeated) is the same request.
    const same = await clients.provision(parent.id, body(login, { alphaNames: ['Parent', 'Parent'] }), { idempotencyKey: 'prov-2' });
    expect(same).toMatchObject({ replayed: true, account: { id: first.account.id } });
    expect(await storage.listClientLinks(parent.id)).toHaveLength(1);
    expect(await storage.getBalance(parent.id)).toBe(90 * EUR);
  });

  it('records nothing for a refused request: its key creates the client once the request is fine', async () => {
    const parent = await parentWith(5);
    const login = `shop-poor-${n}`;
    await expect(clients.provision(parent.id, body(login), { idempotencyKey: 'prov-3' })).rejects.toMatchObject({
      code: 'payment_required',
    });
    await expect(clients.provision(parent.id, body(login, { alphaNames: ['Nope'] }), { idempotencyKey: 'prov-3' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(clients.provision(parent.id, body(`parent-${n}`, { balance: 1 }), { idempotencyKey: 'prov-3' })).rejects.toMatchObject({
      code: 'conflict',
      details: [{ path: 'login', message: 'taken' }],
    });
    expect(await storage.getClientProvision(parent.id, 'prov-3')).toBeNull();
    const made = await clients.provision(parent.id, body(login, { balance: 5 }), { idempotencyKey: 'prov-3' });
    expect(made).toMatchObject({ replayed: false, balance: 5 });
    await expect(clients.provision(parent.id, body(login), { idempotencyKey: 'bad key' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'idempotencyKey' }],
    });
  });

  it('keeps a key for its retention: a retry inside it replays, one after it is a new request', async () => {
    const parent = await parentWith();
    const login = `shop-kept-${n}`;
    const first = await clients.provision(parent.id, body(login), { idempotencyKey: 'prov-4' });
    await clock.advance(CLIENT_PROVISION_KEY_RETENTION_MS);
    expect(await clients.provision(parent.id, body(login), { idempotencyKey: 'prov-4' })).toMatchObject({
      replayed: true,
      account: { id: first.account.id },
    });
    await clock.advance(1);
    // Forgotten: the login is taken, as without a key; another login under the key is a new client.
    await expect(clients.provision(parent.id, body(login), { idempotencyKey: 'prov-4' })).rejects.toMatchObject({
      code: 'conflict',
      details: [{ path: 'login', message: 'taken' }],
    });
    expect(await clients.provision(parent.id, body(`${login}-2`), { idempotencyKey: 'prov-4' })).toMatchObject({ replayed: false });
    expect(await storage.getBalance(parent.id)).toBe(80 * EUR);
  });
});

describe('the API keys of a sub-client, managed by its parent', () => {
  it('issues a new key (shown once), lists the keys, and revokes one at once; the others keep working', async () => {
    const parent = await parentWith();
    const made = await clients.provision(parent.id, body(`shop-keys-${n}`), { idempotencyKey: 'prov-keys' });
    const issued = await clients.issueClientKey(parent.id, made.account.id, { label: 'pos-3' });
    expect(issued.key).toMatch(/^sk_/);
    expect(issued.apiKey).toMatchObject({ accountId: made.account.id, label: 'pos-3', prefix: issued.key.slice(0, 10) });
    expect((await engine.accounts.authenticateKey(issued.key))?.id).toBe(made.account.id);
    expect((await engine.accounts.authenticateKey(made.apiKey!))?.id).toBe(made.account.id);
    expect((await clients.issueClientKey(parent.id, made.account.id, {})).apiKey.label).toBe('default');
    expect((await clients.listClientKeys(parent.id, made.account.id)).map((k) => k.id)).toEqual([
      made.keyId,
      issued.apiKey.id,
      expect.any(Number),
    ]);

    await clients.revokeClientKey(parent.id, made.account.id, made.keyId!);
    expect(await engine.accounts.authenticateKey(made.apiKey!)).toBeNull();
    expect((await engine.accounts.authenticateKey(issued.key))?.id).toBe(made.account.id);
    await expect(clients.revokeClientKey(parent.id, made.account.id, made.keyId!)).rejects.toMatchObject({ code: 'not_found' });
    await expect(clients.issueClientKey(parent.id, made.account.id, { label: '' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'label' }],
    });
  });

  it('refuses accounts that are not the caller’s own sub-clients as not found, and keys of another account', async () => {
    const parent = await parentWith();
    const other = await parentWith();
    const mine = await clients.provision(parent.id, body(`shop-own-${n}`, { balance: 0 }));
    const theirs = await clients.provision(other.id, body(`shop-theirs-${n}`, { balance: 0 }));
    const grandchild = await clients.provision(mine.account.id, { login: `shop-kid-${n}`, password: 'kid-password' });
    const referred = await clients.registerReferral(parent.id, crypto.randomUUID(), { login: `friend-${n}`, password: 'friend-password' });
    for (const id of [theirs.account.id, grandchild.account.id, referred.account.id, parent.id, other.id, 999_999]) {
      await expect(clients.issueClientKey(parent.id, id, {})).rejects.toMatchObject({ code: 'not_found', status: 404 });
      await expect(clients.listClientKeys(parent.id, id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(clients.revokeClientKey(parent.id, id, 1)).rejects.toMatchObject({ code: 'not_found' });
    }
    // Another account's key named under one's own sub-client: not one of its keys.
    await expect(clients.revokeClientKey(parent.id, mine.account.id, theirs.keyId!)).rejects.toMatchObject({ code: 'not_found' });
    expect((await engine.accounts.authenticateKey(theirs.apiKey!))?.id).toBe(theirs.account.id);
    // A sub-client manages its own sub-client's keys, not its own through this path.
    expect((await clients.issueClientKey(mine.account.id, grandchild.account.id, {})).apiKey.accountId).toBe(grandchild.account.id);
    await expect(clients.issueClientKey(mine.account.id, mine.account.id, {})).rejects.toMatchObject({ code: 'not_found' });
  });
});
