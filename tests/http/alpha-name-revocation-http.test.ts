import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

const ADMIN_KEY = 'admin-key-0123456789abcdef';

let s: RunningFixture;
let acmeId: number;
beforeAll(async () => {
  // A long simulator latency: a message accepted before the revocation is still on its way after it.
  s = await startServer({ SPILLWAY_ADMIN_KEY: ADMIN_KEY, SPILLWAY_SIMULATOR_LATENCY_MS: '300' });
  const token = await json(await s.call('/api/company/get-token', { auth: 'none', json: { login: 'acme', password: 'acme-password-1' } }));
  acmeId = (await json(await s.call('/api/company/organization', { auth: 'none', headers: { authorization: `Bearer ${token}` } })))
    .clientId;
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const admin = (path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { auth: 'none', ...init, headers: { 'x-admin-key': ADMIN_KEY, ...(init.headers as Record<string, string>) } });
const revoke = (accountId: number | string, body: unknown) => admin(`/admin/accounts/${accountId}/alpha-names/revoke`, { json: body });
const as = (key: string, path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { ...init, headers: { 'x-authorization-key': key } });
const sms = (from: string, to = '99900000000') => ({ messages: [{ from, to, text: 'Hello', type: 'sms' }] });

describe('operator: the alpha-names of an account', () => {
  it('lists them', async () => {
    const res = await admin(`/admin/accounts/${acmeId}/alpha-names`);
    expect(res.status).toBe(200);
    const names = await json(res);
    expect(names.map((a: any) => a.alphaName)).toEqual(['Acme', 'Promo']);
    expect(names[0]).toEqual({ alphaName: 'Acme', channels: expect.arrayContaining(['sms']), callbackUrl: null });
    expect((await admin('/admin/accounts/999999/alpha-names')).status).toBe(404);
    expect((await admin('/admin/accounts/abc/alpha-names')).status).toBe(400);
  });

  it('revokes one: new sends from it are refused at once as from an unapproved name, accepted ones keep going', async () => {
    const app = await json(
      await s.call('/api/AlphaName/sms/application', {
        json: { alphaName: 'Deals', channels: ['sms', 'chatapp'], companyName: 'Acme Ltd', description: 'Promotions' },
      }),
    );
    expect((await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'approved' } })).status).toBe(200);
    const sub = await json(
      await s.call('/api/client/provision', { json: { login: 'acme-eu', password: 'sub-password-1', alphaNames: ['Deals'] } }),
    );

    // Undeliverable on the chat-app (after the latency), then its SMS fallback from the same name: sent after the revocation.
    const fallingBack = {
      messages: [
        {
          from: 'Deals',
          to: '99900000001',
          type: 'chatapp_trans',
          text: 'Hello',
          fallbacks: [{ from: 'Deals', to: '99900000001', type: 'sms', text: 'Hello' }],
        },
      ],
    };
    const before = await s.call('/bat/messagelist', { json: fallingBack });
    expect(before.status).toBe(200);
    const accepted = (await json(before)).messages[0].messageId;

    const res = await revoke(acmeId, { alphaName: 'Deals', reason: 'Trademark complaint' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ alphaName: 'Deals', reason: 'Trademark complaint', applicationIds: [app.id] });
    // The sub-client it was shared with loses it too.
    expect(body.accounts.map((a: any) => a.accountId)).toEqual([acmeId, sub.clientId]);

    // Refused at once, exactly as a name that was never approved.
    const after = await s.call('/bat/messagelist', { json: sms('Deals') });
    const never = await s.call('/bat/messagelist', { json: sms('NeverOurs') });
    expect([after.status, never.status]).toEqual([400, 400]);
    expect((await json(after)).details).toEqual([
      { path: 'messages[0].from', message: 'alpha-name "Deals" is not an approved alpha-name of this account' },
    ]);
    expect((await as(sub.apiKey, '/bat/messagelist', { json: sms('Deals') })).status).toBe(400);
    const cascade = await s.call('/api/CascadeMessage/send_message/async', {
      json: [{ fromName: 'Deals', toPhone: '99900000000', text: 'Hi' }],
    });
    expect(cascade.status).toBe(400);
    // Other names still send.
    expect((await s.call('/bat/messagelist', { json: sms('Acme') })).status).toBe(200);

    // The message accepted before goes on: its fallback from the revoked name is sent and delivered.
    const delivered = await until(
      async () => json(await s.call(`/bat/message/${accepted}`)),
      (st) => st.deliverystatus !== 'processing' && st.deliverystatus !== 'scheduled',
    );
    expect(delivered.deliverystatus).toBe('delivered');
    expect(s.server.simulator.sent.filter((a) => a.to === '99900000001').map((a) => [a.channel, a.from])).toEqual([
      ['chatapp', 'Deals'],
      ['sms', 'Deals'],
    ]);

    // The client sees why; the operator's list no longer has it.
    const senders = await json(await s.call('/api/clientsenders'));
    expect(senders.alphaNames.find((a: any) => a.name === 'Deals')).toMatchObject({
      status: 'revoked',
      reason: 'Trademark complaint',
      applicationId: app.id,
    });
    expect((await json(await admin(`/admin/accounts/${acmeId}/alpha-names`))).map((a: any) => a.alphaName)).toEqual(['Acme', 'Promo']);
    expect((await json(await admin('/admin/sender-applications?status=revoked'))).map((a: any) => a.id)).toEqual([app.id]);

    // Revoked twice: not found. The account may apply for it again.
    expect((await revoke(acmeId, { alphaName: 'Deals', reason: 'again' })).status).toBe(404);
    const again = await s.call('/api/AlphaName/sms/application', {
      json: { alphaName: 'Deals', companyName: 'Acme Ltd', description: 'Promotions' },
    });
    expect(again.status).toBe(200);
  });

  it('refuses unknown accounts and names with 404, bad bodies with 400, and callers without the admin key', async () => {
    expect((await revoke(999_999, { alphaName: 'Acme', reason: 'x' })).status).toBe(404);
    const unknown = await revoke(acmeId, { alphaName: 'Nobody', reason: 'x' });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ error: 'not_found', status: 404 });
    const bad = await revoke(acmeId, { alphaName: '', reason: '  ' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.map((d: any) => d.path).sort()).toEqual(['alphaName', 'reason']);
    expect((await json(await revoke(acmeId, { alphaName: 'Acme' }))).details.map((d: any) => d.path)).toEqual(['reason']);
    expect((await revoke('abc', { alphaName: 'Acme', reason: 'x' })).status).toBe(400);
    const wrongKey = await s.call(`/admin/accounts/${acmeId}/alpha-names/revoke`, {
      auth: 'none',
      json: { alphaName: 'Acme', reason: 'x' },
      headers: { 'x-admin-key': 'wrong' },
    });
    expect(wrongKey.status).toBe(401);
    // The account itself cannot revoke through the operator route.
    expect((await s.call(`/admin/accounts/${acmeId}/alpha-names/revoke`, { json: { alphaName: 'Acme', reason: 'x' } })).status).toBe(401);
    expect((await s.call('/bat/messagelist', { json: sms('Acme') })).status).toBe(200);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    expect(doc.paths['/admin/accounts/{accountId}/alpha-names/revoke'].post.operationId).toBe('revokeAlphaName');
    expect(doc.paths['/admin/accounts/{accountId}/alpha-names'].get.operationId).toBe('listAccountAlphaNames');
  });
});
