import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelContext, ChannelDriver } from '@spillway/core';
import { engineFixture } from '../support/engine-fixture.ts';

// What a channel hands the engine (a send's answer, a receipt, an incoming message) is the
// network's: the engine keeps it with U+FFFD in place of U+0000 instead of refusing it, as it
// refuses the character in its own API. On PostgreSQL, which cannot store U+0000, such a text
// failed the round's commit, and a round that cannot commit is retried forever: one bad byte from
// a provider stopped every delivery. Run on both storages (SPILLWAY_TEST_STORAGE=postgres in CI).

const NUL = '\u0000';
let f: Awaited<ReturnType<typeof engineFixture>> | undefined;
afterEach(() => f?.close());

describe('the NUL character from a channel', () => {
  it('is kept as U+FFFD in answers, receipts and incoming messages, and the rounds go on', async () => {
    let context: ChannelContext | undefined;
    const driver: ChannelDriver = {
      name: 'noisy',
      channels: ['sms'],
      send: async (attempt, ctx) => {
        context = ctx;
        if (attempt.text === 'refuse') return { outcome: 'failed', failure: 'permanent', error: `refused${NUL}by the smsc` };
        return { outcome: 'accepted', providerMessageId: `smsc${NUL}${attempt.messageId}` };
      },
    };
    f = await engineFixture({ channels: [driver], balance: 10 });
    const { engine, storage, account, clock } = f;
    // An incoming message is queued for the alpha-name's callback: the queue reads it back.
    await engine.accounts.setAlphaNameCallback(account.id, 'Shop', 'https://shop.example/inbound');
    const send = (text: string, to: string) =>
      engine.messages.send(account.id, { messages: [{ from: 'Shop', to, type: 'sms', text }] }).then((s) => s.messages[0]!.messageId);

    const refused = await send('refuse', '491512345678');
    const accepted = await send('hello', '491512345679');
    await engine.drain();
    expect((await storage.history(refused)).find((h) => h.status === 'Failed')).toMatchObject({
      error: 'permanent: refused\uFFFDby the smsc',
    });

    // The receipt names the provider's id as the provider wrote it: it finds the attempt, whose id
    // was kept the same way.
    const reported = context!.report({
      providerMessageId: `smsc${NUL}${accepted}`,
      outcome: 'failed',
      failure: 'permanent',
      error: `expired${NUL}`,
    });
    await engine.drain();
    await reported;
    expect((await storage.history(accepted)).find((h) => h.status === 'Failed')).toMatchObject({
      error: expect.stringContaining('expired\uFFFD'),
    });

    await context!.inbound!({ channel: 'sms', phoneNumber: '491512345678', alphaName: 'Shop', text: `stop${NUL}now` });
    const queued = await storage.claimDueDeliveries(clock.now(), 10, 60_000);
    expect(queued.map((d) => d.inbound)).toEqual([expect.objectContaining({ text: 'stop\uFFFDnow' })]);

    // The rounds went on: a later message is still sent.
    const later = await send('later', '491512345670');
    await engine.drain();
    expect((await storage.history(later)).map((h) => h.status)).toContain('Sent');
  });
});
