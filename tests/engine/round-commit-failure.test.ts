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

describe('stopping while every commit fails', () => {
  it('tries the round that applies a send result again every 100 ms until the grace period ends, not in a tight loop', async () => {
    f = await engineFixture({ latencyMs: 200 });
    // The driver holds the send until released: it is in flight when the commits start failing.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered: () => void = () => {};
    const withDriver = new Promise<void>((resolve) => (entered = resolve));
    const send = f.simulator.send.bind(f.simulator);
    f.simulator.send = async (attempt, ctx) => {
      entered();
      await held;
      return send(attempt, ctx);
    };
    await f.engine.messages.send(f.account.id, { messages: [{ from: 'Shop', to: '491510000001', text: 'Hello', type: 'sms' }] });
    const draining = f.engine.drain();
    await withDriver;
    let attempts = 0;
    f.storage.commit = async () => {
      attempts++;
      throw new Error('database is locked');
    };
    release();
    // The round that applies the send's result fails: the result goes back in flight.
    await draining;
    expect(attempts).toBe(1);
    let stopped = false;
    const stopping = f.engine.stop(1_000).then(() => (stopped = true));
    for (let ms = 0; ms < 1_500 && !stopped; ms += 50) {
      await f.clock.advance(50);
      // Let the rounds' own yields to the event loop run.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await stopping;
    expect(stopped).toBe(true);
    // About one try per 100 ms of the second's grace (without the pause: hundreds).
    expect(attempts).toBeGreaterThanOrEqual(8);
    expect(attempts).toBeLessThanOrEqual(13);
  });
});
