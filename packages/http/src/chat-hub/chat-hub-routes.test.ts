import { Hono } from 'hono';
import { SignJWT, base64url, decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { SpillwayError } from '@spillway/core';
import { ACME, GLOBEX, createHarness } from './test-fixtures.ts';
import type { Harness } from './test-fixtures.ts';
import { requireClientToken } from './token-auth.ts';
import type { ClientAuthEnv } from './token-auth.ts';

const HOUR = 3600_000;
let h: Harness;

function call(
  method: string,
  path: string,
  options: { token?: string; keyHeader?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.keyHeader) headers['x-authorization-key'] = options.keyHeader;
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return h.app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
}

async function companyToken(login = 'acme', password = 'acme-pass'): Promise<string> {
  const res = await call('POST', '/api/company/get-token', { body: { login, password } });
  expect(res.status).toBe(200);
  return (await res.json()) as string;
}

async function createOperator(token: string, name = 'Ann'): Promise<{ id: number; name: string }> {
  const res = await call('POST', '/api/company/operators', { token, body: { name } });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: number; name: string };
}

async function operatorToken(token: string, id: number, expiresAt = h.clock.now() + HOUR): Promise<string> {
  const res = await call('POST', '/api/operator/get-token', { token, body: { id, expiresAt: new Date(expiresAt).toISOString() } });
  expect(res.status).toBe(200);
  return (await res.json()) as string;
}

const validate = async (company: string, token: string) =>
  (await (await call('POST', '/api/operator/validate-token', { token: company, body: { token } })).json()) as Record<string, unknown>;

beforeEach(() => {
  h = createHarness();
});

describe('POST /api/company/get-token', () => {
  it('answers a JSON string holding a company JWT', async () => {
    const token = await companyToken();
    expect(decodeJwt(token)).toMatchObject({ tt: 'company', cid: ACME.id });
  });

  it('answers 401 to wrong credentials', async () => {
    const res = await call('POST', '/api/company/get-token', { body: { login: 'acme', password: 'nope' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unauthorized', status: 401 });
    expect((await call('POST', '/api/company/get-token', { body: { login: 'ghost', password: 'x' } })).status).toBe(401);
  });

  it('answers 400 with every bad path, and 400 to a body that is not JSON', async () => {
    const res = await call('POST', '/api/company/get-token', { body: { login: 5 } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: Array<{ path: string }> };
    expect(body.details.map((d) => d.path).sort()).toEqual(['login', 'password']);
    const bad = await call('POST', '/api/company/get-token', { raw: '{"login":' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'bad_request' });
  });
});

describe('company token headers', () => {
  it('accepts the company token as Bearer and as X-Authorization-Key', async () => {
    const token = await companyToken();
    for (const res of [
      await call('GET', '/api/company/organization', { token }),
      await call('GET', '/api/company/organization', { keyHeader: token }),
    ]) {
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: ACME.id, clientId: ACME.id, name: 'Acme', login: 'acme' });
    }
  });

  it('answers 401 to a missing, malformed or non-Bearer token', async () => {
    expect((await call('GET', '/api/company/organization')).status).toBe(401);
    expect((await call('GET', '/api/company/organization', { token: 'abc.def.ghi' })).status).toBe(401);
    expect((await call('GET', '/api/company/organization', { headers: { authorization: 'Basic YWNtZTphY21lLXBhc3M=' } })).status).toBe(401);
    expect((await call('GET', '/api/company/organization', { headers: { authorization: 'Bearer' } })).status).toBe(401);
  });

  it('answers 403 to an operator token and to a revoked company token', async () => {
    const company = await companyToken();
    const op = await operatorToken(company, (await createOperator(company)).id);
    const res = await call('GET', '/api/company/organization', { token: op });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'forbidden', status: 403 });
    expect((await call('POST', '/api/company/revoke-token', { token: company })).status).toBe(200);
    expect((await call('GET', '/api/company/organization', { token: company })).status).toBe(403);
  });
});

describe('operators', () => {
  it('creates, lists and removes operators of the caller company only', async () => {
    const acme = await companyToken();
    const globex = await companyToken('globex', 'globex-pass');
    const ann = await createOperator(acme, 'Ann');
    expect(ann).toEqual({ id: expect.any(Number), name: 'Ann' });
    await createOperator(globex, 'Gus');
    const list = (await (await call('GET', '/api/company/operators', { token: acme })).json()) as Array<{ name: string }>;
    expect(list.map((o) => o.name)).toEqual(['Ann']);

    expect((await call('DELETE', `/api/company/operators/${ann.id}`, { token: globex })).status).toBe(403);
    expect((await call('DELETE', `/api/company/operators/${ann.id}`, { token: acme })).status).toBe(204);
    expect((await call('DELETE', `/api/company/operators/${ann.id}`, { token: acme })).status).toBe(404);
    expect((await call('DELETE', '/api/company/operators/abc', { token: acme })).status).toBe(400);
    expect(await (await call('GET', '/api/company/operators', { token: acme })).json()).toEqual([]);
  });

  it('requires a name and a company token', async () => {
    const acme = await companyToken();
    const res = await call('POST', '/api/company/operators', { token: acme, body: { name: ' ' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ details: [{ path: 'name' }] });
    expect((await call('POST', '/api/company/operators', { body: { name: 'Ann' } })).status).toBe(401);
  });
});

describe('POST /api/operator/get-token', () => {
  it('answers an operator JWT valid until expiresAt', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    const expiresAt = h.clock.now() + 2 * HOUR;
    const token = await operatorToken(acme, ann.id, expiresAt);
    expect(decodeJwt(token)).toMatchObject({ tt: 'operator', oid: ann.id, cid: ACME.id, exp: expiresAt / 1000 });
  });

  it('accepts exactly 24 hours and an offset or offset-less date-time', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    await operatorToken(acme, ann.id, h.clock.now() + 24 * HOUR);
    const local = new Date(h.clock.now() + HOUR).toISOString().replace('Z', '');
    const res = await call('POST', '/api/operator/get-token', { token: acme, body: { id: ann.id, expiresAt: local } });
    expect(decodeJwt((await res.json()) as string).exp).toBe((h.clock.now() + HOUR) / 1000);
    const offset = await call('POST', '/api/operator/get-token', {
      token: acme,
      body: { id: ann.id, expiresAt: '2026-01-01T03:00:00+02:00' },
    });
    expect(decodeJwt((await offset.json()) as string).exp).toBe(Date.UTC(2026, 0, 1, 1) / 1000);
    // The forms every time field of the API takes: no seconds, an offset without its colon.
    const short = await call('POST', '/api/operator/get-token', { token: acme, body: { id: ann.id, expiresAt: '2026-01-01T03:00+0200' } });
    expect(decodeJwt((await short.json()) as string).exp).toBe(Date.UTC(2026, 0, 1, 1) / 1000);
  });

  it('answers 400 to expiresAt in the past, more than 24 hours ahead, or not a date-time', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    for (const expiresAt of [
      new Date(h.clock.now() - 1000).toISOString(),
      new Date(h.clock.now()).toISOString(),
      new Date(h.clock.now() + 24 * HOUR + 1000).toISOString(),
      'tomorrow',
    ]) {
      const res = await call('POST', '/api/operator/get-token', { token: acme, body: { id: ann.id, expiresAt } });
      expect(res.status, expiresAt).toBe(400);
      expect(await res.json()).toMatchObject({ details: [{ path: 'expiresAt' }] });
    }
  });

  it('answers 400 to a missing id, 404 to an unknown operator and 403 to another company operator', async () => {
    const acme = await companyToken();
    const globex = await companyToken('globex', 'globex-pass');
    const gus = await createOperator(globex, 'Gus');
    const expiresAt = new Date(h.clock.now() + HOUR).toISOString();
    const missing = await call('POST', '/api/operator/get-token', { token: acme, body: { expiresAt } });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ details: [{ path: 'id' }] });
    expect((await call('POST', '/api/operator/get-token', { token: acme, body: { id: 999, expiresAt } })).status).toBe(404);
    expect((await call('POST', '/api/operator/get-token', { token: acme, body: { id: gus.id, expiresAt } })).status).toBe(403);
  });

  it('answers 401 without a token and 403 to an operator token', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    const body = { id: ann.id, expiresAt: new Date(h.clock.now() + HOUR).toISOString() };
    expect((await call('POST', '/api/operator/get-token', { body })).status).toBe(401);
    const op = await operatorToken(acme, ann.id);
    expect((await call('POST', '/api/operator/get-token', { token: op, body })).status).toBe(403);
  });
});

describe('POST /api/operator/validate-token', () => {
  it('describes a valid operator token', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    const expiresAt = h.clock.now() + HOUR;
    expect(await validate(acme, await operatorToken(acme, ann.id, expiresAt))).toEqual({
      isValid: true,
      operatorId: ann.id,
      clientId: ACME.id,
      expiresAt: new Date(expiresAt).toISOString(),
      error: null,
    });
  });

  it('answers isValid false with an error text to invalid, expired, tampered, alg none and revoked tokens', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    const token = await operatorToken(acme, ann.id);
    const [header, payload, signature] = token.split('.');
    const claims = decodeJwt(token);
    const tampered = `${header}.${base64url.encode(JSON.stringify({ ...claims, oid: 77 }))}.${signature}`;
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.`;
    const otherSecret = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'k-x' }).sign(new Uint8Array(32));
    for (const bad of ['garbage', tampered, none, otherSecret]) {
      const res = await validate(acme, bad);
      expect(res.isValid, bad).toBe(false);
      expect(typeof res.error).toBe('string');
    }

    const revoked = await operatorToken(acme, ann.id);
    expect((await call('POST', '/api/company/revoke-token', { token: acme, body: { token: revoked } })).status).toBe(200);
    expect(await validate(acme, revoked)).toMatchObject({ isValid: false, error: 'token has been revoked' });
    expect(await validate(acme, token)).toMatchObject({ isValid: true });

    await h.clock.advance(HOUR + 31_000);
    expect(await validate(acme, token)).toMatchObject({ isValid: false, error: 'token has expired', operatorId: ann.id });
  });

  it('tells nothing about another company token and refuses company tokens', async () => {
    const acme = await companyToken();
    const globex = await companyToken('globex', 'globex-pass');
    const gus = await operatorToken(globex, (await createOperator(globex, 'Gus')).id);
    expect(await validate(acme, gus)).toEqual({
      isValid: false,
      operatorId: null,
      clientId: null,
      expiresAt: null,
      error: 'token belongs to another company',
    });
    expect(await validate(acme, acme)).toMatchObject({ isValid: false, error: 'token is a company token, not an operator token' });
  });

  it('answers 401 without a company token and 400 without a token to validate', async () => {
    expect((await call('POST', '/api/operator/validate-token', { body: { token: 'x' } })).status).toBe(401);
    expect((await call('POST', '/api/operator/validate-token', { token: await companyToken(), body: {} })).status).toBe(400);
  });
});

describe('GET /api/operator', () => {
  it('answers the operator of an operator token', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    const expiresAt = h.clock.now() + HOUR;
    const res = await call('GET', '/api/operator', { token: await operatorToken(acme, ann.id, expiresAt) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: ann.id, name: 'Ann', clientId: ACME.id, expiresAt: new Date(expiresAt).toISOString() });
  });

  it('answers 403 to a company token, a revoked token and a deleted operator', async () => {
    const acme = await companyToken();
    const ann = await createOperator(acme);
    expect((await call('GET', '/api/operator', { token: acme })).status).toBe(403);
    // X-Authorization-Key carries company and client tokens only: the answer says where this one goes.
    const keyHeader = await call('GET', '/api/operator', { keyHeader: await operatorToken(acme, ann.id) });
    expect(keyHeader.status).toBe(401);
    expect(await keyHeader.json()).toMatchObject({
      message: expect.stringMatching(/Authorization: Bearer <token>", not X-Authorization-Key/),
    });
    const revoked = await operatorToken(acme, ann.id);
    await call('POST', '/api/company/revoke-token', { token: acme, body: { token: revoked } });
    expect((await call('GET', '/api/operator', { token: revoked })).status).toBe(403);
    const token = await operatorToken(acme, ann.id);
    await call('DELETE', `/api/company/operators/${ann.id}`, { token: acme });
    expect((await call('GET', '/api/operator', { token })).status).toBe(403);
  });

  it('answers 401 to a missing, malformed or expired token, from the moment it expires', async () => {
    const acme = await companyToken();
    const token = await operatorToken(acme, (await createOperator(acme)).id, h.clock.now() + HOUR);
    expect((await call('GET', '/api/operator')).status).toBe(401);
    expect((await call('GET', '/api/operator', { token: 'x.y.z' })).status).toBe(401);
    // Operator tokens go in Authorization only.
    expect((await call('GET', '/api/operator', { keyHeader: token })).status).toBe(401);
    await h.clock.advance(HOUR - 1_000);
    expect((await call('GET', '/api/operator', { token })).status).toBe(200);
    await h.clock.advance(1_000);
    expect((await call('GET', '/api/operator', { token })).status).toBe(401);
  });
});

describe('POST /api/company/revoke-token', () => {
  it('refuses another company token with 403 and a forged one with 400', async () => {
    const acme = await companyToken();
    const globex = await companyToken('globex', 'globex-pass');
    expect((await call('POST', '/api/company/revoke-token', { token: acme, body: { token: globex } })).status).toBe(403);
    expect((await call('GET', '/api/company/organization', { token: globex })).status).toBe(200);
    expect((await call('POST', '/api/company/revoke-token', { token: acme, body: { token: 'forged' } })).status).toBe(400);
  });

  it('revokes another company token of the same account, leaving the caller token valid', async () => {
    const a = await companyToken();
    const b = await companyToken();
    const res = await call('POST', '/api/company/revoke-token', { token: a, body: { token: b } });
    expect(await res.json()).toMatchObject({ revoked: true, type: 'company' });
    expect((await call('GET', '/api/company/organization', { token: b })).status).toBe(403);
    expect((await call('GET', '/api/company/organization', { token: a })).status).toBe(200);
  });
});

describe('key rotation over HTTP', () => {
  it('keeps old company tokens working after rotate and refuses them with 401 after retire', async () => {
    const old = await companyToken();
    const oldKid = (await h.tokens.listKeys())[0]!.kid;
    await h.tokens.rotate();
    const fresh = await companyToken();
    expect((await call('GET', '/api/company/organization', { token: old })).status).toBe(200);
    await h.tokens.retire(oldKid);
    expect((await call('GET', '/api/company/organization', { token: old })).status).toBe(401);
    expect((await call('GET', '/api/company/organization', { token: fresh })).status).toBe(200);
  });
});

describe('POST /api/auth and requireClientToken', () => {
  function clientApp(): Hono<ClientAuthEnv> {
    const app = new Hono<ClientAuthEnv>();
    app.onError((err, c) => (err instanceof SpillwayError ? c.json(err.toJSON(), err.status as 400) : c.json({ error: 'internal' }, 500)));
    app.route('/', h.app);
    app.get('/api/clientsenders', requireClientToken({ engine: h.engine, tokens: h.tokens }), (c) =>
      c.json({ login: c.var.account.login }),
    );
    return app;
  }

  it('issues a client token the client-management endpoints accept, as Bearer or X-Authorization-Key', async () => {
    const app = clientApp();
    const res = await app.request('/api/auth', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'globex', password: 'globex-pass' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; expiresAt: string; tokenType: string; expiresIn: number };
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, expiresAt: new Date(h.clock.now() + HOUR).toISOString() });
    const variants: Array<Record<string, string>> = [{ authorization: `Bearer ${body.token}` }, { 'x-authorization-key': body.token }];
    for (const headers of variants) {
      const ok = await app.request('/api/clientsenders', { headers });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ login: GLOBEX.login });
    }
    await h.clock.advance(HOUR + 31_000);
    expect((await app.request('/api/clientsenders', { headers: { authorization: `Bearer ${body.token}` } })).status).toBe(401);
  });

  it('answers 401 to wrong credentials and no token, 403 to a company token', async () => {
    const app = clientApp();
    expect(
      (
        await app.request('/api/auth', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ login: 'globex', password: 'x' }),
        })
      ).status,
    ).toBe(401);
    expect((await app.request('/api/clientsenders')).status).toBe(401);
    const company = await companyToken();
    expect((await app.request('/api/clientsenders', { headers: { authorization: `Bearer ${company}` } })).status).toBe(403);
  });
});
