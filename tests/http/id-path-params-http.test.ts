import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasClientStorage } from '@spillway/core/storage';
import { LOGIN, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// Every id path parameter is a plain positive integer: digits only, at most 15. The sender
// decision and e-mail routes coerced theirs with Number(), so `0x1`, `1e0`, ` 1 ` or `1.0` named
// record 1 there, while the newer routes answered 400. A regression test of that.

const ADMIN_KEY = 'admin-key-0123456789abcdef';

let s: RunningFixture;
let ids: { application: number; email: number; organization: number; client: number; account: number };
beforeAll(async () => {
  s = await startServer({ SPILLWAY_ADMIN_KEY: ADMIN_KEY });
  const application = await json(
    await s.call('/api/AlphaName/sms/application', {
      json: { alphaName: 'HexShop', companyName: 'Shop Ltd', description: 'Order notifications' },
    }),
  );
  const storage = s.server.storage;
  if (!hasClientStorage(storage)) throw new Error('the server keeps client records');
  const account = (await storage.findAccountByLogin(LOGIN))!.account.id;
  const email = await storage.createEmail({ accountId: account, from: 'no-reply@acme.example', to: ['a@example.com'], subject: 'Hi' }, 1);
  const organization = await json(await s.call('/organizations', { json: { name: 'Hex Ltd', taxId: '7700000099' } }));
  const client = await json(await s.call('/api/client/provision', { json: { login: 'hex-shop', password: 'sub-password-1' } }));
  ids = { application: application.id, email: email.id, organization: organization.id, client: client.clientId, account };
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const admin = (path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { auth: 'none', ...init, headers: { 'x-admin-key': ADMIN_KEY } });

/** Each route with an id path parameter, called with `id` in that parameter's place. */
const routes: Array<[string, (id: string) => Promise<Response>, keyof typeof ids, string]> = [
  ['GET /api/email/{id}', (id) => s.call(`/api/email/${id}`), 'email', 'id'],
  [
    'POST /admin/sender-applications/{id}/decision',
    (id) => admin(`/admin/sender-applications/${id}/decision`, { json: { status: 'rejected', reason: 'hex' } }),
    'application',
    'id',
  ],
  ['DELETE /organizations/{id}', (id) => s.call(`/organizations/${id}`, { method: 'DELETE' }), 'organization', 'id'],
  [
    'POST /api/client/clients/{clientId}/transfer',
    (id) => s.call(`/api/client/clients/${id}/transfer`, { json: { amount: 1 } }),
    'client',
    'clientId',
  ],
  ['GET /admin/accounts/{accountId}/alpha-names', (id) => admin(`/admin/accounts/${id}/alpha-names`), 'account', 'accountId'],
];

/** Spellings that Number() reads as `id` but that are no plain id. */
const spellings = (id: number) => [`0x${id.toString(16)}`, `${id}e0`, `%20${id}%20`, `${id}.0`, `+${id}`, `0${id}`];

describe('id path parameters', () => {
  it.each(routes)(
    '%s answers 400 at the parameter for 0x10, 1e1 and the other spellings of a number, as for a word',
    async (_, call, record, param) => {
      const word = await call('abc');
      const expected = await json(word);
      const spelled = ['0x10', '1e1', ...spellings(ids[record])];
      const answers = [];
      for (const id of spelled) {
        const res = await call(id);
        answers.push({ id, status: res.status, body: await json(res) });
      }
      expect(answers).toEqual(spelled.map((id) => ({ id, status: 400, body: expected })));
      expect([word.status, expected]).toEqual([
        400,
        {
          error: 'validation_failed',
          status: 400,
          message: expect.any(String),
          details: [{ path: param, message: 'must be a positive integer' }],
        },
      ]);
    },
  );

  it('left the records those spellings named untouched, and the plain ids still reach them', async () => {
    expect(await json(await s.call(`/api/email/${ids.email}`))).toMatchObject({ id: ids.email, subject: 'Hi' });
    const apps = await json(await admin('/admin/sender-applications?status=pending'));
    expect(apps.map((a: any) => a.id)).toContain(ids.application);
    const decided = await admin(`/admin/sender-applications/${ids.application}/decision`, { json: { status: 'rejected', reason: 'x' } });
    expect(decided.status).toBe(200);
  });
});
