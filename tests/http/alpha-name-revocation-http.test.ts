import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { testDatabase } from '../support/test-database.ts';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const database = testDatabase('alpha_revocation');

let s: RunningFixture;
let acmeId: number;
beforeAll(async () => {
  // A long simulator latency: a message accepted before the revocation is still on its way after it.
  // Workers on this thread, on PostgreSQL too: the test reads the simulator's attempts.
  s = await startServer({
    SPILLWAY_ADMIN_KEY: ADMIN_KEY,
    SPILLWAY_SIMULATOR_LATENCY_MS: '300',
    SPILLWAY_WORKER_THREAD: 'false',
    ...database.env,
  });
  const token = await json(await s.call('/api/company/get-token', { auth: 'none', json: { login: 'acme', password: 'acme-password-1' } }));
  acmeId = (await json(await s.call('/api/company/organization', { auth: 'none', headers: { authorization: `Bearer ${token}` } })))
    .clientId;
});
afterAll(async () => {
  await s?.close();
  await database.drop();
});

const json = async (res: Response) => (await res.json()) as any;
const admin = (path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { auth: 'none', ...init, headers: { 'x-admin-key': ADMIN_KEY, ...(init.headers as Record<string, string>) } });
const revoke = (accountId: number | string, body: unknown) => admin(`/admin/accounts/${accountId}/alpha-names/revoke`, { json: body });
const as = (key: string, path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { ...init, headers: { 'x-authorization-key': key } });
const sms = (from: string, to = '99900000000') => ({ messages: [{ from, to, text: 'Hello', type: 'sms' }] });

describe(`operator: the alpha-names of an account (${database.label})`, () => {
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
    expect(body.accounts).toEqual([
      { accountId: acmeId, channels: ['sms', 'chatapp'], channelsLeft: [] },
      { accountId: sub.clientId, channels: ['sms', 'chatapp'], channelsLeft: [] },
    ]);

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

  it('withdraws a name from some channels only: kept on the rest, for the account and its sub-clients alike', async () => {
    const app = await json(
      await s.call('/api/AlphaName/sms/application', {
        json: { alphaName: 'Shop', channels: ['sms', 'chatapp', 'rcs'], companyName: 'Acme Ltd', description: 'Orders' },
      }),
    );
    expect((await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'approved' } })).status).toBe(200);
    const sub = await json(
      await s.call('/api/client/provision', {
        json: { login: 'acme-shop', password: 'sub-password-1', balance: 10, alphaNames: ['Shop'] },
      }),
    );
    const chat = { messages: [{ from: 'Shop', to: '99900000000', text: 'Hello', type: 'chatapp_trans' }] };
    expect((await s.call('/bat/messagelist', { json: chat })).status).toBe(200);

    const res = await revoke(acmeId, { alphaName: 'Shop', reason: 'Chat-app business account closed', channels: ['chatapp'] });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      alphaName: 'Shop',
      reason: 'Chat-app business account closed',
      revokedAt: expect.any(String),
      accounts: [
        { accountId: acmeId, channels: ['chatapp'], channelsLeft: ['sms', 'rcs'] },
        { accountId: sub.clientId, channels: ['chatapp'], channelsLeft: ['sms', 'rcs'] },
      ],
      // Approved on channels still left: the application stays approved.
      applicationIds: [],
    });

    // Refused on the withdrawn channel, from the next request on, as on any channel the name lacks; the rest still send.
    const refused = await s.call('/bat/messagelist', { json: chat });
    expect(refused.status).toBe(400);
    expect((await json(refused)).details).toEqual([
      { path: 'messages[0].from', message: 'alpha-name "Shop" is not approved for channel chatapp' },
    ]);
    expect((await as(sub.apiKey, '/bat/messagelist', { json: chat })).status).toBe(400);
    expect((await s.call('/bat/messagelist', { json: sms('Shop') })).status).toBe(200);
    expect((await as(sub.apiKey, '/bat/messagelist', { json: sms('Shop') })).status).toBe(200);
    // A cascade skips its step on the withdrawn channel and goes on to the next.
    const cascade = await s.call('/api/CascadeMessage/send_message/async', {
      json: [{ fromName: 'Shop', toPhone: '99900000000', text: 'Hi' }],
    });
    expect(cascade.status).toBe(200);
    const [accepted] = await json(cascade);
    const settled = await until(
      async () => json(await s.call(`/api/CascadeMessage/status_guid/${accepted.messageId}`)),
      (st) => st.status !== 'processing' && st.status !== 'scheduled',
    );
    expect(settled).toMatchObject({ status: 'delivered', channel: 'rcs' });
    expect(settled.steps[2]).toMatchObject({
      channel: 'chatapp',
      status: 'skipped',
      error: 'alpha-name "Shop" is not approved on chatapp',
    });

    // The operator's list and the account's own show the channels left.
    const listed = (await json(await admin(`/admin/accounts/${acmeId}/alpha-names`))).find((a: any) => a.alphaName === 'Shop');
    expect(listed).toEqual({ alphaName: 'Shop', channels: ['sms', 'rcs'], callbackUrl: null });
    const senders = await json(await s.call('/api/clientsenders'));
    expect(senders.alphaNames.find((a: any) => a.name === 'Shop')).toMatchObject({
      status: 'approved',
      channels: ['sms', 'rcs'],
      applicationId: app.id,
    });
    expect((await json(await admin(`/admin/accounts/${sub.clientId}/alpha-names`))).map((a: any) => [a.alphaName, a.channels])).toEqual([
      ['Shop', ['sms', 'rcs']],
    ]);

    // 400 for a channel the name no longer has, or an unknown one, or none; nothing is withdrawn.
    const lacking = await revoke(acmeId, { alphaName: 'Shop', reason: 'x', channels: ['sms', 'chatapp'] });
    expect(lacking.status).toBe(400);
    expect((await json(lacking)).details).toEqual([{ path: 'channels[1]', message: "'Shop' is not approved on chatapp" }]);
    const unknown = await revoke(acmeId, { alphaName: 'Shop', reason: 'x', channels: ['fax'] });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).details.map((d: any) => d.path)).toEqual(['channels[0]']);
    const none = await revoke(acmeId, { alphaName: 'Shop', reason: 'x', channels: [] });
    expect(none.status).toBe(400);
    expect((await json(none)).details.map((d: any) => d.path)).toEqual(['channels']);
    expect((await revoke(acmeId, { alphaName: 'Nobody', reason: 'x', channels: ['sms'] })).status).toBe(404);
    expect((await s.call('/bat/messagelist', { json: sms('Shop') })).status).toBe(200);

    // Its last channels withdrawn, the name is revoked entirely, as without `channels`.
    const rest = await revoke(acmeId, { alphaName: 'Shop', reason: 'SMS registration lapsed', channels: ['rcs', 'sms'] });
    expect(rest.status).toBe(200);
    expect(await json(rest)).toMatchObject({
      accounts: [
        { accountId: acmeId, channels: ['sms', 'rcs'], channelsLeft: [] },
        { accountId: sub.clientId, channels: ['sms', 'rcs'], channelsLeft: [] },
      ],
      applicationIds: [app.id],
    });
    const gone = await s.call('/bat/messagelist', { json: sms('Shop') });
    expect((await json(gone)).details).toEqual([
      { path: 'messages[0].from', message: 'alpha-name "Shop" is not an approved alpha-name of this account' },
    ]);
    expect((await json(await s.call('/api/clientsenders'))).alphaNames.find((a: any) => a.name === 'Shop')).toMatchObject({
      status: 'revoked',
      reason: 'SMS registration lapsed',
    });
    expect((await json(await admin(`/admin/accounts/${sub.clientId}/alpha-names`))).map((a: any) => a.alphaName)).toEqual([]);
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
