import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
  // The messenger step reaches a number through the chat bound to it: bind the test numbers' chats.
  for (const [i, phoneNumber] of ['99900000000', '99900000001', '99900000002', '99900000003', '99900000004', '99900000005'].entries()) {
    const res = await s.call('/chat_bot/bot_receiver/phone', { method: 'PUT', json: { phoneNumber, chatId: 1000 + i } });
    expect(res.status).toBe(200);
  }
});
afterAll(() => s.close());

type Status = Record<string, any>;
const BOTS = { 'x-tg-bot-key': '123456:tg-test', 'x-viber-auth-token': 'viber-test-token' };
const msg = (toPhone: string, extra: Record<string, unknown> = {}) => ({ fromName: 'Acme', toPhone, text: 'Hello', ...extra });
const post = (path: string, json: unknown, headers: Record<string, string> = BOTS) => s.call(path, { json, headers });
const sendAsync = async (body: unknown, headers?: Record<string, string>) => {
  const res = await post('/api/CascadeMessage/send_message/async', body, headers);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { messageId: string; trackinId: string }[];
};
const statusOf = async (guid: string) => (await s.call(`/api/CascadeMessage/status_guid/${guid}`)).json() as Promise<Status>;
const settled = (guid: string, attempts?: number) =>
  until(
    () => statusOf(guid),
    (st) => st.status !== 'processing' && st.status !== 'scheduled',
    attempts,
  );

describe('cascade send endpoints drive every simulator outcome through the default route', () => {
  it.each([
    ['99900000000', 'delivered', 'messenger', ['Sent', 'Delivered']],
    ['99900000001', 'delivered', 'sms', ['Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Delivered']],
    ['99900000002', 'undeliverable', 'sms', ['Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed']],
    ['99900000003', 'permanenterror', 'sms', ['Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed', 'Sent', 'Failed']],
    ['99900000005', 'delivered', 'messenger', ['Sent', 'Delivered', 'Read']],
  ])('%s ends %s on %s', async (phone, status, channel, trail) => {
    const [accepted] = await sendAsync([msg(phone, { id: `t-${phone}` })]);
    expect(accepted!.trackinId).toBe(`t-${phone}`);
    const st = await until(
      () => statusOf(accepted!.messageId),
      (x) => x.history.length >= trail.length && x.status !== 'processing',
    );
    expect(st).toMatchObject({ messageId: accepted!.messageId, trackinId: `t-${phone}`, status, channel, route: 'default@1' });
    expect(st.history.map((h: Status) => h.status)).toEqual(trail);
    const byId = await (await s.call(`/api/CascadeMessage/status_id/t-${phone}`)).json();
    expect(byId.messageId).toBe(accepted!.messageId);
  });

  it('04 expires each step in its share of the ttl and ends undeliverable', async () => {
    const [accepted] = await sendAsync([msg('99900000004', { ttl: 5 })]);
    const st = await settled(accepted!.messageId, 600);
    expect(st.status).toBe('undeliverable');
    expect(st.steps.map((x: Status) => x.status)).toEqual(Array(5).fill('expired'));
    expect(st.history.filter((h: Status) => h.status === 'Expired')).toHaveLength(5);
  }, 15_000);

  it('takes an optional member sent as null as absent, as the messaging API does', async () => {
    const nulls = {
      id: null,
      messageType: null,
      ttl: null,
      sheduledSent: null,
      wheterCheckSession: null,
      buttonText: null,
      buttonAction: null,
      flashcallText: null,
      customerData: null,
      chatappMessage: null,
      messengerMessage: null,
      variables: null,
    };
    const [sent] = await sendAsync([msg('99900000000', nulls)]);
    const status = await settled(sent!.messageId);
    expect(status).toMatchObject({ status: 'delivered', trackinId: sent!.messageId });
    const overview = await post('/api/CascadeMessage/send_message/async', {
      fromName: 'Acme',
      messageType: null,
      ttl: null,
      sheduledSent: null,
      messages: [{ recipient: '99900000000', text: 'Hi' }],
    });
    expect(overview.status, await overview.clone().text()).toBe(200);
    // null is absent, not a value: a required member is still required.
    const missing = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { toPhone: null })]);
    expect(missing.status).toBe(400);
  });

  it('accepts every message type, the overview shape and the messenger-chatapp endpoint', async () => {
    const res = await sendAsync([
      msg('99900000000', {
        messageType: 'promo',
        buttonText: 'Shop',
        buttonAction: 'https://example.com/sale',
        customerData: { type: 'vip' },
      }),
      msg('99900000000', {
        messageType: 'chatapp_survey',
        chatappMessage: { text: 'How was it?', survey: { options: ['😀', '🙂', '😞'] } },
      }),
      { fromName: 'Acme', toPhone: '99900000000', messageType: 'flashcall', flashcallText: '4821' },
      msg('99900000000', {
        chatappMessage: { type: 'picture', text: 'Look', media: 'https://example.com/a.png' },
        messengerMessage: { text: 'Hi', buttons: [{ action: 'https://e.com', text: 'Go' }] },
      }),
    ]);
    expect(res).toHaveLength(4);
    const flash = await settled(res[2]!.messageId);
    expect(flash).toMatchObject({ status: 'delivered', channel: 'flashcall', route: 'flashcall@1', messageType: 'flashcall' });
    expect((await settled(res[0]!.messageId)).customerData).toEqual({ type: 'vip' });

    const overview = await sendAsync({
      fromName: 'Acme',
      messages: [
        { recipient: '99900000000', text: 'Hi' },
        { recipient: '99900000005', text: 'Yo' },
      ],
    });
    expect(overview).toHaveLength(2);
    expect(overview[0]!.trackinId).toBe(overview[0]!.messageId);

    const mc = await post('/api/CascadeMessage/send_message/messenger-chatapp/async', [msg('99900000000')]);
    const [first] = (await mc.json()) as { messageId: string }[];
    expect(await settled(first!.messageId)).toMatchObject({ route: 'messenger-first@1', channel: 'messenger' });
  });

  it('skips the messenger step of a number whose chat is not bound, and sends the bound chat id to the messenger', async () => {
    const [unbound] = await sendAsync([msg('99900000042')]);
    const st = await settled(unbound!.messageId);
    expect(st).toMatchObject({ status: 'delivered', channel: 'chatapp_bot' });
    expect(st.steps[0]).toMatchObject({
      channel: 'messenger',
      status: 'skipped',
      error: 'no messenger chat is bound to 99900000042 (PUT /chat_bot/bot_receiver/phone)',
      cost: 0,
    });
    const [bound] = await sendAsync([msg('99900000000')]);
    expect(await settled(bound!.messageId)).toMatchObject({ channel: 'messenger' });
    const attempt = s.server.simulator.sent.findLast((a) => a.channel === 'messenger' && a.to === '99900000000');
    expect(attempt?.messageData).toMatchObject({ chatId: '1000' });
  });

  it('keeps a cascade with a future sheduledSent scheduled', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const [accepted] = await sendAsync([msg('99900000000', { sheduledSent: at })]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await statusOf(accepted!.messageId)).status).toBe('scheduled');
  });

  it('skips the bot steps without the bot headers and skips chat-app without a session', async () => {
    const [a] = await sendAsync([msg('99900000000', { wheterCheckSession: true })], {});
    const st = await settled(a!.messageId);
    expect(st).toMatchObject({ status: 'delivered', channel: 'rcs' });
    expect(st.steps.slice(0, 3).map((x: Status) => x.error)).toEqual([
      'no bot credentials (send X-Tg-Bot-Key)',
      // The session is checked before the credentials (chat-app bot steps need both).
      'no open session',
      'no open session',
    ]);
  });
});

describe('legacy, referral and broadcast variants', () => {
  const referral = '3f2b8c4e-9a1d-4e5f-8b7c-0123456789ab';

  it.each([
    ['/api/CascadeMessage/send_message', null, 'default@1'],
    ['/api/CascadeMessage/send_message_async', null, 'default@1'],
    ['/api/CascadeMessage/send_message/gateway/messenger-chatapp/async', null, 'messenger-first@1'],
    [`/api/CascadeMessage/${referral}/send_message`, referral, 'default@1'],
    [`/api/CascadeMessage/${referral}/send_message_async`, referral, 'default@1'],
    [`/api/CascadeMessage/${referral}/send_message/gateway/messenger-chatapp/async`, referral, 'messenger-first@1'],
  ])('%s', async (path, referralGuid, route) => {
    const res = await post(path, [msg('99900000000')]);
    expect(res.status).toBe(200);
    const [accepted] = (await res.json()) as { messageId: string }[];
    if (path.endsWith('/send_message')) {
      // The synchronous variant answers once the first step was handed to its channel.
      expect((await statusOf(accepted!.messageId)).history[0]).toMatchObject({ status: 'Sent', channel: 'messenger' });
    }
    expect(await settled(accepted!.messageId)).toMatchObject({ status: 'delivered', referralGuid, route });
  });

  it('rejects a referral that is not a UUID', async () => {
    const res = await post('/api/CascadeMessage/0000-1111/send_message_async', [msg('99900000000')]);
    expect(res.status).toBe(400);
  });

  it('broadcasts one cascade to many recipients', async () => {
    const res = await post('/api/CascadeMessage/broadcast', {
      fromName: 'Acme',
      text: 'Sale',
      recipients: ['99900000000', { toPhone: '99900000001', id: 'b-2' }],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { count: number; messages: { messageId: string; trackinId: string; toPhone: string }[] };
    expect(body.count).toBe(2);
    expect(body.messages[1]).toMatchObject({ trackinId: 'b-2', toPhone: '99900000001' });
    expect((await settled(body.messages[1]!.messageId)).channel).toBe('sms');
    const bad = await post('/api/CascadeMessage/broadcast', { fromName: 'Acme', text: 'x', recipients: ['12'] });
    expect(bad.status).toBe(400);
    expect((await bad.json()).details[0].path).toBe('recipients[0].toPhone');
    // A member of neither accepted form says what the forms are, not zod's "Invalid input".
    const neither = await post('/api/CascadeMessage/broadcast', { fromName: 'Acme', text: 'x', recipients: [null] });
    expect(await neither.json()).toMatchObject({
      details: [{ path: 'recipients[0]', message: 'must be a phone number, or an object with toPhone and optionally id and variables' }],
    });
    const badId = await post('/api/items', { items: [{ id: 1.5, value: 'v' }] }, {});
    expect(await badId.json()).toMatchObject({ details: [{ path: 'items[0].id', message: 'must be a string or a non-negative integer' }] });
  });
});

describe('variables and short links', () => {
  it('stores variables, resolves them at send, serves the short link and records the click', async () => {
    const up = await post(
      '/api/items',
      {
        items: [
          { id: 7, value: 'Ann' },
          { id: 'site', value: 'https://example.com/offer' },
        ],
      },
      {},
    );
    expect(await up.json()).toEqual({ stored: 2 });
    const [a] = await sendAsync([msg('99900000000', { text: 'Hi %name=7%: %short_url=site%' })]);
    await settled(a!.messageId);
    const stored = await s.server.storage.getMessageByGuid(a!.messageId);
    // The text handed to the channel carries the resolved name and a short link to this server.
    const sent = s.server.simulator.sent.find((attempt) => attempt.messageId === stored!.id);
    const link = /Hi Ann: (\S+)$/.exec(sent!.text)?.[1];
    expect(link).toMatch(new RegExp(`^${s.url}/s/[A-Za-z0-9]+$`));
    const res = await fetch(link!, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.com/offer');
    expect((await statusOf(a!.messageId)).history.at(-1)).toMatchObject({ status: 'Clicked' });
    expect((await fetch(`${s.url}/s/unknown1`, { redirect: 'manual' })).status).toBe(404);
  });

  it('answers 400 naming the path of an unknown variable, and stores nothing', async () => {
    const res = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { id: 'nv-1', text: 'Hi %name=nope%' })]);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'validation_failed', details: [{ path: '[0].text' }] });
    expect((await s.call('/api/CascadeMessage/status_id/nv-1')).status).toBe(404);
  });
});

describe('errors', () => {
  it('answers 401 without credentials and 404 for unknown ids', async () => {
    const noAuth = await s.call('/api/CascadeMessage/send_message/async', { json: [msg('99900000000')], auth: 'none' });
    expect(noAuth.status).toBe(401);
    expect((await s.call('/api/CascadeMessage/status_guid/4b1e3a2c-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await s.call('/api/CascadeMessage/status_id/never-sent')).status).toBe(404);
  });

  it('answers 402 when the balance does not cover the first steps, and 429 past the messaging rate limit', async () => {
    const poor = await startServer({ SPILLWAY_BOOTSTRAP_BALANCE: '0', SPILLWAY_RATE_MESSAGING: '1/1' });
    try {
      const first = await poor.call('/api/CascadeMessage/send_message/async', { json: [msg('99900000000')] });
      expect(first.status).toBe(402);
      expect(await first.json()).toMatchObject({ error: 'payment_required', status: 402 });
      const second = await poor.call('/api/CascadeMessage/send_message/async', { json: [msg('99900000000')] });
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).not.toBeNull();
    } finally {
      await poor.close();
    }
  });
});

describe('/api/routes', () => {
  it('creates, reads, updates with revisions (409 when stale), binds and deletes routes', async () => {
    const body = {
      name: 'SMS first',
      start: 'sms',
      steps: [
        { id: 'sms', channel: 'sms' },
        { id: 'chat', channel: 'chatapp' },
      ],
      edges: [{ from: 'sms', to: 'chat', on: 'undeliverable' }],
    };
    const created = await s.call('/api/routes', { json: body });
    expect(created.status).toBe(201);
    const route = (await created.json()) as Status;
    expect(route).toMatchObject({ revision: 1, builtin: false, name: 'SMS first' });
    expect(((await (await s.call('/api/routes')).json()) as Status[]).map((r) => r.id)).toEqual(
      expect.arrayContaining(['default', route.id]),
    );
    expect((await (await s.call(`/api/routes/${route.id}`)).json()).start).toBe('sms');

    const put = (json: unknown) => s.call(`/api/routes/${route.id}`, { method: 'PUT', json });
    expect((await (await put({ ...body, name: 'v2', revision: 1 })).json()).revision).toBe(2);
    expect((await put({ ...body, revision: 1 })).status).toBe(409);
    expect((await put({ ...body, start: 'nowhere', revision: 2 })).status).toBe(400);

    const bind = await s.call(`/api/routes/${route.id}/binding`, { method: 'PUT', json: { alphaName: 'Promo' } });
    expect(await bind.json()).toEqual({ alphaName: 'Promo', routeId: route.id });
    expect(await (await s.call('/api/routes/bindings')).json()).toEqual([{ alphaName: 'Promo', routeId: route.id }]);
    const [a] = await sendAsync([{ fromName: 'Promo', toPhone: '99900000000', text: 'x' }]);
    expect(await settled(a!.messageId)).toMatchObject({ route: `${route.id}@2`, channel: 'sms' });

    expect((await s.call('/api/routes/default', { method: 'DELETE' })).status).toBe(403);
    expect((await s.call(`/api/routes/${route.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.call(`/api/routes/${route.id}`)).status).toBe(404);
    expect(await (await s.call('/api/routes/bindings')).json()).toEqual([]);
    // Deleting is soft: the messages that ran on a revision still read it, and so do the designer's watch and traffic.
    for (const revision of [1, 2]) {
      const read = await s.call(`/api/routes/${route.id}?revision=${revision}`);
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ id: route.id, revision, name: revision === 1 ? 'SMS first' : 'v2' });
    }
    expect((await s.call(`/api/routes/${route.id}/stats?revision=2`)).status).toBe(200);
    expect((await s.call(`/api/routes/${route.id}?revision=3`)).status).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('lists every cascade path', async () => {
    const doc = (await (await s.call('/openapi.json', { auth: 'none' })).json()) as { paths: Record<string, Record<string, unknown>> };
    const expected = [
      'post /api/CascadeMessage/send_message/async',
      'post /api/CascadeMessage/send_message/messenger-chatapp/async',
      'post /api/CascadeMessage/send_message',
      'post /api/CascadeMessage/{referralGuid}/send_message',
      'post /api/CascadeMessage/send_message_async',
      'post /api/CascadeMessage/{referralGuid}/send_message_async',
      'post /api/CascadeMessage/send_message/gateway/messenger-chatapp/async',
      'post /api/CascadeMessage/{referralGuid}/send_message/gateway/messenger-chatapp/async',
      'get /api/CascadeMessage/status_guid/{guid}',
      'get /api/CascadeMessage/status_id/{id}',
      'post /api/CascadeMessage/broadcast',
      'get /api/routes',
      'post /api/routes',
      'get /api/routes/bindings',
      'get /api/routes/{id}',
      'put /api/routes/{id}',
      'delete /api/routes/{id}',
      'put /api/routes/{id}/binding',
      'post /api/items',
      'get /s/{code}',
    ];
    for (const entry of expected) {
      const [method, path] = entry.split(' ') as [string, string];
      expect(doc.paths[path]?.[method], entry).toBeDefined();
    }
  });
});

describe('cascade audit over HTTP', () => {
  it('maps X-Tg-Bot-Key to the messenger step and X-Viber-Auth-Token to the chat-app bot step, each alone', async () => {
    const sentOf = async (guid: string) => {
      const stored = await s.server.storage.getMessageByGuid(guid);
      return s.server.simulator.sent.filter((a) => a.messageId === stored!.id);
    };
    const [tg] = await sendAsync([msg('99900000000')], { 'x-tg-bot-key': 'tg-only' });
    expect(await settled(tg!.messageId)).toMatchObject({ status: 'delivered', channel: 'messenger' });
    expect(await sentOf(tg!.messageId)).toMatchObject([{ channel: 'messenger', credentials: { botToken: 'tg-only' } }]);

    const [viber] = await sendAsync([msg('99900000000')], { 'x-viber-auth-token': 'viber-only' });
    const st = await settled(viber!.messageId);
    expect(st).toMatchObject({ status: 'delivered', channel: 'chatapp_bot' });
    expect(st.steps[0]).toMatchObject({ channel: 'messenger', status: 'skipped', error: 'no bot credentials (send X-Tg-Bot-Key)' });
    expect(await sentOf(viber!.messageId)).toMatchObject([{ channel: 'chatapp_bot', credentials: { botToken: 'viber-only' } }]);
  });

  it("answers 404 for another account's message on status_guid and status_id", async () => {
    const [accepted] = await sendAsync([msg('99900000000', { id: 'isolated-1' })]);
    const other = await s.server.engine.accounts.create({ login: 'cascade-other', password: 'other-password' });
    const { key } = await s.server.engine.accounts.createKey(other.id);
    const asOther = (path: string) => s.call(path, { headers: { 'x-authorization-key': key } });
    expect((await asOther(`/api/CascadeMessage/status_guid/${accepted!.messageId}`)).status).toBe(404);
    expect((await asOther('/api/CascadeMessage/status_id/isolated-1')).status).toBe(404);
    expect((await s.call(`/api/CascadeMessage/status_guid/${accepted!.messageId}`)).status).toBe(200);
  });

  it('sends a message that names no alpha-name from the account’s only one, and refuses it naming them when there are several', async () => {
    const own = await startServer({ SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Acme' });
    try {
      const overview = { messages: [{ recipient: '99900000000', text: 'Hi' }] };
      const one = await own.call('/api/CascadeMessage/send_message/async', { json: overview });
      expect(one.status).toBe(200);
      const [accepted] = (await one.json()) as Array<{ messageId: string }>;
      const status = (await (await own.call(`/api/CascadeMessage/status_guid/${accepted!.messageId}`)).json()) as { fromName: string };
      expect(status.fromName).toBe('Acme');
      // A second alpha-name: which one to send from is no longer the engine's guess.
      const account = (await own.server.engine.accounts.getByLogin('acme'))!;
      await own.server.engine.accounts.approveAlphaName(account.id, 'Beta');
      const several = await own.call('/api/CascadeMessage/send_message/async', { json: overview });
      expect(several.status).toBe(400);
      expect(await several.json()).toMatchObject({
        error: 'validation_failed',
        details: [{ path: 'messages[0].fromName', message: 'fromName is required: the account has several alpha-names (Acme, Beta)' }],
      });
    } finally {
      await own.close();
    }
  });

  it('reads a GUID in either case on status_guid, and answers 400 for one that is not a UUID', async () => {
    const [accepted] = await sendAsync([msg('99900000000', { id: 'upper-1' })]);
    const upper = await s.call(`/api/CascadeMessage/status_guid/${accepted!.messageId.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(await upper.json()).toMatchObject({ messageId: accepted!.messageId, trackinId: 'upper-1' });
    const bad = await s.call('/api/CascadeMessage/status_guid/not-a-guid');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'validation_failed', details: [{ path: 'guid', message: 'must be a UUID' }] });
  });

  it('answers 400 for a referral GUID that is not hex, and 404 under a fixed name', async () => {
    const bad = await post('/api/CascadeMessage/not-a-guid/send_message_async', [msg('99900000000')]);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'validation_failed', details: [{ path: 'referralGuid' }] });
    expect((await post('/api/CascadeMessage/zzzz/send_message', [msg('99900000000')])).status).toBe(400);
    expect((await post('/api/CascadeMessage/broadcast/send_message', [msg('99900000000')])).status).toBe(404);
  });

  it('answers the synchronous send_message at once for a message scheduled later', async () => {
    const sheduledSent = new Date(Date.now() + 3600_000).toISOString();
    const started = Date.now();
    const res = await post('/api/CascadeMessage/send_message', [msg('99900000000', { sheduledSent })]);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('counts a HEAD on a short link as no click and refuses to bind a built-in route', async () => {
    await post('/api/items', { items: [{ id: 'head-site', value: 'https://example.com/head' }] }, {});
    const [a] = await sendAsync([msg('99900000000', { text: 'Go %short_url=head-site%' })]);
    await settled(a!.messageId);
    const stored = await s.server.storage.getMessageByGuid(a!.messageId);
    const sent = s.server.simulator.sent.find((attempt) => attempt.messageId === stored!.id);
    const link = /Go (\S+)$/.exec(sent!.text)![1]!;
    expect((await fetch(link, { method: 'HEAD', redirect: 'manual' })).status).toBe(302);
    const code = link.split('/').pop()!;
    expect((await s.server.storage.getShortLink(code))?.clicks).toBe(0);
    expect((await statusOf(a!.messageId)).history.some((h: Status) => h.status === 'Clicked')).toBe(false);

    const bind = await s.call('/api/routes/messenger-first/binding', { method: 'PUT', json: { alphaName: null } });
    expect(bind.status).toBe(400);
  });

  it('answers 404 for a NUL in the id of status_id, a short link or a route, not a 400 at an internal path', async () => {
    const paths = [
      '/api/CascadeMessage/status_id/a%00b',
      '/s/ab%00',
      '/api/routes/rt_%00',
      '/api/routes/rt_%00/stats',
      '/api/routes/rt_%00?revision=1',
    ];
    for (const path of paths) {
      const res = await s.call(path);
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(404);
      expect(await res.text()).not.toContain('arguments[');
    }
    const put = await s.call('/api/routes/rt_%00/binding', { method: 'PUT', json: { alphaName: null } });
    expect(put.status).toBe(404);
    expect((await s.call('/api/routes/rt_%00', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('request validation over HTTP', () => {
  /** A whole minute an hour or so ahead: a time every form below can write exactly. */
  const dueAt = () => Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000;
  /** `ms` as the wall-clock time at `hours` east of UTC, without the offset: `2026-12-01T23:00:00`. */
  const wallClock = (ms: number, hours: number) => new Date(ms + hours * 3_600_000).toISOString().slice(0, 19);
  const sendStatus = async (sheduledSent: string) => {
    const res = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { sheduledSent })]);
    expect(res.status, `${sheduledSent}: ${await res.clone().text()}`).toBe(200);
    const [accepted] = (await res.json()) as { messageId: string }[];
    return statusOf(accepted!.messageId);
  };

  it('takes sheduledSent without seconds and with an offset without its colon, as ISO 8601 allows', async () => {
    const due = dueAt();
    for (const sheduledSent of [
      wallClock(due, 0).slice(0, 16) + 'Z', // 2026-12-01T20:00Z
      wallClock(due, 3) + '+0300', // 2026-12-01T23:00:00+0300
      wallClock(due, -5).slice(0, 16) + '-05:00', // 2026-12-01T15:00-05:00
      wallClock(due, 5.5) + '.000+05:30',
    ]) {
      expect(await sendStatus(sheduledSent), sheduledSent).toMatchObject({
        status: 'scheduled',
        sheduledSent: new Date(due).toISOString(),
      });
    }
    // The overview shape's top-level sheduledSent reads the same.
    const overview = await post('/api/CascadeMessage/send_message/async', {
      fromName: 'Acme',
      sheduledSent: wallClock(due, 3).slice(0, 16) + '+0300',
      messages: [{ recipient: '99900000000', text: 'Hi' }],
    });
    expect(overview.status, await overview.clone().text()).toBe(200);
    const [accepted] = (await overview.json()) as { messageId: string }[];
    expect((await statusOf(accepted!.messageId)).sheduledSent).toBe(new Date(due).toISOString());
  });

  it('refuses a sheduledSent without an offset, saying why, rather than reading it in the server time zone', async () => {
    const noOffset = wallClock(dueAt(), 0);
    const res = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { sheduledSent: noOffset })]);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'validation_failed',
      details: [{ path: '[0].sheduledSent', message: expect.stringMatching(/no offset.*ambiguous/) }],
    });
    for (const bad of ['2026-02-30T10:00:00Z', '2026-12-01T24:00:00Z', '2026-12-01T20:00:00+24:00', 'tomorrow', '2026-12-01']) {
      const refused = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { sheduledSent: bad })]);
      expect(refused.status, bad).toBe(400);
      expect((await refused.json()).details, bad).toEqual([{ path: '[0].sheduledSent', message: expect.stringContaining('ISO 8601') }]);
    }
  });

  it('answers a ttl too large for a safe integer with the 30-day bound, like any other too-large ttl', async () => {
    const bound = { message: expect.stringContaining('2592000') };
    for (const ttl of [1e308, 2 ** 53, '99999999999999999999', 2_592_001]) {
      const res = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { ttl })]);
      expect(res.status).toBe(400);
      expect((await res.json()).details, String(ttl)).toEqual([{ path: '[0].ttl', ...bound }]);
    }
    const chat = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { chatappMessage: { text: 'Hi', ttl: 1e308 } })]);
    expect((await chat.json()).details).toEqual([{ path: '[0].chatappMessage.ttl', ...bound }]);
    const overview = await post('/api/CascadeMessage/send_message/async', {
      fromName: 'Acme',
      ttl: 1e308,
      messages: [{ recipient: '99900000000' }],
    });
    expect((await overview.json()).details).toEqual([{ path: 'ttl', ...bound }]);
    const broadcast = await post('/api/CascadeMessage/broadcast', { fromName: 'Acme', text: 'x', ttl: 1e308, recipients: ['99900000000'] });
    expect((await broadcast.json()).details).toEqual([{ path: 'ttl', ...bound }]);
  });

  it('names the broadcast recipient whose variables lack one the text uses, and stores nothing', async () => {
    const recipient = (toPhone: string, id: string, variables: { id: string; value: string }[]) => ({ toPhone, id, variables });
    const res = await post('/api/CascadeMessage/broadcast', {
      fromName: 'Acme',
      text: 'Hi %name=bv-first%, see %url=bv-site%',
      recipients: [
        recipient('99900000000', 'bv-0', [
          { id: 'bv-first', value: 'Ann' },
          { id: 'bv-site', value: 'https://example.com/a' },
        ]),
        recipient('99900000001', 'bv-1', [{ id: 'bv-site', value: 'https://example.com/b' }]),
        recipient('99900000002', 'bv-2', [
          { id: 'bv-first', value: 'Bob' },
          { id: 'bv-site', value: 'not a link' },
        ]),
      ],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).details).toEqual([
      { path: 'recipients[1].variables', message: expect.stringContaining('unknown variable %name=bv-first% in text') },
      { path: 'recipients[2].variables[1].value', message: expect.stringContaining('variable %url=bv-site% is not an http(s) URL') },
    ]);
    for (const id of ['bv-0', 'bv-1', 'bv-2']) expect((await s.call(`/api/CascadeMessage/status_id/${id}`)).status).toBe(404);
    // One recipient is answered as one of many; the array shape still names the field holding the token.
    const one = await post('/api/CascadeMessage/broadcast', { fromName: 'Acme', text: 'Hi %name=bv-first%', recipients: ['99900000000'] });
    expect((await one.json()).details).toEqual([{ path: 'recipients[0].variables', message: expect.stringContaining('%name=bv-first%') }]);
    const single = await post('/api/CascadeMessage/send_message/async', [msg('99900000000', { text: 'Hi %name=bv-first%' })]);
    expect((await single.json()).details).toEqual([
      { path: '[0].text', message: expect.stringContaining('unknown variable %name=bv-first%') },
    ]);
  });
});
