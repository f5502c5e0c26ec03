import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { engineFixture } from '../support/engine-fixture.ts';
import { bots, cascade, cascadeHelpers } from '../support/cascade-helpers.ts';

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

const { sendOne, statusOf, balance, bindChat } = cascadeHelpers(() => f);
const DAY = 86_400_000;
/** 06: every chat channel refuses the number at once (not on this channel); SMS delivers. */
const NOT_ON_CHAT = '99900000006';

describe('reachability memory', () => {
  it('skips the steps a number answered not-on-this-channel to, in the next cascade, until the memory expires', async () => {
    f = await engineFixture();
    await bindChat(NOT_ON_CHAT);
    const run = async () => {
      const { messageId } = await sendOne([cascade(NOT_ON_CHAT)], bots);
      for (let i = 0; i < 6; i++) await f.advance(200);
      return statusOf(messageId);
    };

    // First cascade: every chat channel is tried (and charged), each refuses, SMS delivers.
    let before = await balance();
    const t0 = f.clock.now();
    const first = await run();
    expect(first.status).toBe('delivered');
    expect(first.steps.map((s) => s.status)).toEqual(['undeliverable', 'undeliverable', 'undeliverable', 'undeliverable', 'delivered']);
    expect(first.steps[0]?.error).toMatch(/^not_on_channel: the recipient is not on this channel/);
    const tried = f.simulator.sent.length;
    expect(before - (await balance())).toBeCloseTo(0.14);

    // Remembered, per channel, readable.
    const memory = await f.engine.reachability.show(f.account.id, NOT_ON_CHAT);
    expect(memory.entries.map((e) => e.channel)).toEqual(['chatapp', 'chatapp_bot', 'messenger', 'rcs']);
    // Refused at the send, in the first round: remembered from then on, for the default 7 days.
    expect(memory.entries[0]).toMatchObject({ driver: 'simulator', at: t0, expiresAt: t0 + 7 * DAY });

    // Next cascade: the chat steps are skipped at once, nothing is sent on them and nothing paid.
    before = await balance();
    const second = await run();
    expect(second.status).toBe('delivered');
    expect(second.steps.map((s) => s.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'delivered']);
    expect(second.steps[0]?.error).toMatch(
      /^not reachable on messenger \(remembered until 2026-11-29T12:00:00.000Z\): the recipient is not on this channel \(simulator\)$/,
    );
    expect(second.history.map((h) => `${h.status}:${h.channel}`)).toEqual([
      'Skipped:messenger',
      'Skipped:chatapp_bot',
      'Skipped:chatapp',
      'Skipped:rcs',
      'Sent:sms',
      'Delivered:sms',
    ]);
    expect(f.simulator.sent.slice(tried).map((a) => a.channel)).toEqual(['sms']);
    // The status names the driver that carried each step; a skipped step had none.
    expect(second.steps.map((s) => s.driver)).toEqual([null, null, null, null, 'simulator']);
    expect(second.history.map((h) => h.driver)).toEqual([null, null, null, null, 'simulator', 'simulator']);
    expect(before - (await balance())).toBeCloseTo(0.05);
    // The SMS went out in the first round, not after four steps' worth of waiting.
    expect(Date.parse(second.history[4]!.dt)).toBe(Date.parse(second.createdAt));

    // Another account's cascade to the same number is not affected.
    const other = await f.engine.accounts.create({ login: 'other', password: 'correct horse', balance: 10 });
    await f.engine.accounts.approveAlphaName(other.id, 'Shop');
    expect((await f.engine.reachability.show(other.id, NOT_ON_CHAT)).entries).toEqual([]);

    // Once the memory expires, the chat channels are tried again.
    await f.clock.advance(t0 + 7 * DAY - f.clock.now() - 1);
    expect((await f.engine.reachability.show(f.account.id, NOT_ON_CHAT)).entries).toHaveLength(4);
    await f.clock.advance(1);
    expect((await f.engine.reachability.show(f.account.id, NOT_ON_CHAT)).entries).toEqual([]);
    const third = await run();
    expect(third.steps.map((s) => s.status)).toEqual(['undeliverable', 'undeliverable', 'undeliverable', 'undeliverable', 'delivered']);
  });

  it('is cleared by hand (one channel or all), and then the step is tried again', async () => {
    f = await engineFixture();
    await bindChat(NOT_ON_CHAT);
    const { messageId } = await sendOne([cascade(NOT_ON_CHAT)], bots);
    for (let i = 0; i < 6; i++) await f.advance(200);
    expect((await statusOf(messageId)).status).toBe('delivered');
    expect(await f.engine.reachability.clear(f.account.id, `+${NOT_ON_CHAT}`, 'messenger')).toEqual({
      phoneNumber: NOT_ON_CHAT,
      cleared: 1,
    });
    const again = await sendOne([cascade(NOT_ON_CHAT)], bots);
    for (let i = 0; i < 6; i++) await f.advance(200);
    expect((await statusOf(again.messageId)).steps.map((s) => s.status)).toEqual([
      'undeliverable',
      'skipped',
      'skipped',
      'skipped',
      'delivered',
    ]);
    expect(await f.engine.reachability.clear(f.account.id, NOT_ON_CHAT)).toEqual({ phoneNumber: NOT_ON_CHAT, cleared: 4 });
    await expect(f.engine.reachability.clear(f.account.id, NOT_ON_CHAT, 'pigeon')).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(f.engine.reachability.show(f.account.id, '12')).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it("skips a messaging API message's fallbacks it covers, never its primary (paid at acceptance)", async () => {
    f = await engineFixture();
    const send = async () => {
      const res = await f.engine.messages.send(f.account.id, {
        messages: [
          {
            from: 'Shop',
            to: NOT_ON_CHAT,
            text: 'Hi',
            type: 'rcs',
            fallbacks: [
              { from: 'Shop', to: NOT_ON_CHAT, text: 'Hi', type: 'chatapp_service' },
              { from: 'Shop', to: NOT_ON_CHAT, text: 'Hi', type: 'sms' },
            ],
          },
        ],
      });
      const id = res.messages[0]!.messageId;
      for (let i = 0; i < 4; i++) await f.advance(200);
      return f.engine.messages.status(f.account.id, id);
    };
    const first = await send();
    expect(first.extendedStatuses.map((s) => `${s.status}:${s.channel}`)).toEqual([
      'Failed:rcs',
      'Failed:chatapp',
      'Sent:sms',
      'Delivered:sms',
    ]);
    const second = await send();
    expect(second.deliverystatus).toBe('delivered');
    expect(second.extendedStatuses.map((s) => `${s.status}:${s.channel}`)).toEqual([
      'Failed:rcs',
      'Skipped:chatapp',
      'Sent:sms',
      'Delivered:sms',
    ]);
    expect(second.fallbacks?.[0]).toMatchObject({ deliverystatus: 'undeliverable', cost: 0 });
  });

  it('remembers nothing when turned off (ttl 0), nor for a channel without a driver', async () => {
    f = await engineFixture();
    const engine = createEngine({
      storage: f.storage,
      channels: [f.simulator],
      hasher: createNodeHasher({ N: 2 ** 12 }),
      clock: f.clock,
      reachabilityTtlSeconds: 0,
    });
    expect(engine.reachability.enabled).toBe(false);
    const [accepted] = await engine.cascades.send(f.account.id, [cascade(NOT_ON_CHAT)], bots);
    for (let i = 0; i < 6; i++) {
      await engine.drain();
      await f.clock.advance(200);
      await engine.drain();
    }
    expect((await engine.cascades.statusByGuid(f.account.id, accepted!.messageId)).status).toBe('delivered');
    expect((await f.engine.reachability.show(f.account.id, NOT_ON_CHAT)).entries).toEqual([]);

    // No driver for a channel is the engine's own configuration, not the number's: not remembered.
    const smsOnly = createEngine({ storage: f.storage, channels: [], hasher: createNodeHasher({ N: 2 ** 12 }), clock: f.clock });
    await smsOnly.cascades.send(f.account.id, [cascade('4915100000077')], bots);
    for (let i = 0; i < 6; i++) {
      await smsOnly.drain();
      await f.clock.advance(200);
      await smsOnly.drain();
    }
    expect((await f.engine.reachability.show(f.account.id, '4915100000077')).entries).toEqual([]);
  });
});
