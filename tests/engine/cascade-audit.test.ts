import { afterEach, describe, expect, it } from 'vitest';
import { SpillwayError } from '@spillway/core';
import { engineFixture } from '../support/engine-fixture.ts';
import { bots, cascade, cascadeHelpers } from '../support/cascade-helpers.ts';

// Regression tests of the cascade QA audit, each failing before its fix.
type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

const { sendOne, statusOf, balance } = cascadeHelpers(() => f);
const internalId = async (guid: string) => (await f.storage.getMessageByGuid(guid))!.id;

/** Binds a chat-app → SMS route (moving on when undeliverable or expired) to `Shop`. */
async function bindChatThenSms(ids: [string, string], extra: { timeoutSeconds?: number } = {}) {
  const route = await f.engine.cascades.createRoute(f.account.id, {
    name: 'chat then sms',
    start: ids[0],
    steps: [
      { id: ids[0], channel: 'chatapp', ...extra },
      { id: ids[1], channel: 'sms', ...extra },
    ],
    edges: [
      { from: ids[0], to: ids[1], on: 'undeliverable' },
      { from: ids[0], to: ids[1], on: 'expired' },
    ],
  });
  await f.engine.cascades.bindRoute(f.account.id, route.id, 'Shop');
  return route;
}

describe('cascade audit', () => {
  it('runs a route whose step ids are __proto__ and constructor to the end', async () => {
    f = await engineFixture();
    await bindChatThenSms(['__proto__', 'constructor']);
    const { messageId } = await sendOne([cascade('99900000001')]);
    await f.advance(200);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status).toMatchObject({ status: 'delivered', channel: 'sms' });
    expect(status.steps.map((s) => s.id)).toEqual(['__proto__', 'constructor']);
  });

  it('turns an undeliverable cascade delivered when a late delivery arrives after the end', async () => {
    f = await engineFixture();
    await bindChatThenSms(['chat', 'sms'], { timeoutSeconds: 30 });
    const { messageId } = await sendOne([cascade('99900000004')]);
    await f.advance(30_000);
    await f.advance(30_000);
    expect((await statusOf(messageId)).status).toBe('undeliverable');
    void f.engine.receive({ messageId: await internalId(messageId), step: 1, outcome: 'delivered' });
    await f.advance(10);
    const status = await statusOf(messageId);
    expect(status).toMatchObject({ status: 'delivered', channel: 'sms' });
    expect(status.steps.map((s) => s.status)).toEqual(['expired', 'delivered']);
  });

  it('prices an SMS step on its resolved text: a long variable adds parts', async () => {
    f = await engineFixture();
    const route = await f.engine.cascades.createRoute(f.account.id, {
      name: 'sms only',
      start: 'sms',
      steps: [{ id: 'sms', channel: 'sms' }],
      edges: [],
    });
    await f.engine.cascades.bindRoute(f.account.id, route.id, 'Shop');
    await f.engine.cascades.uploadVariables(f.account.id, { items: [{ id: 'long', value: 'x'.repeat(400) }] });
    const before = await balance();
    const { messageId } = await sendOne([cascade('99900000000', { text: 'Hi %name=long%' })]);
    await f.advance(200);
    // 403 GSM-7 characters are 3 parts of 153: 3 x 0.05 (the raw text was 1 part).
    expect(before - (await balance())).toBeCloseTo(0.15);
    expect(await statusOf(messageId)).toMatchObject({ status: 'delivered', cost: 0.15 });
    expect((await statusOf(messageId)).steps[0]?.cost).toBeCloseTo(0.15);
  });

  it('charges the real parts when a stored variable grew after acceptance', async () => {
    f = await engineFixture();
    await bindChatThenSms(['chat', 'sms']);
    await f.engine.cascades.uploadVariables(f.account.id, { items: [{ id: 'v', value: 'short' }] });
    const before = await balance();
    await sendOne([cascade('99900000001', { text: 'Hi %name=v%' })]);
    await f.engine.cascades.uploadVariables(f.account.id, { items: [{ id: 'v', value: 'y'.repeat(200) }] });
    await f.advance(200);
    await f.advance(200);
    // chat-app 0.03 + SMS of 2 parts 0.10.
    expect(before - (await balance())).toBeCloseTo(0.13);
  });

  it('skips a step whose short-link value is no longer an http(s) URL, making no link', async () => {
    f = await engineFixture();
    await bindChatThenSms(['chat', 'sms']);
    await f.engine.cascades.uploadVariables(f.account.id, { items: [{ id: 'site', value: 'https://example.com' }] });
    const { messageId } = await sendOne([cascade('99900000000', { text: 'Go %short_url=site%' })]);
    // The stored value changes after acceptance (values are read again at send).
    await f.storage.upsertVariables(f.account.id, [{ id: 'site', value: 'javascript:alert(1)' }], f.clock.now());
    await f.advance(200);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status.steps[0]).toMatchObject({ status: 'skipped', error: 'variable site is not an http(s) URL' });
    expect(f.simulator.sent).toHaveLength(0);
  });

  it('records one Clicked history entry per minute, counts only GET clicks, and never redirects to a non-http URL', async () => {
    f = await engineFixture();
    await f.engine.cascades.uploadVariables(f.account.id, { items: [{ id: 'site', value: 'https://example.com/a' }] });
    const { messageId } = await sendOne([cascade('99900000000', { text: 'Go %short_url=site%' })], bots);
    await f.advance(200);
    const code = /\/s\/(\S+)$/.exec(f.simulator.sent[0]!.text)![1]!;
    for (let i = 0; i < 5; i++) expect(await f.engine.cascades.resolveShortLink(code)).toBe('https://example.com/a');
    await f.engine.cascades.resolveShortLink(code, { count: false });
    expect((await f.storage.getShortLink(code))?.clicks).toBe(5);
    const clicked = async () => (await statusOf(messageId)).history.filter((h) => h.status === 'Clicked').length;
    expect(await clicked()).toBe(1);
    await f.clock.advance(60_000);
    await f.engine.cascades.resolveShortLink(code);
    expect(await clicked()).toBe(2);

    const bad = await f.storage.createShortLink(
      { code: 'BadLink1', accountId: f.account.id, messageId: await internalId(messageId), url: 'javascript:alert(1)' },
      f.clock.now(),
    );
    const error = await f.engine.cascades.resolveShortLink(bad.code).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpillwayError);
    expect((error as SpillwayError).code).toBe('not_found');
  });

  it('prices the first step that can be sent for the 402 check (bot steps without keys are skipped)', async () => {
    f = await engineFixture({ balance: 0.02 });
    // Messenger costs 0.01, but without a key the first step sent is chat-app at 0.03.
    const error = await f.engine.cascades.send(f.account.id, [cascade('99900000000')]).catch((e: unknown) => e);
    expect((error as SpillwayError).code).toBe('payment_required');
    await expect(f.engine.cascades.send(f.account.id, [cascade('99900000000')], bots)).resolves.toHaveLength(1);
  });

  it('answers the synchronous variant at once for a message scheduled later', async () => {
    f = await engineFixture();
    const at = new Date(f.clock.now() + 3600_000).toISOString();
    const sending = f.engine.cascades.send(f.account.id, [cascade('99900000000', { sheduledSent: at })], {
      ...bots,
      waitForFirstStep: true,
    });
    // No clock move: the answer must not wait for the 10 s timeout, which on this fake clock never
    // comes; 5 s of wall time leave a loaded machine's PostgreSQL ingest room.
    const answered = await Promise.race([sending.then(() => true), new Promise((r) => setTimeout(() => r(false), 5_000))]);
    expect(answered).toBe(true);
  });

  it('after a not_read fallback reports the SMS as the channel and records the read timeout', async () => {
    f = await engineFixture();
    const route = await f.engine.cascades.createRoute(f.account.id, {
      name: 'read or sms',
      start: 'chat',
      steps: [
        { id: 'chat', channel: 'chatapp' },
        { id: 'sms', channel: 'sms' },
      ],
      edges: [{ from: 'chat', to: 'sms', on: 'not_read', afterSeconds: 60 }],
    });
    await f.engine.cascades.bindRoute(f.account.id, route.id, 'Shop');
    const { messageId } = await sendOne([cascade('99900000000')]);
    await f.advance(200);
    await f.advance(60_000);
    await f.advance(200);
    const status = await statusOf(messageId);
    expect(status).toMatchObject({ status: 'delivered', channel: 'sms' });
    expect(status.history.map((h) => `${h.status}:${h.channel}`)).toEqual([
      'Sent:chatapp',
      'Delivered:chatapp',
      'Expired:chatapp',
      'Sent:sms',
      'Delivered:sms',
    ]);
    expect(status.history[2]?.error).toBe('not read within 60 s');
    expect(status.steps[0]?.status).toBe('delivered');
  });

  it('refuses to bind a built-in route other than default, with a 400', async () => {
    f = await engineFixture();
    for (const id of ['messenger-first', 'flashcall']) {
      const error = await f.engine.cascades.bindRoute(f.account.id, id, null).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SpillwayError);
      expect((error as SpillwayError).status).toBe(400);
    }
    await expect(f.engine.cascades.bindRoute(f.account.id, 'default', null)).resolves.toEqual({ alphaName: null, routeId: 'default' });
  });
});
