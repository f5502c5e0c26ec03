import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { FakeClock } from '@spillway/core';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { testDatabase } from '../support/test-database.ts';

// An operator revokes an approved bot of an account (a leaked token, an owner struck off): sends
// naming it are refused from the next request on, as naming a bot never approved.

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const BOT_KEY = { 'x-tg-bot-key': '123456:bot-key' };
// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const database = testDatabase('bot_revocation');

let s: RunningFixture;
let clock: FakeClock;
let acmeId: number;
beforeAll(async () => {
  clock = createFakeClock(Date.UTC(2026, 4, 4, 9));
  // Workers on this thread, on PostgreSQL too: a fake clock does not cross to another thread.
  s = await startServer({ SPILLWAY_ADMIN_KEY: ADMIN_KEY, SPILLWAY_WORKER_THREAD: 'false', ...database.env }, { clock });
  acmeId = (await s.server.engine.accounts.getByLogin('acme'))!.id;
});
afterAll(async () => {
  await s?.close();
  await database.drop();
});

const json = async (res: Response) => (await res.json()) as any;
type Init = Parameters<RunningFixture['call']>[1];
const admin = (path: string, init: Init = {}) =>
  s.call(path, { auth: 'none', ...init, headers: { 'x-admin-key': ADMIN_KEY, ...(init?.headers as Record<string, string>) } });
const revoke = (accountId: number | string, body: unknown) => admin(`/admin/accounts/${accountId}/bots/revoke`, { json: body });
const as = (key: string, path: string, init: Init = {}) => s.call(path, { ...init, headers: { 'x-authorization-key': key } });

/** Applies for a bot (as `key`'s account, acme's by default) and has the operator approve it; answers the application. */
const approveBot = async (botName: string, kind: 'messenger_bot' | 'chatapp_bot' = 'messenger_bot', key?: string) => {
  const body = { json: { botName, kind, companyName: 'Acme Ltd', description: 'Support' } };
  const applied = await (key ? as(key, '/bots/application', body) : s.call('/bots/application', body));
  expect(applied.status).toBe(200);
  const app = await json(applied);
  expect((await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'approved' } })).status).toBe(200);
  return app as { id: number; createdAt: string; details: Record<string, unknown> };
};
const cascadeNaming = (botName: string, key?: string) => {
  const init = {
    json: [{ fromName: 'Acme', toPhone: '99900000001', text: 'Hi', messengerMessage: { text: 'Hi', botName } }],
    headers: { ...BOT_KEY, ...(key ? { 'x-authorization-key': key } : {}) },
  };
  return s.call('/api/CascadeMessage/send_message/async', init);
};
const unknownBot = (name: string, approved: string) =>
  `unknown bot "${name}": ${approved} (apply with POST /bots/application, or leave botName out for the account's only bot)`;
const botState = async (name: string, kind = 'messenger_bot', key?: string) =>
  (await json(await (key ? as(key, '/api/clientsenders') : s.call('/api/clientsenders')))).bots.find(
    (b: any) => b.name === name && b.kind === kind,
  );

describe(`operator: revoking a bot of an account (${database.label})`, () => {
  it('refuses sends naming it from the next request on, as a bot never approved, and lets the account apply again', async () => {
    const app = await approveBot('support');
    await approveBot('helpdesk');
    expect((await cascadeNaming('support')).status).toBe(200);

    await clock.advance(60_000);
    const revokedAt = new Date(clock.now()).toISOString();
    const res = await revoke(acmeId, { botName: 'support', reason: 'Bot token leaked' });
    expect(res.status).toBe(200);
    // The revoked applications in the view of the other application routes.
    expect(await json(res)).toEqual({
      botName: 'support',
      reason: 'Bot token leaked',
      revokedAt,
      applications: [
        {
          id: app.id,
          kind: 'messenger_bot',
          name: 'support',
          channels: ['messenger'],
          status: 'revoked',
          reason: 'Bot token leaked',
          details: app.details,
          createdAt: app.createdAt,
          decidedAt: revokedAt,
        },
      ],
    });

    // Refused at once, exactly as a bot that was never approved, at the item's path.
    const after = await cascadeNaming('support');
    const never = await cascadeNaming('nobody');
    expect([after.status, never.status]).toEqual([400, 400]);
    const approvedNow = 'its approved messenger bots are helpdesk';
    expect((await json(after)).details).toEqual([{ path: '[0].messengerMessage.botName', message: unknownBot('support', approvedNow) }]);
    expect((await json(never)).details).toEqual([{ path: '[0].messengerMessage.botName', message: unknownBot('nobody', approvedNow) }]);
    const chat = await s.call('/api/myCodeBot/sendChatMessage', {
      json: { phoneNumber: '99900000001', fromName: 'Acme', text: 'Hi', botName: 'support' },
      headers: BOT_KEY,
    });
    expect(chat.status).toBe(400);
    expect((await json(chat)).details).toEqual([{ path: 'botName', message: unknownBot('support', approvedNow) }]);
    // The other bot still sends.
    expect((await cascadeNaming('helpdesk')).status).toBe(200);

    // The client sees it revoked, with why; the operator's list has it revoked.
    expect(await botState('support')).toEqual({
      name: 'support',
      kind: 'messenger_bot',
      channels: ['messenger'],
      status: 'revoked',
      reason: 'Bot token leaked',
      applicationId: app.id,
    });
    expect((await json(await admin('/admin/sender-applications?status=revoked&kind=messenger_bot'))).map((a: any) => a.id)).toEqual([
      app.id,
    ]);

    // Revoked twice: not found. The account may apply for it again, and use it once approved.
    const twice = await revoke(acmeId, { botName: 'support', reason: 'again' });
    expect(twice.status).toBe(404);
    expect(await json(twice)).toMatchObject({ error: 'not_found', status: 404 });
    const again = await approveBot('support');
    expect(again.id).toBeGreaterThan(app.id);
    expect(await botState('support')).toMatchObject({ status: 'approved', applicationId: again.id });
    expect((await cascadeNaming('support')).status).toBe(200);
  });

  it('revokes the bot of one kind with `kind`, of both kinds without it', async () => {
    const chatapp = await approveBot('twin', 'chatapp_bot');
    const messenger = await approveBot('twin', 'messenger_bot');

    const one = await revoke(acmeId, { botName: 'twin', kind: 'chatapp_bot', reason: 'Chat-app account closed' });
    expect(one.status).toBe(200);
    expect((await json(one)).applications.map((a: any) => [a.id, a.kind, a.status])).toEqual([[chatapp.id, 'chatapp_bot', 'revoked']]);
    expect(await botState('twin', 'chatapp_bot')).toMatchObject({ status: 'revoked', reason: 'Chat-app account closed' });
    expect(await botState('twin', 'messenger_bot')).toMatchObject({ status: 'approved' });
    expect((await cascadeNaming('twin')).status).toBe(200);
    expect((await revoke(acmeId, { botName: 'twin', kind: 'chatapp_bot', reason: 'again' })).status).toBe(404);

    const pair = await approveBot('pair', 'chatapp_bot');
    const pairs = await approveBot('pair', 'messenger_bot');
    const both = await revoke(acmeId, { botName: 'pair', reason: 'Owner struck off' });
    expect(both.status).toBe(200);
    expect((await json(both)).applications.map((a: any) => [a.id, a.kind])).toEqual([
      [pair.id, 'chatapp_bot'],
      [pairs.id, 'messenger_bot'],
    ]);
    expect((await cascadeNaming('pair')).status).toBe(400);
    // Without `kind`, the messenger bot left of `twin` goes too.
    const rest = await revoke(acmeId, { botName: 'twin', reason: 'Owner struck off' });
    expect((await json(rest)).applications.map((a: any) => a.id)).toEqual([messenger.id]);
    expect((await cascadeNaming('twin')).status).toBe(400);
  });

  it("leaves a sub-client's own bot of the same name alone: bots are not shared with sub-clients", async () => {
    const sub = await json(
      await s.call('/api/client/provision', {
        json: { login: 'acme-desk', password: 'sub-password-1', balance: 10, alphaNames: ['Acme'] },
      }),
    );
    await approveBot('desk');
    await approveBot('desk', 'messenger_bot', sub.apiKey);

    const res = await revoke(acmeId, { botName: 'desk', reason: 'Bot token leaked' });
    expect(res.status).toBe(200);
    expect((await json(res)).applications).toHaveLength(1);
    expect((await cascadeNaming('desk')).status).toBe(400);
    expect((await cascadeNaming('desk', sub.apiKey)).status).toBe(200);
    expect(await botState('desk', 'messenger_bot', sub.apiKey)).toMatchObject({ status: 'approved' });
    // Revoked on the sub-client's account, by its own id.
    expect((await revoke(sub.clientId, { botName: 'desk', reason: 'Bot token leaked' })).status).toBe(200);
    expect((await cascadeNaming('desk', sub.apiKey)).status).toBe(400);
  });

  it('answers 404 for an account without such an approved bot, 400 for a bad body listing every bad path, 401 without the admin key', async () => {
    expect((await revoke(999_999, { botName: 'helpdesk', reason: 'x' })).status).toBe(404);
    const unknown = await revoke(acmeId, { botName: 'nobody', reason: 'x' });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ error: 'not_found', status: 404 });
    // An alpha-name is no bot; a bot of the other kind, or one only applied for, is no approved bot of that kind.
    expect((await revoke(acmeId, { botName: 'Acme', reason: 'x' })).status).toBe(404);
    expect((await revoke(acmeId, { botName: 'helpdesk', kind: 'chatapp_bot', reason: 'x' })).status).toBe(404);
    expect(
      (await s.call('/bots/application', { json: { botName: 'queued', kind: 'messenger_bot', companyName: 'A', description: 'B' } }))
        .status,
    ).toBe(200);
    expect((await revoke(acmeId, { botName: 'queued', reason: 'x' })).status).toBe(404);

    const bad = await revoke(acmeId, { botName: ' ', kind: 'sms_bot', reason: '  ', extra: true });
    expect(bad.status).toBe(400);
    const badBody = await json(bad);
    expect(badBody).toMatchObject({ error: 'validation_failed', status: 400 });
    // A member the route does not take is named at the body, as everywhere.
    expect(badBody.details.map((d: any) => d.path).sort()).toEqual(['(body)', 'botName', 'kind', 'reason']);
    expect(badBody.details.find((d: any) => d.path === '(body)').message).toMatch(/extra/);
    expect((await json(await revoke(acmeId, { botName: 'helpdesk' }))).details.map((d: any) => d.path)).toEqual(['reason']);
    expect((await json(await revoke(acmeId, []))).status).toBe(400);
    expect((await revoke('abc', { botName: 'helpdesk', reason: 'x' })).status).toBe(400);

    const wrongKey = await s.call(`/admin/accounts/${acmeId}/bots/revoke`, {
      auth: 'none',
      json: { botName: 'helpdesk', reason: 'x' },
      headers: { 'x-admin-key': 'wrong' },
    });
    expect(wrongKey.status).toBe(401);
    // The account itself cannot revoke through the operator route.
    expect((await s.call(`/admin/accounts/${acmeId}/bots/revoke`, { json: { botName: 'helpdesk', reason: 'x' } })).status).toBe(401);
    expect((await cascadeNaming('helpdesk')).status).toBe(200);
  });

  it('is in the OpenAPI document with its statuses', async () => {
    const doc = await json(await s.call('/openapi.json', { auth: 'none' }));
    const op = doc.paths['/admin/accounts/{accountId}/bots/revoke'].post;
    expect(op.operationId).toBe('revokeBot');
    expect(Object.keys(op.responses).sort()).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
  });
});
