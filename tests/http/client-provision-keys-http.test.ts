import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { serverOnTestDatabase } from '../support/test-database.ts';

// A new user provisioned a sub-client, lost the answer, and retried with the same Idempotency-Key:
// it was told the login was taken, the opening balance had moved, and the API key (shown once)
// was gone, with no way to issue another. SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres.
const s = serverOnTestDatabase('provision_keys');

const json = async (res: Response) => (await res.json()) as any;
const as = (key: string, path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { ...init, headers: { 'x-authorization-key': key, ...(init.headers as Record<string, string>) } });
const provision = (body: unknown, key?: string, apiKey?: string) =>
  s.call('/api/client/provision', {
    json: body,
    headers: { ...(key === undefined ? {} : { 'idempotency-key': key }), ...(apiKey ? { 'x-authorization-key': apiKey } : {}) },
  });
const balanceOf = async (key?: string) => (await json(key ? await as(key, '/bat/balance') : await s.call('/bat/balance'))).balance;
const sms = { messages: [{ from: 'Acme', to: '99900000000', text: 'Hello', type: 'sms' }] };
const subClients = async () => (await json(await s.call('/api/client/clients?kind=sub'))).map((c: any) => c.login);

describe(`POST /api/client/provision with an Idempotency-Key (${s.database.label})`, () => {
  it('answers the same client to a retry, replayed, with apiKey null and a note, and moves the opening balance once', async () => {
    const body = { login: 'shop-idem', password: 'shop-password-1', name: 'Shop', balance: 25, alphaNames: ['Acme'] };
    const before = await balanceOf();
    const first = await provision(body, 'prov-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const made = await json(first);
    expect(made).toEqual({
      clientId: expect.any(Number),
      login: 'shop-idem',
      name: 'Shop',
      currency: 'EUR',
      apiKey: expect.stringMatching(/^sk_/),
      keyId: expect.any(Number),
      balance: 25,
      alphaNames: [{ alphaName: 'Acme', channels: expect.arrayContaining(['sms']) }],
      parentId: expect.any(Number),
    });

    const again = await provision(body, 'prov-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const replayed = await json(again);
    expect(replayed).toEqual({ ...made, apiKey: null, message: expect.stringContaining('shown once') });
    expect(replayed.message).toContain(`/api/client/clients/${made.clientId}/keys`);

    expect(await balanceOf()).toBe(before - 25);
    expect(await balanceOf(made.apiKey)).toBe(25);
    expect((await subClients()).filter((l: string) => l === 'shop-idem')).toHaveLength(1);
  });

  it('refuses the key with another request with 409 naming what differs, creating nothing', async () => {
    const body = { login: 'shop-idem-2', password: 'shop-password-1' };
    expect((await provision(body, 'prov-2')).status).toBe(200);
    const before = await balanceOf();
    const other = await provision({ ...body, login: 'shop-idem-3', balance: 1 }, 'prov-2');
    expect(other.status).toBe(409);
    const error = await json(other);
    expect(error).toMatchObject({ error: 'conflict', status: 409 });
    expect(error.message).toContain("Idempotency-Key 'prov-2'");
    expect(error.details.map((d: any) => d.path)).toEqual(['login', 'balance']);
    expect(await balanceOf()).toBe(before);
    expect(await subClients()).not.toContain('shop-idem-3');
  });

  it('records nothing for a refused request, and refuses a bad key at the header', async () => {
    const body = { login: 'shop-idem-4', password: 'shop-password-1', balance: 1e8 };
    expect((await provision(body, 'prov-3')).status).toBe(402);
    const fine = await provision({ ...body, balance: 1 }, 'prov-3');
    expect(fine.status).toBe(200);
    expect(fine.headers.get('idempotent-replayed')).toBeNull();
    for (const key of ['', 'two words', 'a'.repeat(256)]) {
      const res = await provision({ ...body, login: 'shop-idem-5' }, key);
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error: 'validation_failed', details: [{ path: 'Idempotency-Key' }] });
    }
    expect(await subClients()).not.toContain('shop-idem-5');
  });
});

describe(`the API keys of a sub-client (${s.database.label})`, () => {
  it('issues a new key that sends; the old one works until revoked, then answers 401 at once', async () => {
    const made = await json(await provision({ login: 'shop-keys', password: 'shop-password-1', balance: 5, alphaNames: ['Acme'] }));
    const res = await s.call(`/api/client/clients/${made.clientId}/keys`, { json: { label: 'pos-3' } });
    expect(res.status).toBe(200);
    const issued = await json(res);
    expect(issued).toEqual({
      clientId: made.clientId,
      keyId: expect.any(Number),
      apiKey: expect.stringMatching(/^sk_/),
      label: 'pos-3',
      prefix: issued.apiKey.slice(0, 10),
      createdAt: expect.any(String),
    });
    expect((await as(issued.apiKey, '/bat/messagelist', { json: sms })).status).toBe(200);
    expect((await as(made.apiKey, '/bat/messagelist', { json: sms })).status).toBe(200);

    const listed = await json(await s.call(`/api/client/clients/${made.clientId}/keys`));
    expect(listed.map((k: any) => [k.keyId, k.label])).toEqual([
      [made.keyId, 'provisioned'],
      [issued.keyId, 'pos-3'],
    ]);
    expect(listed[0]).not.toHaveProperty('apiKey');
    // Without a body, as `curl -X POST` sends it (it was a 415 "Content-Type ... got none").
    const bare = await s.call(`/api/client/clients/${made.clientId}/keys`, { method: 'POST' });
    expect(bare.status).toBe(200);
    expect(await json(bare)).toMatchObject({ clientId: made.clientId, apiKey: expect.stringMatching(/^sk_/) });

    const revoked = await s.call(`/api/client/clients/${made.clientId}/keys/${made.keyId}`, { method: 'DELETE' });
    expect(revoked.status).toBe(204);
    const refused = await as(made.apiKey, '/bat/balance');
    expect(refused.status).toBe(401);
    expect((await as(issued.apiKey, '/bat/balance')).status).toBe(200);
    expect((await s.call(`/api/client/clients/${made.clientId}/keys/${made.keyId}`, { method: 'DELETE' })).status).toBe(404);
    expect((await s.call(`/api/client/clients/${made.clientId}/keys`)).status).toBe(200);
  });

  it('answers 404 for an account that is not a sub-client of the caller, and for another account’s key', async () => {
    const child = await json(await provision({ login: 'shop-parent', password: 'shop-password-1' }));
    const grandchild = await json(await provision({ login: 'shop-grandchild', password: 'shop-password-1' }, undefined, child.apiKey));
    const referred = await json(
      await s.call(`/api/client/${crypto.randomUUID()}`, { json: { login: 'shop-friend', password: 'friend-password' } }),
    );
    for (const id of [grandchild.clientId, Number(referred), child.parentId, 999_999]) {
      for (const res of [
        await s.call(`/api/client/clients/${id}/keys`, { json: {} }),
        await s.call(`/api/client/clients/${id}/keys`),
        await s.call(`/api/client/clients/${id}/keys/1`, { method: 'DELETE' }),
      ]) {
        expect(res.status).toBe(404);
        expect(await json(res)).toMatchObject({ error: 'not_found', status: 404 });
      }
    }
    // The grandchild's key named under the caller's own sub-client is not one of its keys.
    expect((await s.call(`/api/client/clients/${child.clientId}/keys/${grandchild.keyId}`, { method: 'DELETE' })).status).toBe(404);
    expect((await as(grandchild.apiKey, '/bat/balance')).status).toBe(200);
    // The grandchild's parent manages its keys.
    expect((await as(child.apiKey, `/api/client/clients/${grandchild.clientId}/keys`, { json: {} })).status).toBe(200);
    expect((await s.call('/api/client/clients/abc/keys', { json: {} })).status).toBe(400);
    expect((await s.call(`/api/client/clients/${child.clientId}/keys/abc`, { method: 'DELETE' })).status).toBe(400);
    expect((await s.call(`/api/client/clients/${child.clientId}/keys`, { json: { label: '' } })).status).toBe(400);
    expect((await s.call(`/api/client/clients/${child.clientId}/keys`, { auth: 'none', json: {} })).status).toBe(401);
  });

  // Two servers (on SQLite, two processes' worth of threads) start here: 16-20 s on a loaded CI machine.
  it('refuses a revoked key at once in another process on the same database', { timeout: 60_000 }, async () => {
    // On PostgreSQL the schema of this file's server; on SQLite a file both processes open.
    const dir = s.database.url ? null : mkdtempSync(join(tmpdir(), 'spillway-client-keys-'));
    const env = dir ? { SPILLWAY_DB: join(dir, 'keys.db') } : s.database.env;
    const a = dir ? await startServer(env) : s;
    const b = await startServer(env);
    try {
      const made = await json(
        await a.call('/api/client/provision', { json: { login: 'shop-two-processes', password: 'shop-password-1' } }),
      );
      const balanceAt = async (p: RunningFixture) =>
        (await p.call('/bat/balance', { headers: { 'x-authorization-key': made.apiKey } })).status;
      expect([await balanceAt(a), await balanceAt(b)]).toEqual([200, 200]);
      const revoked = await a.call(`/api/client/clients/${made.clientId}/keys/${made.keyId}`, { method: 'DELETE' });
      expect(revoked.status).toBe(204);
      expect([await balanceAt(a), await balanceAt(b)]).toEqual([401, 401]);
    } finally {
      await b.close();
      if (dir) {
        await a.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('is in the OpenAPI document: the provisioning’s Idempotency-Key and the key routes', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    const op = doc.paths['/api/client/provision'].post;
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    expect(op.description).toContain('shown once');
    expect(doc.paths['/api/client/clients/{clientId}/keys'].post.operationId).toBe('issueClientKey');
    expect(doc.paths['/api/client/clients/{clientId}/keys'].get.operationId).toBe('listClientKeys');
    expect(doc.paths['/api/client/clients/{clientId}/keys/{keyId}'].delete.operationId).toBe('revokeClientKey');
  });
});
