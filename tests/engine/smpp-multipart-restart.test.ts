import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, systemClock } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createSmppDriver } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { startTestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import type { TestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import { testStorage } from '../support/engine-fixture.ts';
import { until } from '../support/server-fixture.ts';

let smsc: TestSmsc | undefined;
let storage: Storage | undefined;
afterEach(async () => {
  await smsc?.close();
  await storage?.close();
});

describe('SMPP multipart receipts across a restart', () => {
  it('counts every part receipted after the restart: a later part undelivered makes the message undeliverable', async () => {
    smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret', receiptDelayMs: 1_500 });
    storage = await testStorage();
    const engineOn = () =>
      createEngine({
        storage: storage!,
        channels: [
          createSmppDriver({ host: '127.0.0.1', port: smsc!.port, systemId: 'spillway', password: 'secret', reconnect: { initialMs: 50 } }),
        ],
        hasher: createNodeHasher({ N: 2 ** 12 }),
        clock: systemClock,
        onError: () => {},
      });
    const first = engineOn();
    const account = await first.accounts.create({ login: 'shop', password: 'correct horse', balance: 10 });
    await first.accounts.approveAlphaName(account.id, 'Shop');
    first.start();
    const { messages } = await first.messages.send(account.id, {
      messages: [{ from: 'Shop', to: '4915100000112', type: 'sms', text: 'z'.repeat(300) }],
    });
    const id = messages[0]!.messageId;
    const sent = await until(
      () => first.messages.status(account.id, id),
      (s) => s.extendedStatuses.some((e) => e.status === 'Sent'),
    );
    expect(sent.partsCount).toBe(2);
    const parts = smsc.submitted.filter((s) => s.to === '4915100000112').map((p) => p.messageId);
    expect(parts).toHaveLength(2);
    // The process stops before the SMSC has any receipt.
    await first.stop(1_000);

    const second = engineOn();
    second.start();
    const done = await until(
      () => second.messages.status(account.id, id),
      (s) => s.deliverystatus !== 'processing',
      400,
    );
    // Part 1 says DELIVRD, part 2 UNDELIV (test number ..12): the first part alone must not decide.
    expect(done.deliverystatus).toBe('undeliverable');
    expect(done.extendedStatuses.map((e) => e.status)).toEqual(['Sent', 'Failed']);
    expect(done.extendedStatuses[1]?.error).toMatch(/^undeliverable: UNDELIV/);
    const charges = (await second.accounts.walletHistory(account.id, { kinds: ['charge'] })).items;
    expect(charges.filter((c) => c.messageId === id)).toHaveLength(1);
    await second.stop(1_000);
  }, 30_000);
});
