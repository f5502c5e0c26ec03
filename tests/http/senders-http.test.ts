import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

const ADMIN_KEY = 'admin-key-0123456789abcdef';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer({ SPILLWAY_ADMIN_KEY: ADMIN_KEY });
});
afterAll(() => s.close());

const json = async (res: Response) => (await res.json()) as any;
const admin = (path: string, init: Parameters<RunningFixture['call']>[1] = {}) =>
  s.call(path, { auth: 'none', ...init, headers: { 'x-admin-key': ADMIN_KEY, ...(init.headers as Record<string, string>) } });
const application = (alphaName: string, extra: Record<string, unknown> = {}) => ({
  alphaName,
  companyName: 'Shop Ltd',
  description: 'Order notifications',
  sampleText: 'Your order 42 has shipped',
  ...extra,
});
const sms = (from: string, to: string, text = 'Hello') => ({ from, to, text, type: 'sms' });
const send = (messages: unknown[]) => s.call('/bat/messagelist', { json: { messages } });

describe('alpha-name applications', () => {
  it('stays pending until an operator approves it; then the name can send', async () => {
    const res = await s.call('/api/AlphaName/sms/application', { json: application('NewShop', { channels: ['sms', 'chatapp'] }) });
    expect(res.status).toBe(200);
    const app = await json(res);
    expect(app).toMatchObject({
      kind: 'alpha_name',
      name: 'NewShop',
      channels: ['sms', 'chatapp'],
      status: 'pending',
      reason: null,
      decidedAt: null,
    });
    expect(app.details).toEqual({ companyName: 'Shop Ltd', description: 'Order notifications', sampleText: 'Your order 42 has shipped' });

    expect((await send([sms('NewShop', '99900000000')])).status).toBe(400);
    expect((await s.call('/api/AlphaName/sms/application', { json: application('NewShop') })).status).toBe(409);
    const senders = await json(await s.call('/api/clientsenders'));
    expect(senders.alphaNames).toContainEqual({
      name: 'NewShop',
      kind: 'alpha_name',
      channels: ['sms', 'chatapp'],
      status: 'pending',
      reason: null,
      applicationId: app.id,
    });
    expect(senders.alphaNames.find((a: any) => a.name === 'Acme')).toMatchObject({ status: 'approved', applicationId: null });

    const pending = await json(await admin('/admin/sender-applications?status=pending'));
    expect(pending.map((a: any) => a.id)).toContain(app.id);
    expect(pending.find((a: any) => a.id === app.id).accountId).toBeGreaterThan(0);

    const approved = await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'approved' } });
    expect(approved.status).toBe(200);
    expect(await json(approved)).toMatchObject({ id: app.id, status: 'approved' });
    expect((await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'rejected', reason: 'late' } })).status).toBe(
      409,
    );

    expect((await send([sms('NewShop', '99900000000')])).status).toBe(200);
    const after = await json(await s.call('/api/clientsenders'));
    expect(after.alphaNames).toContainEqual({
      name: 'NewShop',
      kind: 'alpha_name',
      channels: ['sms', 'chatapp'],
      status: 'approved',
      reason: null,
      applicationId: app.id,
    });
    expect((await s.call('/api/AlphaName/sms/application', { json: application('NewShop') })).status).toBe(409);
  });

  it('extends an approved name to more channels by another application, and refuses one that adds nothing', async () => {
    const first = await json(await s.call('/api/AlphaName/sms/application', { json: application('Growing') }));
    await admin(`/admin/sender-applications/${first.id}/decision`, { json: { status: 'approved' } });
    const chat = { ...sms('Growing', '99900000000'), type: 'chatapp_service' };
    expect((await send([chat])).status).toBe(400);
    // Only sms so far: the same again adds nothing.
    const same = await s.call('/api/AlphaName/sms/application', { json: application('Growing') });
    expect(same.status).toBe(409);
    expect((await json(same)).message).toContain('approved already on sms');
    const more = await s.call('/api/AlphaName/sms/application', { json: application('Growing', { channels: ['chatapp'] }) });
    expect(more.status).toBe(200);
    const second = await json(more);
    expect(second).toMatchObject({ status: 'pending', channels: ['chatapp'] });
    // One pending application at a time.
    expect((await s.call('/api/AlphaName/sms/application', { json: application('Growing', { channels: ['rcs'] }) })).status).toBe(409);
    await admin(`/admin/sender-applications/${second.id}/decision`, { json: { status: 'approved' } });
    expect((await send([chat])).status).toBe(200);
    const senders = await json(await s.call('/api/clientsenders'));
    expect(senders.alphaNames.find((a: any) => a.name === 'Growing')).toMatchObject({ status: 'approved', channels: ['sms', 'chatapp'] });
  });

  it('is rejected with a reason, after which the name may be applied for again', async () => {
    const app = await json(await s.call('/api/AlphaName/sms/application', { json: application('Rejectee') }));
    const noReason = await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'rejected' } });
    expect(noReason.status).toBe(400);
    expect((await json(noReason)).details).toEqual([{ path: 'reason', message: 'a rejection needs a reason' }]);
    const rejected = await json(
      await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'rejected', reason: 'no trademark' } }),
    );
    expect(rejected).toMatchObject({ status: 'rejected', reason: 'no trademark' });
    expect((await send([sms('Rejectee', '99900000000')])).status).toBe(400);
    const senders = await json(await s.call('/api/clientsenders'));
    expect(senders.alphaNames.find((a: any) => a.name === 'Rejectee')).toMatchObject({ status: 'rejected', reason: 'no trademark' });
    expect((await s.call('/api/AlphaName/sms/application', { json: application('Rejectee') })).status).toBe(200);
  });

  it('refuses bad bodies with every bad field listed, storing nothing', async () => {
    const res = await s.call('/api/AlphaName/sms/application', { json: { alphaName: 'MuchTooLongName', description: '', extra: 1 } });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ error: 'validation_failed', status: 400 });
    expect(body.details.map((d: any) => d.path).sort()).toEqual(['(body)', 'alphaName', 'companyName', 'description']);
    expect((await s.call('/api/AlphaName/sms/application', { json: application('Ok', { channels: ['fax'] }) })).status).toBe(400);
    const notJson = await s.call('/api/AlphaName/sms/application', {
      method: 'POST',
      body: 'alphaName=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(notJson.status).toBe(415);
    const senders = await json(await s.call('/api/clientsenders'));
    expect(senders.alphaNames.map((a: any) => a.name)).not.toContain('MuchTooLongName');
    expect(senders.alphaNames.map((a: any) => a.name)).not.toContain('Ok');
  });

  it('guards the operator routes with the admin key and answers 404 for unknown applications', async () => {
    expect((await s.call('/admin/sender-applications', { auth: 'none' })).status).toBe(401);
    expect((await s.call('/admin/sender-applications', { auth: 'none', headers: { 'x-admin-key': 'wrong-key-0123456789' } })).status).toBe(
      401,
    );
    // The client's own API key is no admin key.
    expect((await s.call('/admin/sender-applications')).status).toBe(401);
    expect((await admin('/admin/sender-applications/999999/decision', { json: { status: 'approved' } })).status).toBe(404);
    expect((await admin('/admin/sender-applications/abc/decision', { json: { status: 'approved' } })).status).toBe(400);
    expect((await admin('/admin/sender-applications?status=maybe')).status).toBe(400);
  });

  it('answers 401 without credentials on every client route', async () => {
    for (const [method, path] of [
      ['POST', '/api/AlphaName/sms/application'],
      ['GET', '/api/AlphaName/sms/status'],
      ['GET', '/api/clientsenders'],
      ['POST', '/bots/application'],
    ] as const) {
      const res = await s.call(path, { method, auth: 'none', ...(method === 'POST' ? { json: {} } : {}) });
      expect(res.status, path).toBe(401);
      expect(await json(res)).toMatchObject({ error: 'unauthorized', status: 401 });
    }
  });
});

describe('bot applications', () => {
  it('are pending until approved and listed among the senders as bots', async () => {
    const bot = {
      botName: 'acme_shop_bot',
      kind: 'messenger_bot',
      companyName: 'Acme',
      description: 'Order bot',
      botUrl: 'https://t.me/acme_shop_bot',
    };
    const res = await s.call('/bots/application', { json: bot });
    expect(res.status).toBe(200);
    const app = await json(res);
    expect(app).toMatchObject({ kind: 'messenger_bot', name: 'acme_shop_bot', channels: ['messenger'], status: 'pending' });
    expect((await s.call('/bots/application', { json: { botName: '', kind: 'fax_bot' } })).status).toBe(400);
    await admin(`/admin/sender-applications/${app.id}/decision`, { json: { status: 'approved' } });
    const senders = await json(await s.call('/api/clientsenders'));
    expect(senders.bots).toEqual([
      { name: 'acme_shop_bot', kind: 'messenger_bot', channels: ['messenger'], status: 'approved', reason: null, applicationId: app.id },
    ]);
    // Approved, the bot is not applied for again.
    const again = await s.call('/bots/application', { json: bot });
    expect(again.status).toBe(409);
    expect((await json(again)).message).toContain('approved already');
  });
});

describe('SMS statistics and wallet per alpha-name', () => {
  it('counts sent, delivered, undeliverable, parts and cost from the messages', async () => {
    const res = await send([
      sms('Promo', '99900000000'),
      sms('Promo', '99900000002'),
      sms('Promo', '99900000042', 'x'.repeat(200)),
      sms('Acme', '99900000000'),
    ]);
    expect(res.status).toBe(200);
    const ids = (await json(res)).messages.map((m: any) => m.messageId);
    await until(
      async () => Promise.all(ids.map(async (id: number) => (await json(await s.call(`/bat/message/${id}`))).deliverystatus)),
      (all) => all.every((st) => st === 'delivered' || st === 'undeliverable'),
    );
    const costs = await Promise.all(ids.map(async (id: number) => (await json(await s.call(`/bat/message/${id}`))).cost));

    const status = await json(await s.call('/api/AlphaName/sms/status?alphaName=Promo'));
    expect(status.statistics).toEqual([
      { alphaName: 'Promo', sent: 3, delivered: 2, undeliverable: 1, parts: 4, cost: costs[0] + costs[1] + costs[2], currency: 'EUR' },
    ]);
    expect(status.applications).toEqual([]);
    expect(Date.parse(status.dateTo) - Date.parse(status.dateFrom)).toBe(30 * 86_400_000);

    const all = await json(await s.call('/api/AlphaName/sms/status'));
    expect(all.statistics.map((x: any) => x.alphaName)).toEqual(expect.arrayContaining(['Acme', 'Promo']));
    const future = await json(await s.call('/api/AlphaName/sms/status?alphaName=Promo&dateFrom=2099-01-01&dateTo=2099-01-02T00:00:00Z'));
    expect(future.statistics).toEqual([
      { alphaName: 'Promo', sent: 0, delivered: 0, undeliverable: 0, parts: 0, cost: 0, currency: 'EUR' },
    ]);

    const wallet = await json(await s.call('/api/AlphaName/wallet/info?ExternalAlphaName=Promo'));
    expect(wallet.total).toBe(3);
    expect(wallet.items.map((t: any) => t.messageId).sort()).toEqual(ids.slice(0, 3).sort());
    const whole = await json(await s.call('/api/AlphaName/wallet/info?PageSize=1000'));
    expect(whole.items.some((t: any) => t.transactionType === 'topup')).toBe(true);
    expect(whole.total).toBeGreaterThan(wallet.total);
    const none = await json(await s.call('/api/AlphaName/wallet/info?ExternalAlphaName=Promo&TransactionTypes=topup'));
    expect(none).toMatchObject({ total: 0, items: [] });
  });

  it('refuses bad periods', async () => {
    for (const q of ['dateFrom=yesterday', 'dateFrom=2026-02-01&dateTo=2026-01-01', 'dateFrom=2020-01-01&dateTo=2026-01-01']) {
      const res = await s.call(`/api/AlphaName/sms/status?${q}`);
      expect(res.status, q).toBe(400);
      expect((await json(res)).error).toBe('validation_failed');
    }
  });
});

describe('isolation', () => {
  it('shows an account none of another account’s applications, senders or statistics', async () => {
    await s.call('/api/AlphaName/sms/application', { json: application('Secret') });
    const other = await json(await s.call('/api/client/provision', { json: { login: 'iso-co', password: 'iso-password-1' } }));
    const as = (path: string) => s.call(path, { headers: { 'x-authorization-key': other.apiKey } });
    expect(await json(await as('/api/clientsenders'))).toEqual({ alphaNames: [], bots: [] });
    const status = await json(await as('/api/AlphaName/sms/status?alphaName=Promo'));
    expect(status.applications).toEqual([]);
    expect(status.statistics).toEqual([
      { alphaName: 'Promo', sent: 0, delivered: 0, undeliverable: 0, parts: 0, cost: 0, currency: 'EUR' },
    ]);
    expect((await json(await as('/api/AlphaName/wallet/info?ExternalAlphaName=Promo'))).total).toBe(0);
    // The same name is another sender for another account: its own application is accepted.
    const own = await s.call('/api/AlphaName/sms/application', {
      json: application('Secret'),
      headers: { 'x-authorization-key': other.apiKey },
    });
    expect(own.status).toBe(200);
  });
});

describe('without an admin key', () => {
  it('answers 403 on the operator routes', async () => {
    const other = await startServer();
    try {
      const res = await other.call('/admin/sender-applications', { auth: 'none', headers: { 'x-admin-key': ADMIN_KEY } });
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ error: 'forbidden' });
    } finally {
      await other.close();
    }
  });
});
