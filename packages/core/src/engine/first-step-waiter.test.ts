import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import type { HistoryEntry, StoredMessage } from '../types/message.ts';
import { createFirstStepWaiter } from './first-step-waiter.ts';

const settledFlag = (p: Promise<void>) => {
  const state = { done: false };
  void p.then(() => (state.done = true));
  return state;
};
const tick = () => new Promise((r) => setTimeout(r, 0));
/** Moves the fake clock by `ms` in polling periods, letting the waiter's reads run in between. */
async function pass(clock: ReturnType<typeof createFakeClock>, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 20) {
    await clock.advance(20);
    await tick();
  }
}

/** A storage of two messages whose status and history the test moves. */
function fakeStorage() {
  const rows = new Map<number, { message: StoredMessage; history: HistoryEntry[] }>();
  for (const id of [1, 2]) rows.set(id, { message: { id, status: 'processing' } as StoredMessage, history: [] });
  return {
    rows,
    getMessageWithHistory: async (id: number) => rows.get(id) ?? null,
  };
}

describe('first-step waiter', () => {
  it('resolves once every message had a step handed to a channel or ended, as the storage shows', async () => {
    const clock = createFakeClock();
    const storage = fakeStorage();
    const state = settledFlag(createFirstStepWaiter(storage, clock).wait([1, 2], 10_000));
    await pass(clock, 60);
    expect(state.done).toBe(false);
    storage.rows.get(1)!.history.push({ messageId: 1, step: 0, channel: 'chatapp', status: 'Sent', at: 0, error: null });
    await pass(clock, 60);
    expect(state.done).toBe(false);
    storage.rows.get(2)!.message.status = 'undeliverable';
    await pass(clock, 60);
    expect(state.done).toBe(true);
  });

  it('gives up after the timeout', async () => {
    const clock = createFakeClock();
    const state = settledFlag(createFirstStepWaiter(fakeStorage(), clock).wait([1], 1_000));
    await clock.advance(990);
    expect(state.done).toBe(false);
    await clock.advance(20);
    await tick();
    expect(state.done).toBe(true);
  });

  it('reads again at once after a poke that came during its read, without waiting for the next poll', async () => {
    const clock = createFakeClock();
    const storage = fakeStorage();
    // The first read answers what the storage held when it began, and returns only when the test says.
    let finishFirstRead: (() => void) | null = null;
    let reads = 0;
    const gated = {
      getMessageWithHistory: async (id: number) => {
        const seen = structuredClone(storage.rows.get(id) ?? null);
        if (reads++ === 0) await new Promise<void>((r) => (finishFirstRead = r));
        return seen;
      },
    };
    const waiter = createFirstStepWaiter(gated, clock);
    const state = settledFlag(waiter.wait([1], 10_000));
    await tick();
    // A commit lands while that read is in flight, and is announced then.
    storage.rows.get(1)!.message.status = 'delivered';
    waiter.poke();
    finishFirstRead!();
    await tick();
    expect(state.done).toBe(true);
    expect(reads).toBe(2);
  });
});
