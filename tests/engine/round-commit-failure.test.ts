import { afterEach, describe, expect, it } from 'vitest';
import type { Commit } from '@spillway/core';
import { engineFixture } from '../support/engine-fixture.ts';

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

describe('a worker round whose commit fails', () => {
  it('applies the send results and receipts again at the next round: no send repeated, nothing waits for the lease', async () => {
    f = await engineFixture({ latencyMs: 200 });
    const commit = f.storage.commit.bind(f.storage);
    let failures = 0;
    // The database refuses the round that records the acceptance once (as when it stays locked).
    f.storage.commit = async (c: Commit) => {
      if (failures === 0 && c.updates.some((u) => u.history.some((h) => h.status === 'Sent'))) {
        failures++;
        throw new Error('database is locked');
      }
      return commit(c);
    };
    const res = await f.engine.messages.send(f.account.id, {
      messages: [{ from: 'Shop', to: '491510000001', text: 'Hello', type: 'sms' }],
    });
    const id = res.messages[0]!.messageId;
    await f.advance(200);
    expect(failures).toBe(1);
    const status = await f.engine.messages.status(f.account.id, id);
    expect(status.deliverystatus).toBe('delivered');
    expect(status.extendedStatuses.map((s) => s.status)).toEqual(['Sent', 'Delivered']);
    expect(f.simulator.sent.filter((a) => a.messageId === id)).toHaveLength(1);
  });
});
