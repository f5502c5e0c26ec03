import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
/** A call as another account, by its API key. */
const as = (key: string, path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { ...init, headers: { 'x-authorization-key': key, ...(init.headers as Record<string, string>) } });
const balanceOf = async (key?: string) =>
  (await json(key ? await as(key, '/bat/balance') : await s.call('/bat/balance'))).balance as number;
const sms = (to: string) => ({ from: 'Acme', to, text: 'Hello', type: 'sms' });
const sendAs = async (key: string | null, to: string) => {
  const init = { json: { messages: [sms(to)] } };
  const res = key ? await as(key, '/bat/messagelist', init) : await s.call('/bat/messagelist', init);
  expect(res.status).toBe(200);
  return (await json(res)).messages[0].messageId as number;
};

describe('POST /api/client/provision', () => {
  let first: any;
  let second: any;

  it('creates a sub-client with its own key, a balance moved from the parent and shared alpha-names', async () => {
    const before = await balanceOf();
    const res = await s.call('/api/client/provision', {
      json: { login: 'acme-eu', password: 'sub-password-1', name: 'Acme EU', balance: 100, alphaNames: ['Acme'] },
    });
    expect(res.status).toBe(200);
    first = await json(res);
    expect(first).toMatchObject({ login: 'acme-eu', name: 'Acme EU', currency: 'EUR', balance: 100, alphaNames: [{ alphaName: 'Acme' }] });
    expect(first.apiKey).toMatch(/^sk_/);
    expect(await balanceOf()).toBeCloseTo(before - 100, 6);
    expect(await balanceOf(first.apiKey)).toBe(100);
    // The sub-client also signs in with its own password.
    const basic = `Basic ${Buffer.from('acme-eu:sub-password-1').toString('base64')}`;
    expect((await s.call('/bat/balance', { auth: 'none', headers: { authorization: basic } })).status).toBe(200);

    second = await json(await s.call('/api/client/provision', { json: { login: 'acme-us', password: 'sub-password-2' } }));
    expect(second).toMatchObject({ balance: 0, alphaNames: [] });

    const clients = await json(await s.call('/api/client/clients'));
    expect(clients.map((c: any) => [c.login, c.kind, c.balance])).toEqual([
      ['acme-eu', 'sub', 100],
      ['acme-us', 'sub', 0],
    ]);
  });

  it('never shows a sub-client its parent’s or a sibling’s data, nor the parent the sub-client’s', async () => {
    const parentMessage = await sendAs(null, '99900000000');
    const subMessage = await sendAs(first.apiKey, '99900000000');
    // Only shared names send: the sibling has none.
    expect((await as(second.apiKey, '/bat/messagelist', { json: { messages: [sms('99900000000')] } })).status).toBe(400);

    expect((await as(first.apiKey, `/bat/message/${parentMessage}`)).status).toBe(404);
    expect((await s.call(`/bat/message/${subMessage}`)).status).toBe(404);
    expect((await as(second.apiKey, `/bat/message/${subMessage}`)).status).toBe(404);
    expect((await as(first.apiKey, `/bat/message/${subMessage}`)).status).toBe(200);

    await s.call('/organizations', { json: { name: 'Acme Parent Ltd', taxId: '7700000001' } });
    expect(await json(await as(first.apiKey, '/organizations'))).toEqual([]);
    expect(await json(await as(first.apiKey, '/api/client/clients'))).toEqual([]);
    const subWallet = await json(await as(first.apiKey, '/api/AlphaName/wallet/info?PageSize=1000'));
    expect(subWallet.items.every((t: any) => t.messageId === null || t.messageId === subMessage)).toBe(true);
    const subSenders = await json(await as(first.apiKey, '/api/clientsenders'));
    expect(subSenders.alphaNames.map((a: any) => a.name)).toEqual(['Acme']);
    await until(
      async () => (await json(await as(first.apiKey, '/api/AlphaName/sms/status?alphaName=Acme'))).statistics[0].delivered,
      (n) => n === 1,
    );
    expect((await json(await as(first.apiKey, '/api/AlphaName/sms/status?alphaName=Acme'))).statistics[0]).toMatchObject({
      sent: 1,
      delivered: 1,
    });
    // A sub-client cannot reach its parent through provisioning either: it only makes its own sub-clients.
    const nested = await json(
      await as(first.apiKey, '/api/client/provision', { json: { login: 'acme-eu-shop', password: 'sub-password-3', balance: 10 } }),
    );
    expect(nested.parentId).toBe(first.clientId);
    expect(await balanceOf(first.apiKey)).toBeLessThan(100);
  });

  it('refuses bad input, taken logins, foreign alpha-names and a balance it cannot cover, storing nothing', async () => {
    const before = await balanceOf();
    const bad = await s.call('/api/client/provision', { json: { login: 'x', password: 'short', balance: -1 } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['balance', 'login', 'password']);

    // Wallets count in millionths: a finer balance is refused, not rounded to another one.
    const fine = await s.call('/api/client/provision', { json: { login: 'acme-fine', password: 'sub-password-1', balance: 0.0000001 } });
    expect(fine.status).toBe(400);
    expect((await json(fine)).details).toEqual([{ path: 'balance', message: 'at most 6 decimal places (wallets count in millionths)' }]);

    const taken = await s.call('/api/client/provision', { json: { login: 'acme-eu', password: 'sub-password-1' } });
    expect(taken.status).toBe(409);

    const foreign = await s.call('/api/client/provision', {
      json: { login: 'acme-x', password: 'sub-password-1', alphaNames: ['Acme', 'NotOurs'] },
    });
    expect(foreign.status).toBe(400);
    expect((await json(foreign)).details).toEqual([{ path: 'alphaNames[1]', message: "'NotOurs' is not approved" }]);

    const poor = await s.call('/api/client/provision', { json: { login: 'acme-rich', password: 'sub-password-1', balance: 1e8 } });
    expect(poor.status).toBe(402);
    expect(await balanceOf()).toBeCloseTo(before, 6);
    const logins = (await json(await s.call('/api/client/clients'))).map((c: any) => c.login);
    expect(logins).not.toContain('acme-x');
    expect(logins).not.toContain('acme-rich');
    expect((await s.call('/api/client/provision', { json: { login: 'acme-rich', password: 'sub-password-1', balance: 1 } })).status).toBe(
      200,
    );
  });

  // Requests that come in together all pass the checks made before the password's hash; the
  // transaction that creates the client decides, and answers the others as the checks would.
  it('answers two provisions of one login at once with one client and one 409 at login', async () => {
    const before = await balanceOf();
    const provision = () => s.call('/api/client/provision', { json: { login: 'acme-twin', password: 'sub-password-1', balance: 1 } });
    const answers = await Promise.all([provision(), provision()]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await json(answers.find((r) => r.status === 409)!)).toMatchObject({
      error: 'conflict',
      status: 409,
      details: [{ path: 'login', message: 'taken' }],
    });
    const made = await json(answers.find((r) => r.status === 200)!);
    expect(await balanceOf(made.apiKey)).toBe(1);
    expect(await balanceOf()).toBeCloseTo(before - 1, 6);
    const clients = await json(await s.call('/api/client/clients'));
    expect(clients.filter((c: any) => c.login === 'acme-twin')).toHaveLength(1);
  });

  it('refuses with 402 the one of two provisions at once that the balance no longer covers, creating nothing of it', async () => {
    const before = await balanceOf();
    const opening = Math.floor(before * 0.6);
    const provision = (login: string, balance = opening) =>
      s.call('/api/client/provision', { json: { login, password: 'sub-password-1', balance } });
    const answers = await Promise.all([provision('acme-big-1'), provision('acme-big-2')]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 402]);
    const refused = answers[0]!.status === 402 ? 'acme-big-1' : 'acme-big-2';
    expect(await json(answers.find((r) => r.status === 402)!)).toMatchObject({ error: 'payment_required', status: 402 });
    expect(await balanceOf()).toBeCloseTo(before - opening, 6);
    // Nothing of it: not listed, and its login free for the retry within the parent's means.
    expect((await json(await s.call('/api/client/clients'))).map((c: any) => c.login)).not.toContain(refused);
    expect((await provision(refused, 1)).status).toBe(200);
  });
});

describe('POST /api/client/{referralId}', () => {
  const referralId = '0b7f7a55-9d3c-4f0e-8b4a-5d1f2a3c4e5f';

  it('registers a referred client once per referral id and lists it', async () => {
    const res = await s.call(`/api/client/${referralId}`, {
      json: { login: 'friend', password: 'friend-password', email: 'f@example.com' },
    });
    expect(res.status).toBe(200);
    const id = await json(res);
    expect(id).toMatch(/^\d+$/);
    // A replay answers the same client; the referral id cannot name another one.
    expect(await json(await s.call(`/api/client/${referralId}`, { json: { login: 'friend', password: 'friend-password' } }))).toBe(id);
    expect((await s.call(`/api/client/${referralId}`, { json: { login: 'other', password: 'friend-password' } })).status).toBe(409);

    const referred = await json(await s.call('/api/client/clients?kind=referral'));
    expect(referred).toEqual([
      expect.objectContaining({ clientId: Number(id), login: 'friend', kind: 'referral', referralId, balance: 0 }),
    ]);
    const basic = `Basic ${Buffer.from('friend:friend-password').toString('base64')}`;
    expect(await json(await s.call('/bat/balance', { auth: 'none', headers: { authorization: basic } }))).toMatchObject({ balance: 0 });
    // The referred client sees none of the referrer's records.
    expect(await json(await s.call('/organizations', { auth: 'none', headers: { authorization: basic } }))).toEqual([]);
  });

  it('refuses a path that is no UUID, bad bodies and missing credentials', async () => {
    const res = await s.call('/api/client/not-a-uuid', { json: { login: 'friend2', password: 'friend-password' } });
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([{ path: 'referralId', message: 'must be a UUID' }]);
    expect((await s.call(`/api/client/${crypto.randomUUID()}`, { json: { login: 'friend2' } })).status).toBe(400);
    expect(
      (await s.call(`/api/client/${crypto.randomUUID()}`, { auth: 'none', json: { login: 'friend2', password: 'friend-password' } }))
        .status,
    ).toBe(401);
    expect((await s.call('/api/client/clients?kind=all')).status).toBe(400);
  });
});

describe('organizations', () => {
  it('adds organizations through both routes and lists them in pages', async () => {
    const one = await s.call('/api/client/organization', {
      json: { name: 'Acme Trading', taxId: '7700000002', address: 'Main st 1', email: 'legal@acme.example', phone: '+79990000000' },
    });
    expect(one.status).toBe(200);
    expect(await json(one)).toMatchObject({ name: 'Acme Trading', taxId: '7700000002', address: 'Main st 1', email: 'legal@acme.example' });
    for (let i = 3; i <= 6; i++)
      expect((await s.call('/organizations', { json: { name: `Acme ${i}`, taxId: `770000000${i}` } })).status).toBe(200);

    const page = await s.call('/organizations?page=2&pageSize=2');
    expect(page.status).toBe(200);
    expect(page.headers.get('x-total-count')).toBe('6');
    const items = await json(page);
    expect(items.map((o: any) => o.name)).toEqual(['Acme 3', 'Acme 4']);
    expect(Object.keys(items[0]).sort()).toEqual(['id', 'name', 'taxId']);
    // The wallet's spelling of the same parameters pages the same, rather than being ignored.
    expect((await json(await s.call('/organizations?Page=2&PageSize=2'))).map((o: any) => o.name)).toEqual(['Acme 3', 'Acme 4']);
    expect((await json(await s.call('/api/AlphaName/wallet/info?page=1&pageSize=1'))).items).toHaveLength(1);
  });

  it('refuses a taken tax id, bad input and missing credentials, storing nothing', async () => {
    expect((await s.call('/organizations', { json: { name: 'Dup', taxId: '7700000002' } })).status).toBe(409);
    const bad = await s.call('/api/client/organization', { json: { name: '', taxId: '1', email: 'nope' } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['email', 'name', 'taxId']);
    expect((await s.call('/organizations?pageSize=0')).status).toBe(400);
    expect((await s.call('/organizations', { auth: 'none' })).status).toBe(401);
    expect((await s.call('/organizations', { auth: 'none', json: { name: 'X', taxId: '12345' } })).status).toBe(401);
    expect((await s.call('/organizations?pageSize=1000')).headers.get('x-total-count')).toBe('6');
  });
});
