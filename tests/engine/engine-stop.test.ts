import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '@spillway/core';
import type { ChannelDriver, Storage } from '@spillway/core';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

describe('engine.stop()', () => {
  // Regression: a send answered during stop() stayed "in flight" until a round applied its
  // result, and stop() ran no round, so it spun until the grace period ran out.
  it('returns once the sends in flight are answered and applied, not at the end of the grace period', async () => {
    storage = await testStorage();
    let handedOver!: () => void;
    const handed = new Promise<void>((resolve) => (handedOver = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const driver: ChannelDriver = {
      name: 'held',
      channels: ['sms'],
      send: async () => {
        handedOver();
        await answered;
        return { outcome: 'accepted' };
      },
    };
    const engine = createEngine({ storage, channels: [driver], hasher: createNodeHasher({ N: 2 ** 12 }) });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 10 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const sent = await engine.messages.send(account.id, { messages: [{ from: 'Shop', to: '79991234567', type: 'sms', text: 'hi' }] });
    const id = sent.messages[0]!.messageId;
    engine.start();
    await handed;

    // An hour of grace: the test's timeout would end a stop() that waits for it.
    const stopped = engine.stop(3_600_000);
    answer();
    await stopped;
    expect((await storage.history(id)).map((h) => h.status)).toEqual(['Sent']);
  });
});
