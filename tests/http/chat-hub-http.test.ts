import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN, PASSWORD, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const post = (path: string, json: unknown, headers: Record<string, string> = {}) => s.call(path, { json, headers, auth: 'none' });
const get = (path: string, headers: Record<string, string> = {}) => s.call(path, { headers, auth: 'none' });

async function companyToken(): Promise<string> {
  const res = await post('/api/company/get-token', { login: LOGIN, password: PASSWORD });
  expect(res.status).toBe(200);
  return (await res.json()) as string;
}

describe('chat hub tokens over HTTP', () => {
  it('issues a company token as a JSON string; wrong credentials are 401', async () => {
    const token = await companyToken();
    expect(token.split('.')).toHaveLength(3);
    expect((await post('/api/company/get-token', { login: LOGIN, password: 'wrong' })).status).toBe(401);
  });

  it('runs the operator lifecycle: create, token, validate, read, revoke', async () => {
    const company = await companyToken();
    const created = await post('/api/company/operators', { name: 'Alice' }, bearer(company));
    expect(created.status).toBe(200);
    const operator = (await created.json()) as { id: number; name: string };
    expect(operator).toEqual({ id: expect.any(Number), name: 'Alice' });

    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const opRes = await post('/api/operator/get-token', { id: operator.id, expiresAt }, { 'x-authorization-key': company });
    expect(opRes.status).toBe(200);
    const opToken = (await opRes.json()) as string;

    const valid = (await (await post('/api/operator/validate-token', { token: opToken }, bearer(company))).json()) as Record<
      string,
      unknown
    >;
    expect(valid).toMatchObject({ isValid: true, operatorId: operator.id, error: null });
    expect(Date.parse(valid['expiresAt'] as string)).toBe(Math.floor(Date.parse(expiresAt) / 1000) * 1000);

    expect(await (await get('/api/operator', bearer(opToken))).json()).toMatchObject({ id: operator.id, name: 'Alice' });
    expect((await get('/api/company/organization', bearer(company))).status).toBe(200);
    // A token of the other type is 403; none or a malformed one is 401.
    expect((await get('/api/operator', bearer(company))).status).toBe(403);
    expect((await get('/api/company/organization', bearer(opToken))).status).toBe(403);
    expect((await get('/api/company/organization')).status).toBe(401);
    expect((await get('/api/company/organization', bearer('not.a.jwt'))).status).toBe(401);

    const revoked = await post('/api/company/revoke-token', { token: opToken }, bearer(company));
    expect(revoked.status).toBe(200);
    expect((await get('/api/operator', bearer(opToken))).status).toBe(403);
    const after = (await (await post('/api/operator/validate-token', { token: opToken }, bearer(company))).json()) as Record<
      string,
      unknown
    >;
    expect(after['isValid']).toBe(false);
    expect(after['error']).toEqual(expect.any(String));
  });

  it('refuses operator tokens beyond 24 hours or in the past (400), missing ids (400) and no token (401)', async () => {
    const company = await companyToken();
    const op = (await (await post('/api/company/operators', { name: 'Bob' }, bearer(company))).json()) as { id: number };
    const in25h = new Date(Date.now() + 25 * 3_600_000).toISOString();
    const past = new Date(Date.now() - 60_000).toISOString();
    expect((await post('/api/operator/get-token', { id: op.id, expiresAt: in25h }, bearer(company))).status).toBe(400);
    expect((await post('/api/operator/get-token', { id: op.id, expiresAt: past }, bearer(company))).status).toBe(400);
    expect((await post('/api/operator/get-token', { expiresAt: in25h }, bearer(company))).status).toBe(400);
    expect((await post('/api/operator/get-token', { id: op.id, expiresAt: past })).status).toBe(401);
  });

  it('refuses an operator of another company with 403', async () => {
    const other = await s.server.engine.accounts.create({ login: 'globex', password: 'globex-password' });
    void other;
    const globex = (await (await post('/api/company/get-token', { login: 'globex', password: 'globex-password' })).json()) as string;
    const mine = (await (await post('/api/company/operators', { name: 'Carol' }, bearer(await companyToken()))).json()) as { id: number };
    const res = await post(
      '/api/operator/get-token',
      { id: mine.id, expiresAt: new Date(Date.now() + 60_000).toISOString() },
      bearer(globex),
    );
    expect(res.status).toBe(403);
  });

  it('issues a client token with POST /api/auth that the client-management endpoints accept', async () => {
    const res = await post('/api/auth', { login: LOGIN, password: PASSWORD });
    expect(res.status).toBe(200);
    const { token } = (await res.json()) as { token: string; tokenType: string };
    expect((await post('/api/auth', { login: LOGIN, password: 'nope' })).status).toBe(401);
    // As Bearer and as X-Authorization-Key, on the wallet history and the rest of the API.
    expect((await get('/api/AlphaName/wallet/info', bearer(token))).status).toBe(200);
    expect((await get('/api/AlphaName/wallet/info', { 'x-authorization-key': token })).status).toBe(200);
    expect((await get('/bat/balance', bearer(token))).status).toBe(200);
    // A company token is genuine but of another type: 403; a forged one proves nothing: 401.
    expect((await get('/bat/balance', bearer(await companyToken()))).status).toBe(403);
    expect((await get('/bat/balance', bearer(`${token.slice(0, -4)}AAAA`))).status).toBe(401);
  });

  it('keeps tokens valid across a signing-key rotation until the old key is retired', async () => {
    const before = await companyToken();
    const [oldKey] = await s.server.tokens.listKeys();
    await s.server.tokens.rotate();
    const after = await companyToken();
    expect((await get('/api/company/organization', bearer(before))).status).toBe(200);
    await s.server.tokens.retire(oldKey!.kid);
    expect((await get('/api/company/organization', bearer(before))).status).toBe(401);
    expect((await get('/api/company/organization', bearer(after))).status).toBe(200);
  });

  it('applies the data rate limit of section 8 to token-authenticated requests', async () => {
    const account = await s.server.engine.accounts.create({ login: 'busy', password: 'busy-password' });
    await s.server.engine.accounts.setRateLimit(account.id, 'data', { perSecond: 1, burst: 1 });
    const token = (await (await post('/api/company/get-token', { login: 'busy', password: 'busy-password' })).json()) as string;
    expect((await get('/api/company/organization', bearer(token))).status).toBe(200);
    const limited = await get('/api/company/organization', bearer(token));
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited', status: 429 });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('locks a login after repeated wrong passwords, on the chat hub and the messaging API alike', async () => {
    const tries = async (n: number, send: () => Promise<Response>) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) statuses.push((await send()).status);
      return statuses;
    };
    await s.server.engine.accounts.create({ login: 'guessed', password: 'guessed-password' });
    const wrong = `Basic ${Buffer.from('guessed:wrong-password').toString('base64')}`;
    // 5 free failures, the 6th starts a lock: the 7th is refused before any password is checked.
    const basic = await tries(6, () => s.call('/bat/balance', { auth: 'none', headers: { authorization: wrong } }));
    expect(basic).toEqual([401, 401, 401, 401, 401, 401]);
    const grant = await post('/api/company/get-token', { login: 'guessed', password: 'guessed-password' });
    expect(grant.status).toBe(429);
    expect(Number(grant.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await grant.json()).toMatchObject({ error: 'rate_limited', status: 429 });
    // Another login is not concerned.
    expect((await post('/api/company/get-token', { login: LOGIN, password: PASSWORD })).status).toBe(200);
  });
});
