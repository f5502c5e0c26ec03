import { describe, expect, it } from 'vitest';
import { until } from '../support/server-fixture.ts';
import { serverOnTestDatabase } from '../support/test-database.ts';

// `route` of a cascade message (a Spillway extension) runs it on the route named, not the one bound
// to its alpha-name: the designer's test cascade ran the bound route, not the one open. Runs on
// SQLite, and on PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const s = serverOnTestDatabase('named_route');

type Status = Record<string, any>;
const msg = (toPhone: string, extra: Record<string, unknown> = {}) => ({ fromName: 'Acme', toPhone, text: 'Hello', ...extra });
const post = (path: string, json: unknown) => s.call(path, { json });
const sendAsync = async (body: unknown) => {
  const res = await post('/api/CascadeMessage/send_message/async', body);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { messageId: string; trackinId: string }[];
};
const statusOf = async (guid: string) => (await s.call(`/api/CascadeMessage/status_guid/${guid}`)).json() as Promise<Status>;
const settled = (guid: string) =>
  until(
    () => statusOf(guid),
    (st) => st.status !== 'processing' && st.status !== 'scheduled',
  );

describe(`a cascade message naming its route (${s.database.label})`, () => {
  const oneStep = (name: string, channel: string) => ({ name, start: channel, steps: [{ id: channel, channel }], edges: [] });
  const create = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await s.call('/api/routes', { json: body, headers });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string };
  };

  it('runs the route named instead of the alpha-name’s, on every send endpoint, and refuses an unknown one at its path', async () => {
    // Promo is bound to route A (SMS); route B (RCS) is bound to nothing.
    const a = await create(oneStep('A', 'sms'));
    const b = await create(oneStep('B', 'rcs'));
    try {
      expect((await s.call(`/api/routes/${a.id}/binding`, { method: 'PUT', json: { alphaName: 'Promo' } })).status).toBe(200);
      const promo = (toPhone: string, extra: Record<string, unknown> = {}) => ({ fromName: 'Promo', toPhone, text: 'Hi', ...extra });
      const [bound] = await sendAsync([promo('99900000000')]);
      expect(await settled(bound!.messageId)).toMatchObject({ route: `${a.id}@1`, channel: 'sms' });

      const [named] = await sendAsync([promo('99900000000', { route: b.id })]);
      const st = await settled(named!.messageId);
      expect(st).toMatchObject({ route: `${b.id}@1`, status: 'delivered', channel: 'rcs' });
      expect(st.history[0]).toMatchObject({ status: 'Sent', channel: 'rcs' });

      // B@1 after B became revision 2 runs revision 1.
      const put = await s.call(`/api/routes/${b.id}`, { method: 'PUT', json: { ...oneStep('B v2', 'chatapp'), revision: 1 } });
      expect(put.status).toBe(200);
      const [old] = await sendAsync([promo('99900000000', { route: `${b.id}@1` })]);
      expect(await settled(old!.messageId)).toMatchObject({ route: `${b.id}@1`, channel: 'rcs' });

      const referral = '3f2b8c4e-9a1d-4e5f-8b7c-0123456789ab';
      for (const path of [
        '/api/CascadeMessage/send_message',
        '/api/CascadeMessage/send_message_async',
        '/api/CascadeMessage/send_message/messenger-chatapp/async',
        '/api/CascadeMessage/send_message/gateway/messenger-chatapp/async',
        `/api/CascadeMessage/${referral}/send_message_async`,
      ]) {
        const res = await post(path, { fromName: 'Promo', route: b.id, messages: [{ recipient: '99900000000', text: 'Hi' }] });
        expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
        const [accepted] = (await res.json()) as { messageId: string }[];
        expect(await settled(accepted!.messageId), path).toMatchObject({ route: `${b.id}@2`, channel: 'chatapp' });
      }

      const broadcast = await post('/api/CascadeMessage/broadcast', {
        fromName: 'Promo',
        text: 'Sale',
        route: `${b.id}@1`,
        recipients: ['99900000000'],
      });
      expect(broadcast.status).toBe(200);
      const [sent] = ((await broadcast.json()) as { messages: { messageId: string }[] }).messages;
      expect(await settled(sent!.messageId)).toMatchObject({ route: `${b.id}@1`, channel: 'rcs' });

      const unknown = await post('/api/CascadeMessage/send_message/async', [
        promo('99900000000', { id: 'unknown-route' }),
        promo('99900000000', { route: `${b.id}@3` }),
      ]);
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({
        error: 'validation_failed',
        details: [{ path: '[1].route', message: `unknown route "${b.id}@3": route ${b.id} has revisions 1 to 2` }],
      });
      expect((await s.call('/api/CascadeMessage/status_id/unknown-route')).status).toBe(404);
      const badBroadcast = await post('/api/CascadeMessage/broadcast', {
        fromName: 'Promo',
        text: 'x',
        route: 'rt_nope',
        recipients: ['99900000000'],
      });
      expect(badBroadcast.status).toBe(400);
      expect((await badBroadcast.json()).details).toEqual([{ path: 'route', message: expect.stringContaining('unknown route "rt_nope"') }]);
    } finally {
      for (const { id } of [a, b]) await s.call(`/api/routes/${id}`, { method: 'DELETE' });
    }
  });

  it("refuses another account's route exactly as an unknown one", async () => {
    const other = await s.server.engine.accounts.create({ login: 'route-other', password: 'other-password' });
    const { key } = await s.server.engine.accounts.createKey(other.id);
    const theirs = await create(oneStep('theirs', 'rcs'), { 'x-authorization-key': key });
    for (const route of [theirs.id, `${theirs.id}@1`, 'rt_nope']) {
      const res = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { route })]);
      expect(res.status).toBe(400);
      expect((await res.json()).details).toEqual([
        {
          path: '[0].route',
          message: `unknown route "${route}": no such route of this account, nor a built-in one (default, messenger-first, flashcall)`,
        },
      ]);
    }
  });
});
