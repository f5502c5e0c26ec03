import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_KEY, PASSWORD } from '../support/server-fixture.ts';
import { serverOnTestDatabase } from '../support/test-database.ts';

// Logins were case-sensitive: `Shop` and `shop` could be two accounts, and `SHOP` could not sign
// in as `shop`. A login is now one regardless of case, and keeps the spelling it was created with.
// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres.
const s = serverOnTestDatabase('login_case');

const json = async (res: Response) => (await res.json()) as any;
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const provision = (body: unknown) => s.call('/api/client/provision', { json: body });

describe(`logins in any case (${s.database.label})`, () => {
  it('sign in with the login in any case: Basic, POST /api/auth and the chat hub, the account keeping its spelling', async () => {
    // The bootstrap account is `acme`.
    const account = await s.call('/api/account', { auth: 'none', headers: { authorization: basic('ACME', PASSWORD) } });
    expect(account.status).toBe(200);
    expect(await json(account)).toMatchObject({ login: 'acme' });

    const token = await s.call('/api/auth', { auth: 'none', json: { login: 'Acme', password: PASSWORD } });
    expect(token.status).toBe(200);
    const company = await s.call('/api/company/get-token', { auth: 'none', json: { login: 'aCmE', password: PASSWORD } });
    expect(company.status).toBe(200);

    const wrong = await s.call('/api/auth', { auth: 'none', json: { login: 'ACME', password: 'not-the-password' } });
    expect(wrong.status).toBe(401);
  });

  it('refuses to provision a sub-client whose login differs only by case from a taken one: 409 at login, nothing created', async () => {
    const made = await provision({ login: 'Shop-EU', password: 'shop-password-1' });
    expect(made.status).toBe(200);
    const client = await json(made);
    expect(client.login).toBe('Shop-EU');

    for (const login of ['shop-eu', 'SHOP-EU', 'ACME']) {
      const taken = await provision({ login, password: 'shop-password-1' });
      expect(taken.status, login).toBe(409);
      expect(await json(taken)).toMatchObject({ error: 'conflict', details: [{ path: 'login', message: 'taken' }] });
    }
    const subs = (await json(await s.call('/api/client/clients?kind=sub'))).map((c: { login: string }) => c.login);
    expect(subs.filter((l: string) => l.toLowerCase() === 'shop-eu')).toEqual(['Shop-EU']);

    // The sub-client signs in in any case too, and is shown as it was created.
    const signedIn = await s.call('/api/account', { auth: 'none', headers: { authorization: basic('SHOP-eu', 'shop-password-1') } });
    expect(await json(signedIn)).toMatchObject({ clientId: client.clientId, login: 'Shop-EU' });
  });

  it('answers a referral registration again in another case with the same client, and another login differing only by case with 409', async () => {
    const referral = randomUUID();
    const first = await s.call(`/api/client/${referral}`, { json: { login: 'Referred-Shop', password: 'shop-password-1' } });
    expect(first.status).toBe(200);
    const id = await json(first);
    const again = await s.call(`/api/client/${referral}`, { json: { login: 'referred-shop', password: 'shop-password-1' } });
    expect(again.status).toBe(200);
    expect(await json(again)).toBe(id);

    const other = await s.call(`/api/client/${randomUUID()}`, { json: { login: 'REFERRED-SHOP', password: 'shop-password-1' } });
    expect(other.status).toBe(409);
  });

  it('counts failed passwords of a login in any case together: `SHOP` gets no free attempts of its own', async () => {
    expect((await provision({ login: 'Guarded', password: 'guarded-password-1' })).status).toBe(200);
    // 5 free failures per login, then each failure locks it for a second (docs/decisions.md); each in another case.
    for (const login of ['guarded', 'Guarded', 'GUARDED', 'gUarded', 'guArded', 'guaRded']) {
      const res = await s.call('/bat/balance', { auth: 'none', headers: { authorization: basic(login, 'wrong-password') } });
      expect(res.status, login).toBe(401);
    }
    const locked = await s.call('/bat/balance', { auth: 'none', headers: { authorization: basic('GuArDeD', 'guarded-password-1') } });
    expect(locked.status).toBe(429);
    // API keys are never locked.
    expect((await s.call('/bat/balance', { headers: { 'x-authorization-key': API_KEY } })).status).toBe(200);
  });
});
