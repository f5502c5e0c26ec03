import { afterEach, describe, expect, it, vi } from 'vitest';
import { engineFixture } from '../support/engine-fixture.ts';
import { watchPreparedIngests } from '../support/prepared-ingests.ts';
import { bots, cascade, cascadeHelpers, rejection } from '../support/cascade-helpers.ts';
import type { RouteInput } from '@spillway/core';
import { hasClientStorage } from '@spillway/core/storage';

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

const { sendOne, statusOf, trail, balance, bindChat, approveBot } = cascadeHelpers(() => f);

describe('cascade engine: test numbers through the default route', () => {
  it('00 is delivered on the first channel tried, the messenger bot, and only that step is charged', async () => {
    f = await engineFixture();
    await bindChat('99900000000', '4242');
    const before = await balance();
    const { messageId, trackinId } = await sendOne([cascade('99900000000', { id: 'order-1' })], bots);
    expect(trackinId).toBe('order-1');
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    await f.advance(200);
    const status = await f.engine.cascades.statusByTrackinId(f.account.id, 'order-1');
    expect(status).toMatchObject({ messageId, status: 'delivered', channel: 'messenger', route: 'default@1', cost: 0.01 });
    expect(status.steps.map((s) => s.status)).toEqual(['delivered', null, null, null, null]);
    expect(await trail(messageId)).toEqual(['Sent:messenger', 'Delivered:messenger']);
    // The messenger reaches the number through the chat bound to it.
    expect(f.simulator.sent[0]).toMatchObject({
      channel: 'messenger',
      credentials: { botToken: 'tg-key' },
      messageData: { chatId: '4242' },
    });
    expect(before - (await balance())).toBeCloseTo(0.01);
  });

  it('01 falls through every chat channel and SMS delivers; each step tried is charged', async () => {
    f = await engineFixture();
    await bindChat('99900000001');
    const before = await balance();
    const { messageId } = await sendOne([cascade('99900000001')], bots);
    for (let i = 0; i < 5; i++) await f.advance(200);
    const status = await statusOf(messageId);
    expect(status.status).toBe('delivered');
    expect(status.channel).toBe('sms');
    expect(status.steps.map((s) => s.status)).toEqual(['undeliverable', 'undeliverable', 'undeliverable', 'undeliverable', 'delivered']);
    expect(status.steps[0]?.error).toMatch(/^undeliverable/);
    // messenger 0.01 + chat-app bot 0.01 + chat-app 0.03 + RCS 0.04 + SMS 0.05
    expect(before - (await balance())).toBeCloseTo(0.14);
    expect(status.cost).toBeCloseTo(0.14);
  });

  it('02 is undeliverable on every channel; the last channel tried is reported', async () => {
    f = await engineFixture();
    const { messageId } = await sendOne([cascade('99900000002')], bots);
    for (let i = 0; i < 5; i++) await f.advance(200);
    expect(await statusOf(messageId)).toMatchObject({ status: 'undeliverable', channel: 'sms' });
  });

  it('03 ends in permanenterror', async () => {
    f = await engineFixture();
    const { messageId } = await sendOne([cascade('99900000003')], bots);
    for (let i = 0; i < 5; i++) await f.advance(200);
    const status = await statusOf(messageId);
    expect(status.status).toBe('permanenterror');
    expect(status.steps[4]).toMatchObject({ channel: 'sms', status: 'permanenterror' });
  });

  it('05 is delivered then read on the first channel', async () => {
    f = await engineFixture();
    await bindChat('99900000005');
    const { messageId } = await sendOne([cascade('99900000005')], bots);
    await f.advance(200);
    await f.advance(201);
    expect(await trail(messageId)).toEqual(['Sent:messenger', 'Delivered:messenger', 'Read:messenger']);
    expect((await statusOf(messageId)).status).toBe('delivered');
  });

  it('skips the bot steps without bot credentials, recording why, and delivers on chat-app business', async () => {
    f = await engineFixture();
    const before = await balance();
    const { messageId } = await sendOne([cascade('99900000000')]);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status).toMatchObject({ status: 'delivered', channel: 'chatapp' });
    expect(status.steps.slice(0, 2)).toMatchObject([
      { channel: 'messenger', status: 'skipped', error: 'no bot credentials (send X-Tg-Bot-Key)' },
      { channel: 'chatapp_bot', status: 'skipped', error: 'no bot credentials (send X-Viber-Auth-Token)' },
    ]);
    expect(f.simulator.sent.map((a) => a.channel)).toEqual(['chatapp']);
    expect(before - (await balance())).toBeCloseTo(0.03);
  });

  it('skips the messenger step of a number with no chat bound, recording why; a chat id in the request needs no binding', async () => {
    f = await engineFixture();
    const before = await balance();
    const { messageId } = await sendOne([cascade('99900000000')], bots);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status).toMatchObject({ status: 'delivered', channel: 'chatapp_bot' });
    expect(status.steps[0]).toMatchObject({
      channel: 'messenger',
      status: 'skipped',
      cost: 0,
      error: 'no messenger chat is bound to 99900000000 (PUT /chat_bot/bot_receiver/phone)',
    });
    expect(f.simulator.sent.map((a) => a.channel)).toEqual(['chatapp_bot']);
    expect(before - (await balance())).toBeCloseTo(0.01);

    const given = await sendOne([cascade('99900000000', { messengerMessage: { text: 'Hi', chatId: 77 } })], bots);
    await f.advance(200);
    expect((await statusOf(given.messageId)).channel).toBe('messenger');
    expect(f.simulator.sent.at(-1)).toMatchObject({ channel: 'messenger', messageData: { chatId: '77' } });

    // A named bot must be one of the account's approved messenger bots, at the path of its name.
    const unknown = await rejection(sendOne([cascade('99900000000', { messengerMessage: { text: 'Hi', botName: 'support' } })], bots));
    expect(unknown.details).toEqual([
      {
        path: '[0].messengerMessage.botName',
        message:
          'unknown bot "support": it has no approved messenger bot (apply with POST /bots/application, or leave botName out for the ' +
          "account's only bot)",
      },
    ]);
    // A named bot's binding is its own.
    await approveBot('support');
    await bindChat('99900000000', '501', 'support');
    const named = await sendOne([cascade('99900000000', { messengerMessage: { text: 'Hi', botName: 'support' } })], bots);
    await f.advance(200);
    expect(f.simulator.sent.at(-1)).toMatchObject({ channel: 'messenger', messageData: { chatId: '501', botName: 'support' } });
    expect((await statusOf(named.messageId)).channel).toBe('messenger');
  });

  it('names no channel when every step was skipped: a skip is no try', async () => {
    f = await engineFixture();
    const route = await f.engine.cascades.createRoute(f.account.id, {
      name: 'bots only',
      start: 'messenger',
      steps: [
        { id: 'messenger', channel: 'messenger' },
        { id: 'bot', channel: 'chatapp_bot' },
      ],
      edges: [{ from: 'messenger', to: 'bot', on: 'undeliverable' }],
    });
    await f.engine.cascades.bindRoute(f.account.id, route.id, null);
    const { messageId } = await sendOne([cascade('99900000000')]);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status.steps.map((s) => s.status)).toEqual(['skipped', 'skipped']);
    expect(status).toMatchObject({ status: 'undeliverable', channel: null });
  });

  it('puts the messenger bot first on the messenger-chatapp endpoint, then chat-app business', async () => {
    f = await engineFixture();
    await bindChat('99900000001');
    const { messageId } = await sendOne([cascade('99900000001')], { ...bots, endpoint: 'messenger-first' });
    await f.advance(200);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status.route).toBe('messenger-first@1');
    expect(status.history.map((h) => `${h.status}:${h.channel}`)).toEqual([
      'Sent:messenger',
      'Failed:messenger',
      'Sent:chatapp',
      'Failed:chatapp',
      'Sent:chatapp_bot',
    ]);
  });
});

describe('cascade engine: time', () => {
  it('keeps a cascade with a future sheduledSent scheduled until then', async () => {
    f = await engineFixture();
    const at = new Date(f.clock.now() + 3_600_000).toISOString();
    const { messageId } = await sendOne([cascade('99900000000', { sheduledSent: at })], bots);
    await f.advance(3_599_000);
    expect((await statusOf(messageId)).status).toBe('scheduled');
    expect(f.simulator.sent).toHaveLength(0);
    await f.advance(1_000);
    expect((await statusOf(messageId)).status).toBe('processing');
    await f.advance(200);
    expect(await statusOf(messageId)).toMatchObject({ status: 'delivered', sheduledSent: at.replace(/\.\d+Z$/, '.000Z') });
  });

  it('splits the ttl across the steps (deadline budget) and expires each step in its share (04)', async () => {
    f = await engineFixture();
    await bindChat('99900000004');
    const { messageId } = await sendOne([cascade('99900000004', { ttl: 100 })], bots);
    const stored = await f.storage.getMessageByGuid(messageId);
    expect(stored?.steps.map((s) => s.ttl)).toEqual([20, 20, 20, 20, 20]);
    await f.advance(19_999);
    expect((await statusOf(messageId)).steps[0]?.status).toBe('processing');
    await f.advance(1);
    expect((await statusOf(messageId)).steps.map((s) => s.status)).toEqual(['expired', 'processing', null, null, null]);
    for (let i = 0; i < 4; i++) await f.advance(20_000);
    const status = await statusOf(messageId);
    expect(status.status).toBe('undeliverable');
    expect(status.history.filter((h) => h.status === 'Expired')).toHaveLength(5);
    expect(status.history.at(-1)?.dt).toBe(new Date(stored!.createdAt + 100_000).toISOString());
  });

  it('drops the early step when the ttl cannot hold every step, so the last one still runs', async () => {
    f = await engineFixture();
    const route = await f.engine.cascades.createRoute(f.account.id, {
      name: 'chat-app then SMS',
      start: 'chat',
      steps: [
        { id: 'chat', channel: 'chatapp', timeoutSeconds: 60 },
        { id: 'sms', channel: 'sms', timeoutSeconds: 60 },
      ],
      edges: [
        { from: 'chat', to: 'sms', on: 'expired' },
        { from: 'chat', to: 'sms', on: 'undeliverable' },
      ],
    });
    await f.engine.cascades.bindRoute(f.account.id, route.id, null);
    const { messageId } = await sendOne([cascade('99900000004', { ttl: 90 })]);
    await f.advance(60_000);
    const status = await statusOf(messageId);
    expect(status.status).toBe('undeliverable');
    // 60 s + 60 s do not fit in 90 s: the chat-app step gives its time to the SMS.
    expect(status.steps[0]).toMatchObject({ id: 'chat', status: 'skipped', error: expect.stringMatching(/^deadline budget/) });
    expect(status.steps[1]).toMatchObject({ id: 'sms', status: 'expired' });
    expect(f.simulator.sent.map((a) => a.channel)).toEqual(['sms']);
  });

  it('records a late receipt of an earlier step as superseded and stops the steps not yet sent', async () => {
    f = await engineFixture();
    const route = await f.engine.cascades.createRoute(f.account.id, {
      name: 'three steps',
      start: 'chat',
      steps: [
        { id: 'chat', channel: 'chatapp', timeoutSeconds: 30 },
        { id: 'rcs', channel: 'rcs', timeoutSeconds: 30 },
        { id: 'sms', channel: 'sms', timeoutSeconds: 30 },
      ],
      edges: [
        { from: 'chat', to: 'rcs', on: 'expired' },
        { from: 'rcs', to: 'sms', on: 'expired' },
      ],
    });
    await f.engine.cascades.bindRoute(f.account.id, route.id, 'Shop');
    const { messageId } = await sendOne([cascade('99900000004')]);
    await f.advance(30_000);
    const id = (await f.storage.getMessageByGuid(messageId))!.id;
    const charged = await balance();
    void f.engine.receive({ messageId: id, step: 0, outcome: 'delivered' });
    await f.advance(40_000);
    const status = await statusOf(messageId);
    expect(status).toMatchObject({ status: 'delivered', channel: 'chatapp' });
    expect(status.history.map((h) => h.status)).toEqual(['Sent', 'Expired', 'Sent', 'Delivered', 'Superseded']);
    expect(status.history.at(-1)?.error).toMatch(/^superseded: step 0/);
    expect(status.steps.map((x) => x.status)).toEqual(['delivered', 'superseded', null]);
    expect(f.simulator.sent.map((a) => a.channel)).toEqual(['chatapp', 'rcs']);
    expect(await balance()).toBe(charged);
  });
});

describe('cascade engine: checks at send', () => {
  it('skips a session-checked chat-app step when the recipient has no open session', async () => {
    f = await engineFixture();
    const { messageId } = await sendOne([cascade('99900000000', { wheterCheckSession: true })]);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status.steps[2]).toMatchObject({ channel: 'chatapp', status: 'skipped', error: 'no open session' });
    expect(status).toMatchObject({ status: 'delivered', channel: 'rcs' });

    // With an inbound message in the last 24 h the session is open.
    const now = f.clock.now();
    f.storage.lastInboundAt = async () => now - 3_600_000;
    const second = await sendOne([cascade('99900000000', { wheterCheckSession: true })]);
    await f.advance(200);
    expect(await statusOf(second.messageId)).toMatchObject({ status: 'delivered', channel: 'chatapp' });
  });

  it('answers 402 when the balance does not cover the first step, and skips a step funds do not cover', async () => {
    f = await engineFixture({ balance: 0 });
    expect((await rejection(f.engine.cascades.send(f.account.id, [cascade('99900000000')]))).status).toBe(402);
    await f.engine.accounts.topUp(f.account.id, 0.03);
    const { messageId } = await sendOne([cascade('99900000001')]);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status.status).toBe('undeliverable');
    expect(status.steps.slice(3).map((s) => [s.status, s.error])).toEqual([
      ['skipped', 'insufficient funds'],
      ['skipped', 'insufficient funds'],
    ]);
    expect(await balance()).toBe(0);
  });

  it('resolves variables at send time, serves short links and records clicks', async () => {
    f = await engineFixture();
    await f.engine.cascades.uploadVariables(f.account.id, {
      items: [
        { id: 1, value: 'Ann' },
        { id: 'promo', value: 'https://example.com/sale' },
      ],
    });
    const { messageId } = await sendOne({
      fromName: 'Shop',
      messages: [
        {
          recipient: '99900000000',
          text: 'Hi %name=1%, see %short_url=promo% or %url=promo% %name=2%',
          variables: [{ id: 2, value: '!' }],
        },
      ],
    });
    await f.advance(200);
    const text = f.simulator.sent[0]!.text;
    const m = /^Hi Ann, see http:\/\/127\.0\.0\.1:8080\/s\/([A-Za-z0-9]{8}) or https:\/\/example\.com\/sale !$/.exec(text);
    expect(m, text).not.toBeNull();
    expect(await f.engine.cascades.resolveShortLink(m![1]!)).toBe('https://example.com/sale');
    expect((await statusOf(messageId)).history.at(-1)).toMatchObject({ status: 'Clicked', channel: 'chatapp' });
    expect((await rejection(f.engine.cascades.resolveShortLink('nope1234'))).status).toBe(404);
  });

  /** The account's default route made one SMS step, and the per-phone `bonus` of 99900000000 set to `bonus`. */
  async function smsOnlyWithBonus(bonus: unknown) {
    const route = await f.engine.cascades.createRoute(f.account.id, {
      name: 'SMS only',
      start: 'sms',
      steps: [{ id: 'sms', channel: 'sms' }],
      edges: [],
    });
    await f.engine.cascades.bindRoute(f.account.id, route.id, null);
    await setBonus(bonus);
  }

  async function setBonus(bonus: unknown) {
    if (!hasClientStorage(f.storage)) throw new Error('the test storage keeps client records');
    await f.storage.putPhoneData(f.account.id, [{ phoneNumber: '99900000000', data: { bonus } }], f.clock.now());
  }

  it('prices an SMS step at acceptance on the text with per-phone data filled, so its status cost is the charge', async () => {
    f = await engineFixture();
    await smsOnlyWithBonus(7);
    // 157 + '%bonus%' is 164 characters (two parts) as written, 158 (one part) as sent.
    const before = await balance();
    const { messageId } = await sendOne([cascade('99900000000', { text: `${'x'.repeat(157)}%bonus%` })]);
    await f.advance(200);
    expect(f.simulator.sent.map((a) => [a.text.length, a.partsCount])).toEqual([[158, 1]]);
    const status = await statusOf(messageId);
    const charged = before - (await balance());
    expect(charged).toBeCloseTo(0.05);
    expect(status.cost).toBeCloseTo(charged);
    expect(status.steps[0]?.cost).toBeCloseTo(charged);
  });

  it("shows the price charged at send when the text grew after acceptance (a scheduled step's per-phone data changed)", async () => {
    f = await engineFixture();
    await smsOnlyWithBonus(7);
    const before = await balance();
    const sheduledSent = new Date(f.clock.now() + 60_000).toISOString();
    const { messageId } = await sendOne([cascade('99900000000', { text: 'Points: %bonus%', sheduledSent })]);
    // Priced one part at acceptance; by the send the value is 300 characters: three parts.
    await setBonus('y'.repeat(300));
    await f.advance(61_000);
    expect(f.simulator.sent.map((a) => a.partsCount)).toEqual([3]);
    const charged = before - (await balance());
    expect(charged).toBeCloseTo(0.15);
    const status = await statusOf(messageId);
    expect(status.cost).toBeCloseTo(charged);
    expect(status.steps[0]?.cost).toBeCloseTo(charged);
  });

  it('rejects unknown variables and unapproved alpha-names whole, listing every path', async () => {
    f = await engineFixture();
    const error = await rejection(
      f.engine.cascades.send(f.account.id, [
        cascade('99900000000', { text: 'Hi %name=who%' }),
        cascade('99900000000', { fromName: 'Other' }),
      ]),
    );
    expect(error.status).toBe(400);
    expect(error.details?.map((d) => d.path).sort()).toEqual(['[0].text', '[1].fromName']);
    expect(await f.storage.getMessageByTrackinId(f.account.id, 'x')).toBeNull();
  });

  it('records the referral, and the synchronous variant answers once the first step was handed over', async () => {
    f = await engineFixture();
    let answered = false;
    const pending = f.engine.cascades
      .send(f.account.id, [cascade('99900000000', { id: 'ref-1' })], {
        ...bots,
        referralGuid: '6f1c2b8e-0000-4000-8000-000000000001',
        waitForFirstStep: true,
      })
      .then((r) => {
        answered = true;
        return r;
      });
    // Stored and not answered: the send waits for the worker (a drain before the ingest ends would find nothing).
    await vi.waitFor(async () => expect(await f.storage.getMessageByTrackinId(f.account.id, 'ref-1')).not.toBeNull(), {
      timeout: 10_000,
    });
    expect(answered).toBe(false);
    await f.engine.drain();
    const [accepted] = await pending;
    expect(f.simulator.sent).toHaveLength(1);
    expect((await statusOf(accepted!.messageId)).referralGuid).toBe('6f1c2b8e-0000-4000-8000-000000000001');
  });

  it('broadcasts one cascade to many recipients and addresses errors by recipient', async () => {
    f = await engineFixture();
    const result = await f.engine.cascades.broadcast(f.account.id, {
      fromName: 'Shop',
      text: 'Sale',
      recipients: ['99900000000', { toPhone: '+99900000005', id: 'r-2' }],
    });
    expect(result.count).toBe(2);
    expect(result.messages[1]).toMatchObject({ trackinId: 'r-2', toPhone: '99900000005' });
    const error = await rejection(f.engine.cascades.broadcast(f.account.id, { text: 'x', ttl: -1, recipients: ['99900000000', 'abc'] }));
    expect(error.details?.map((d) => d.path).sort()).toEqual(['recipients[1].toPhone', 'ttl']);
  });

  it('lists the variable errors of the first 100 recipients of a broadcast none of whose recipients has the variable, and counts the rest', async () => {
    f = await engineFixture();
    const recipients = Array.from({ length: 5000 }, (_, i) => `999${String(i).padStart(8, '0')}`);
    const error = await rejection(f.engine.cascades.broadcast(f.account.id, { fromName: 'Shop', text: 'Hi %name=first%', recipients }));
    expect(error.code).toBe('validation_failed');
    expect(error.details).toHaveLength(101);
    expect(error.details?.[0]).toEqual({
      path: 'recipients[0].variables',
      message: expect.stringContaining('unknown variable %name=first%'),
    });
    expect(error.details?.[99]?.path).toBe('recipients[99].variables');
    expect(error.details?.[100]).toEqual({
      path: 'recipients',
      message: '4900 more recipients have errors, not listed (only the first 100 are)',
    });
  });

  it("builds a cascade request's rows before its write transaction (prepareIngest), and stores them as sent", async () => {
    f = await engineFixture();
    const { prepared, unprepared } = watchPreparedIngests(f.storage);
    const result = await f.engine.cascades.broadcast(f.account.id, {
      fromName: 'Shop',
      text: 'Sale',
      recipients: ['99900000000', '99900000001'],
    });
    expect(prepared.size).toBe(1);
    expect(unprepared).toEqual([]);
    for (let i = 0; i < 5; i++) await f.advance(200);
    const statuses = await Promise.all(result.messages.map((m) => statusOf(m.messageId)));
    expect(statuses.map((st) => [st.toPhone, st.status])).toEqual([
      ['99900000000', 'delivered'],
      ['99900000001', 'delivered'],
    ]);
  });

  it('manages routes with revisions: 409 on a stale revision, built-ins read-only', async () => {
    f = await engineFixture();
    const body: RouteInput = { name: 'SMS only', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [] };
    const route = await f.engine.cascades.createRoute(f.account.id, body);
    expect(route).toMatchObject({ revision: 1, builtin: false });
    const updated = await f.engine.cascades.updateRoute(f.account.id, route.id, { ...body, name: 'SMS', revision: 1 });
    expect(updated.revision).toBe(2);
    expect((await rejection(f.engine.cascades.updateRoute(f.account.id, route.id, { ...body, revision: 1 }))).status).toBe(409);
    expect((await rejection(f.engine.cascades.deleteRoute(f.account.id, 'default'))).status).toBe(403);
    expect((await f.engine.cascades.listRoutes(f.account.id)).map((r) => r.id)).toContain(route.id);
    await f.engine.cascades.deleteRoute(f.account.id, route.id);
    expect((await rejection(f.engine.cascades.getRoute(f.account.id, route.id))).status).toBe(404);
  });

  it('answers a stored route with its members in one order on every storage (PostgreSQL jsonb reorders them)', async () => {
    f = await engineFixture();
    const body = {
      edges: [{ on: 'undeliverable', to: 'sms', from: 'chat' }],
      steps: [
        { timeoutSeconds: 60, channel: 'chatapp', id: 'chat' },
        { position: { y: 1, x: 2 }, channel: 'sms', id: 'sms' },
      ],
      start: 'chat',
      name: 'scrambled',
    } as unknown as RouteInput;
    const created = await f.engine.cascades.createRoute(f.account.id, body);
    const updated = await f.engine.cascades.updateRoute(f.account.id, created.id, { ...body, revision: 1 });
    for (const view of [created, updated, await f.engine.cascades.getRoute(f.account.id, created.id)]) {
      expect(Object.keys(view)).toEqual(['name', 'start', 'steps', 'edges', 'id', 'revision', 'builtin', 'createdAt', 'updatedAt']);
      expect(view.steps.map((s) => Object.keys(s))).toEqual([
        ['id', 'channel', 'timeoutSeconds'],
        ['id', 'channel', 'position'],
      ]);
      expect(Object.keys(view.steps[1]!.position!)).toEqual(['x', 'y']);
      expect(Object.keys(view.edges[0]!)).toEqual(['from', 'to', 'on']);
    }
    const listed = (await f.engine.cascades.listRoutes(f.account.id)).find((r) => r.id === created.id)!;
    expect(JSON.stringify(listed)).toBe(JSON.stringify(updated));
  });
});
