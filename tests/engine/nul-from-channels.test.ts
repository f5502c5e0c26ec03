import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { ChannelContext, ChannelDriver, Storage } from '@spillway/core';
import type { InboundMessage } from '@spillway/core/storage';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

// What a channel hands the engine (a send's answer, a receipt, an incoming message) is the
// network's: the engine keeps it with U+FFFD in place of U+0000 instead of refusing it, as it
// refuses the character in its own API. On PostgreSQL, which cannot store U+0000, such a text
// failed the round's commit, and a round that cannot commit is retried forever: one bad byte from
// a provider stopped every delivery. Run on both storages (SPILLWAY_TEST_STORAGE=postgres in CI).

const NUL = '\u0000';
let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

describe('the NUL character from a channel', () => {
  it('is kept as U+FFFD in answers, receipts and incoming messages, and the rounds go on', async () => {
    storage = await testStorage();
    const recorded: InboundMessage[] = [];
    const record = storage.recordInbound.bind(storage);
    storage.recordInbound = async (inbound, delivery) => {
      const stored = await record(inbound, delivery);
      recorded.push(inbound);
      return stored;
    };
    const clock = createFakeClock(Date.UTC(2026, 10, 22, 12));
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
    const engine = createEngine({ storage, channels: [driver], hasher: createNodeHasher({ N: 2 ** 12 }), clock });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 10 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
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
    expect(recorded).toHaveLength(1);
    expect((await storage.getInbound(account.id, recorded[0]!.idUuid))?.inbound).toMatchObject({ text: 'stop\uFFFDnow' });

    // The rounds went on: a later message is still sent.
    const later = await send('later', '491512345670');
    await engine.drain();
    expect((await storage.history(later)).map((h) => h.status)).toContain('Sent');
  });
});
