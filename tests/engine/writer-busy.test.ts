import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { ChannelDriver, Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

// While another connection holds the write lock (`writerBusy`: the reference server's HTTP thread
// inside an ingest), a worker round with handed-over messages to send, and room in flight for
// them, only sends them; what needs the lock (results, receipts, claims) waits for a round after.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const hasher = createNodeHasher({ N: 2 ** 12 });

/**
 * An API engine handing over to the worker of a second engine (one message a round, `maxInFlight`
 * at most in flight), on one storage that records each commit's number of updates and how many
 * messages the simulator had been handed by then.
 */
async function setup(options: { busy: () => boolean; maxInFlight?: number }) {
  const inner = await testStorage();
  cleanups.push(() => inner.close());
  const simulator = createSimulator({ latencyMs: 0 });
  const commits: Array<{ updates: number; sentBefore: number }> = [];
  const storage: Storage = {
    ...inner,
    async commit(commit) {
      commits.push({ updates: commit.updates.length, sentBefore: simulator.sent.length });
      return inner.commit(commit);
    },
  };
  const clock = createFakeClock(Date.UTC(2026, 10, 27, 12));
  const api = createEngine({ storage, channels: [], hasher, clock, worker: false, handOverTo: 'w-busy' });
  const workers = createEngine({
    storage,
    channels: [simulator],
    hasher,
    clock,
    workerId: 'w-busy',
    batchSize: 1,
    writerBusy: options.busy,
    ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
  });
  const account = await api.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
  await api.accounts.approveAlphaName(account.id, 'Shop');
  const res = await api.messages.send(account.id, {
    messages: ['99900000000100', '99900000000200', '99900000000300'].map((to) => ({
      from: 'Shop',
      to,
      text: 'Hello',
      type: 'sms' as const,
    })),
  });
  const ids = res.messages.map((m) => m.messageId);
  /** The messages' statuses once the simulator's delivery reports (due at once) are applied. */
  const delivered = async () => {
    await clock.advance(1);
    await workers.drain();
    return Promise.all(ids.map(async (id) => (await api.messages.status(account.id, id)).deliverystatus));
  };
  return { simulator, commits, workers, ids, delivered };
}

/** Busy for the first look only (a round that found the writer busy once). */
function busyOnce(): () => boolean {
  let busy = true;
  return () => {
    const was = busy;
    busy = false;
    return was;
  };
}

/** Each round commits the result of the send before it, with the next message sent first. */
const ROUND_BY_ROUND = [
  { updates: 1, sentBefore: 2 },
  { updates: 1, sentBefore: 3 },
  { updates: 1, sentBefore: 3 },
];

type Case = [name: string, options: { busy: () => boolean; maxInFlight?: number }, commits: typeof ROUND_BY_ROUND];

describe('worker rounds while another connection writes', () => {
  it.each<Case>([
    ['without a busy writer, each round commits the result of the send before it', { busy: () => false }, ROUND_BY_ROUND],
    [
      // Nothing left to send: the rounds commit although the writer is still busy (no
      // starvation), each the results of one batch (one message here), not all that gathered.
      'with a busy writer, the rounds send every handed-over message first, then commit the results a batch a round',
      { busy: () => true },
      [
        { updates: 1, sentBefore: 3 },
        { updates: 1, sentBefore: 3 },
        { updates: 1, sentBefore: 3 },
      ],
    ],
    [
      'with a busy writer, a round commits once the sends in flight would pass maxInFlight',
      { busy: () => true, maxInFlight: 2 },
      ROUND_BY_ROUND,
    ],
    ['a writer busy only at the start of a round is not waited for: the next round commits', { busy: busyOnce() }, ROUND_BY_ROUND],
  ])('%s', async (_, options, expected) => {
    const { simulator, commits, workers, ids, delivered } = await setup(options);
    workers.handOver(ids);
    await workers.drain();
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
    expect(commits).toEqual(expected);
    expect(await delivered()).toEqual(['delivered', 'delivered', 'delivered']);
  });
});

describe("a round's batch of results", () => {
  it('does not count the events of a send still with its driver: the results behind them are applied meanwhile', async () => {
    const storage = await testStorage();
    cleanups.push(() => storage.close());
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Reports the delivery of a number ending in 01 before its send has answered, and answers it
    // only once the gate opens; every other number is accepted and delivered at once.
    const driver: ChannelDriver = {
      name: 'early-reports',
      channels: ['sms'],
      async send(attempt, ctx) {
        const slow = attempt.to.endsWith('01');
        if (slow) void ctx.report({ messageId: attempt.messageId, step: attempt.step, outcome: 'delivered' });
        else setImmediate(() => void ctx.report({ messageId: attempt.messageId, step: attempt.step, outcome: 'delivered' }));
        if (slow) await gate;
        return { outcome: 'accepted' };
      },
    };
    // One message a round: the slow message's early report alone would fill a round's batch.
    const engine = createEngine({ storage, channels: [driver], hasher, batchSize: 1 });
    const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
    await engine.accounts.approveAlphaName(account.id, 'Shop');
    const res = await engine.messages.send(account.id, {
      messages: ['79990000001', '79990000002'].map((to) => ({ from: 'Shop', to, text: 'Hello', type: 'sms' as const })),
    });
    const [slow, quick] = res.messages.map((m) => m.messageId) as [number, number];
    const statusOf = async (id: number) => (await engine.messages.status(account.id, id)).deliverystatus;
    engine.start();
    cleanups.push(() => engine.stop());
    await vi.waitFor(async () => expect(await statusOf(quick)).toBe('delivered'), { timeout: 5_000 });
    expect(await statusOf(slow)).not.toBe('delivered');
    open();
    await vi.waitFor(async () => expect(await statusOf(slow)).toBe('delivered'), { timeout: 5_000 });
  });
});
