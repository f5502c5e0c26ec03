import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import type { Commit, Engine, Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

// Messages an engine accepts due at once are stored leased to a worker (its own started one, or
// the one named by `handOverTo`) and taken by id: no claim's write. Should the hand-over never
// reach that worker, the lease runs out and any worker claims them.

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A storage that counts the messages its claims and its hand-overs answered, and calls
 * `afterCommit` after each commit (before the committer goes on).
 */
async function countingStorage(afterCommit?: (commit: Commit) => Promise<void>) {
  const inner = await testStorage();
  cleanups.push(() => inner.close());
  const counts = { claimed: 0, taken: 0 };
  const storage: Storage = {
    ...inner,
    async commit(commit) {
      const result = await inner.commit(commit);
      await afterCommit?.(commit);
      return result;
    },
    async claimDue(...args) {
      const claimed = await inner.claimDue(...args);
      counts.claimed += claimed.length;
      return claimed;
    },
    async takeHandedOver(...args) {
      const taken = await inner.takeHandedOver(...args);
      counts.taken += taken.length;
      return taken;
    },
  };
  return { storage, counts };
}

const hasher = createNodeHasher({ N: 2 ** 12 });
/** How long a hand-over's lease holds (the worker's `LEASE_MS`). */
const LEASE_MS = 60_000;

async function accountOf(engine: Engine) {
  const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
  await engine.accounts.approveAlphaName(account.id, 'Shop');
  return account;
}

/** `n` messages the simulator delivers (numbers ending in 00). */
const request = (n: number, from = 0) => ({
  messages: Array.from({ length: n }, (_, i) => ({
    from: 'Shop',
    to: `9990000${String(from + i).padStart(4, '0')}00`,
    text: 'Hello',
    type: 'sms' as const,
  })),
});

async function untilDelivered(engine: Engine, accountId: number, ids: number[]): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const statuses = await Promise.all(ids.map(async (id) => (await engine.messages.status(accountId, id)).deliverystatus));
    if (statuses.every((s) => s === 'delivered')) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('not every message was delivered in 4 s');
}

/**
 * On a fake clock: an API engine (no worker) that hands over to the worker `workerId`, and the
 * engine that runs that worker (driven with `drain()`), on one counting storage.
 */
async function apiAndWorkers(workerId: string, onWork?: (ids: readonly number[]) => void) {
  const clock = createFakeClock(Date.UTC(2026, 10, 22, 12));
  const { storage, counts } = await countingStorage();
  const simulator = createSimulator({ latencyMs: 0 });
  const api = createEngine({ storage, channels: [], hasher, clock, worker: false, handOverTo: workerId, ...(onWork ? { onWork } : {}) });
  const workers = createEngine({ storage, channels: [simulator], hasher, clock, workerId });
  return { clock, counts, simulator, api, workers, account: await accountOf(api) };
}

describe('hand-over of accepted messages to a worker', () => {
  it.each([
    ['no handOverTo', {}],
    // A worker elsewhere that does not run (the server's thread not started yet): its own worker takes them.
    ['a handOverTo that names no worker now', { handOverTo: () => undefined }],
  ])('an engine whose worker runs hands it what it accepts: sent without a claim or a read (%s)', async (_, options) => {
    const { storage, counts } = await countingStorage();
    const simulator = createSimulator({ latencyMs: 0 });
    const engine = createEngine({ storage, channels: [simulator], hasher, ...options });
    const account = await accountOf(engine);
    engine.start();
    cleanups.push(() => engine.stop());
    const res = await engine.messages.send(account.id, request(40));
    await untilDelivered(
      engine,
      account.id,
      res.messages.map((m) => m.messageId),
    );
    // Taken as the ingest stored them: neither claimed nor read.
    expect(counts).toEqual({ claimed: 0, taken: 0 });
    expect(simulator.sent).toHaveLength(40);
  });

  it('messages accepted before the worker started are claimed as before', async () => {
    const { storage, counts } = await countingStorage();
    const simulator = createSimulator({ latencyMs: 0 });
    const engine = createEngine({ storage, channels: [simulator], hasher });
    const account = await accountOf(engine);
    const res = await engine.messages.send(account.id, request(40));
    engine.start();
    cleanups.push(() => engine.stop());
    await untilDelivered(
      engine,
      account.id,
      res.messages.map((m) => m.messageId),
    );
    expect(counts).toEqual({ claimed: 40, taken: 0 });
  });

  it("hands over to another engine's worker by its id, which takes the messages it is told of", async () => {
    const handed: number[] = [];
    const { counts, simulator, api, workers, account } = await apiAndWorkers('w-thread', (ids) => handed.push(...ids));
    const res = await api.messages.send(account.id, request(3));
    const ids = res.messages.map((m) => m.messageId);
    expect(handed).toEqual(ids);
    // Leased to the worker: a round that was not told of them claims nothing.
    await workers.drain();
    expect(counts).toEqual({ claimed: 0, taken: 0 });
    workers.handOver(handed);
    await workers.drain();
    expect(counts).toEqual({ claimed: 0, taken: 3 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
  });

  it('a hand-over that never reaches its worker is claimed once its lease runs out, and sent once', async () => {
    const { clock, counts, simulator, api, workers, account } = await apiAndWorkers('w-lost');
    const res = await api.messages.send(account.id, request(2));
    const ids = res.messages.map((m) => m.messageId);
    await workers.drain();
    expect(simulator.sent).toEqual([]);
    await clock.advance(LEASE_MS);
    await workers.drain();
    expect(counts).toEqual({ claimed: 2, taken: 0 });
    // The hand-over arrives late: the worker already committed them, and takes nothing again.
    workers.handOver(ids);
    await workers.drain();
    expect(counts).toEqual({ claimed: 2, taken: 0 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
  });
});

describe("an engine's own worker and the copies it is handed", () => {
  /**
   * Two engines on one storage and a fake clock, neither started (their rounds run only in
   * `drain()`): `a` hands what it accepts over to its own worker, with the stored copies; `b`
   * only works.
   */
  async function ownAndOther() {
    const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
    const { storage, counts } = await countingStorage();
    const simA = createSimulator({ latencyMs: 0 });
    const simB = createSimulator({ latencyMs: 0 });
    const a = createEngine({ storage, channels: [simA], hasher, clock, workerId: 'w-a', handOverTo: 'w-a' });
    const b = createEngine({ storage, channels: [simB], hasher, clock, workerId: 'w-b' });
    return { clock, counts, simA, simB, a, b, account: await accountOf(a) };
  }

  it('sends its copies while their lease holds, without a claim or a read', async () => {
    const { clock, counts, simA, simB, a, b, account } = await ownAndOther();
    const res = await a.messages.send(account.id, request(2));
    await clock.advance(LEASE_MS - 1);
    await b.drain();
    await a.drain();
    expect(counts).toEqual({ claimed: 0, taken: 0 });
    expect(simA.sent.map((s) => s.messageId)).toEqual(res.messages.map((m) => m.messageId));
    expect(simB.sent).toEqual([]);
  });

  it('does not send a copy whose lease ran out (another worker claimed and sent it): it asks the storage, which gives it nothing', async () => {
    const { clock, counts, simA, simB, a, b, account } = await ownAndOther();
    const res = await a.messages.send(account.id, request(2));
    const ids = res.messages.map((m) => m.messageId);
    await clock.advance(LEASE_MS);
    await b.drain();
    expect(simB.sent.map((s) => s.messageId)).toEqual(ids);
    await a.drain();
    expect(simA.sent).toEqual([]);
    expect(counts).toEqual({ claimed: 2, taken: 0 });
    // The simulator's receipts come in on the clock: the other worker applies them, once.
    await clock.advance(1_000);
    await b.drain();
    await a.drain();
    expect(simA.sent).toEqual([]);
    const statuses = await Promise.all(ids.map(async (id) => (await a.messages.status(account.id, id)).deliverystatus));
    expect(statuses).toEqual(['delivered', 'delivered']);
  });
});

describe('reading hand-overs ahead while another writer holds the lock (writerBusy)', () => {
  /**
   * An API engine handing `n` messages over to a worker that takes two a round, on a fake clock,
   * `handedOverAfterMs` after their acceptance; `busy` says whether another writer holds the lock.
   * Records, at the worker's first commit, how many handed-over messages it had read, and every
   * read's ids.
   */
  async function readingAhead(
    n: number,
    busy: () => boolean,
    options: { handedOverAfterMs?: number; failReadsAhead?: boolean; onError?: (error: unknown) => void } = {},
  ) {
    const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
    const { storage: counting, counts } = await countingStorage();
    const reads: number[][] = [];
    let readAtFirstCommit: number | undefined;
    const storage: Storage = {
      ...counting,
      async takeHandedOver(...args) {
        reads.push([...args[0]]);
        // A read ahead asks for a lease that holds past now; a round's own read, for one that holds now.
        if (options.failReadsAhead && args[2] > clock.now()) throw new Error('the database is gone for a moment');
        return counting.takeHandedOver(...args);
      },
      async commit(...args) {
        readAtFirstCommit ??= counts.taken;
        return counting.commit(...args);
      },
    };
    const simulator = createSimulator({ latencyMs: 0 });
    const api = createEngine({ storage, channels: [], hasher, clock, worker: false, handOverTo: 'w-ahead' });
    const workers = createEngine({
      storage,
      channels: [simulator],
      hasher,
      clock,
      workerId: 'w-ahead',
      batchSize: 2,
      writerBusy: busy,
      ...(options.onError ? { onError: options.onError } : {}),
    });
    const account = await accountOf(api);
    const ids = (await api.messages.send(account.id, request(n))).messages.map((m) => m.messageId);
    await clock.advance(options.handedOverAfterMs ?? 0);
    workers.handOver(ids);
    await workers.drain();
    return { ids, counts, reads, readAtFirstCommit: () => readAtFirstCommit, simulator };
  }

  it('a round whose commit would wait reads the next hand-overs meanwhile, and the rounds after take them without a read', async () => {
    const { ids, counts, reads, readAtFirstCommit, simulator } = await readingAhead(6, () => true);
    // The first round with something to commit (the second) had read all six: the first round's
    // two, its own two, and the next round's two ahead.
    expect(readAtFirstCommit()).toBe(6);
    // Each message read once, sent once.
    expect(reads.flat().sort((a, b) => a - b)).toEqual(ids);
    expect(counts).toEqual({ claimed: 0, taken: 6 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
  });

  it('reads ahead only what the next round takes, however far the hand-overs run ahead', async () => {
    const { ids, counts, reads, readAtFirstCommit, simulator } = await readingAhead(12, () => true);
    // Two rounds' two and the next round's two: the other six wait as ids, not as messages.
    expect(readAtFirstCommit()).toBe(6);
    expect(Math.max(...reads.map((r) => r.length))).toBe(2);
    expect(reads.flat().sort((a, b) => a - b)).toEqual(ids);
    expect(counts).toEqual({ claimed: 0, taken: 12 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
  });

  it('reads nothing ahead whose lease ends within half a lease: the rounds read those when they take them', async () => {
    const { ids, counts, readAtFirstCommit, simulator } = await readingAhead(6, () => true, { handedOverAfterMs: LEASE_MS / 2 + 1 });
    expect(readAtFirstCommit()).toBeLessThan(6);
    expect(counts).toEqual({ claimed: 0, taken: 6 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
  });

  it('a read ahead that fails is reported, and leaves the messages to be read when taken', async () => {
    const errors: unknown[] = [];
    const { ids, counts, readAtFirstCommit, simulator } = await readingAhead(6, () => true, {
      failReadsAhead: true,
      onError: (error) => errors.push(error),
    });
    expect(errors.length).toBeGreaterThan(0);
    expect(String(errors[0])).toContain('the database is gone for a moment');
    expect(readAtFirstCommit()).toBeLessThan(6);
    expect(counts).toEqual({ claimed: 0, taken: 6 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
  });

  it('reads nothing ahead while no other writer holds the lock', async () => {
    const { ids, counts, readAtFirstCommit, simulator } = await readingAhead(6, () => false);
    expect(readAtFirstCommit()).toBeLessThan(6);
    expect(counts).toEqual({ claimed: 0, taken: 6 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
  });
});

describe('a step that leaves a send due now: a scheduled message come due', () => {
  /** `n` messages the simulator delivers, scheduled a minute ahead on `clock`. */
  const scheduled = (clock: { now(): number }, n: number) => ({
    messages: request(n).messages.map((m) => ({ ...m, scheduledAt: new Date(clock.now() + 60_000).toISOString() })),
  });
  const statusesOf = (engine: Engine, accountId: number, ids: number[]) =>
    Promise.all(ids.map(async (id) => (await engine.messages.status(accountId, id)).deliverystatus));

  it('is sent by the worker that made the step, without being claimed again or read', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
    const { storage, counts } = await countingStorage();
    const simulator = createSimulator({ latencyMs: 0 });
    const engine = createEngine({ storage, channels: [simulator], hasher, clock, workerId: 'w-a' });
    const account = await accountOf(engine);
    const res = await engine.messages.send(account.id, scheduled(clock, 3));
    const ids = res.messages.map((m) => m.messageId);
    await engine.drain();
    expect(simulator.sent).toEqual([]);
    await clock.advance(60_000);
    await engine.drain();
    // Claimed once, for the step that found them due; the send came from the copy its commit kept.
    expect(counts).toEqual({ claimed: 3, taken: 0 });
    expect(simulator.sent.map((s) => s.messageId)).toEqual(ids);
    await clock.advance(1_000);
    await engine.drain();
    expect(await statusesOf(engine, account.id, ids)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('is not claimed by another worker while the lease holds, and once it ran out, is sent once, by the one that claims it', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
    const simA = createSimulator({ latencyMs: 0 });
    const simB = createSimulator({ latencyMs: 0 });
    const other: { b?: Engine } = {};
    const seenByB: number[][] = [];
    let expire = false;
    // After the step's commit, before `a` goes on: `b` works meanwhile (after the lease ran out, when `expire`).
    const { storage } = await countingStorage(async (commit) => {
      if (commit.owner !== 'w-a' || !commit.updates.some((u) => u.lease !== undefined)) return;
      if (expire) await clock.advance(LEASE_MS);
      const before = simB.sent.length;
      await other.b!.drain();
      seenByB.push(simB.sent.slice(before).map((s) => s.messageId));
    });
    const a = createEngine({ storage, channels: [simA], hasher, clock, workerId: 'w-a' });
    const b = (other.b = createEngine({ storage, channels: [simB], hasher, clock, workerId: 'w-b' }));
    const account = await accountOf(a);

    const first = (await a.messages.send(account.id, scheduled(clock, 2))).messages.map((m) => m.messageId);
    await clock.advance(60_000);
    await a.drain();
    expect(seenByB).toEqual([[]]);
    expect(simA.sent.map((s) => s.messageId)).toEqual(first);

    expire = true;
    const second = (await a.messages.send(account.id, scheduled(clock, 2))).messages.map((m) => m.messageId);
    await clock.advance(60_000);
    await a.drain();
    // `b` claimed and sent them once the lease ran out; `a` dropped its copies.
    expect(seenByB).toEqual([[], second]);
    expect(simA.sent.map((s) => s.messageId)).toEqual(first);
    await clock.advance(1_000);
    await b.drain();
    await a.drain();
    expect(await statusesOf(a, account.id, [...first, ...second])).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });

  it('a fallback kept, then stepped again before its worker takes it, is sent once, from its last state', async () => {
    const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
    let afterKept: (() => Promise<void>) | null = null;
    let x = 0;
    const { storage } = await countingStorage(async (commit) => {
      const then = afterKept;
      if (then && commit.updates.some((u) => u.id === x && u.lease !== undefined)) {
        afterKept = null;
        await then();
      }
    });
    const simulator = createSimulator({ latencyMs: 0 });
    // Two sends at most in flight: the round that keeps the fallback also sends two messages, so
    // that the next round, with both still in flight, takes nothing kept but applies receipts.
    const engine = createEngine({ storage, channels: [simulator], hasher, clock, workerId: 'w-a', maxInFlight: 2, batchSize: 10 });
    const account = await accountOf(engine);
    // The test number 04 never reports: the step waits for a receipt.
    const silent = { from: 'Shop', to: '99900000004', text: 'Hello', type: 'sms' as const };
    x = (await engine.messages.send(account.id, { messages: [{ ...silent, fallbacks: [silent] }] })).messages[0]!.messageId;
    await engine.drain();
    expect(simulator.sent.map((s) => [s.messageId, s.step])).toEqual([[x, 0]]);
    await engine.messages.send(account.id, request(2));
    // Step 0 fails: the fallback, due now, is kept. Its step 0 is then reported failed again
    // (a provider repeating itself) before the worker takes it: the message is stepped again.
    await engine.receive({ messageId: x, step: 0, outcome: 'failed', failure: 'permanent', error: 'rejected' });
    afterKept = () => engine.receive({ messageId: x, step: 0, outcome: 'failed', failure: 'permanent', error: 'rejected again' });
    await engine.drain();
    expect(afterKept).toBeNull();
    expect(simulator.sent.filter((s) => s.messageId === x).map((s) => s.step)).toEqual([0, 1]);
  });
});
