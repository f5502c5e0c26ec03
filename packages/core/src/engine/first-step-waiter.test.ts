import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import type { Commit } from '../ports/message-storage.ts';
import { createFirstStepWaiter } from './first-step-waiter.ts';

const commit = (parts: Partial<Commit>): Commit => ({
  at: 0,
  updates: [],
  history: [],
  doneEffects: [],
  newEffects: [],
  cancelTimers: [],
  ...parts,
});
const settledFlag = (p: Promise<void>) => {
  const state = { done: false };
  void p.then(() => (state.done = true));
  return state;
};
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('first-step waiter', () => {
  it('resolves once every message had a step handed over or ended, not on a skip', async () => {
    const waiter = createFirstStepWaiter(createFakeClock());
    const state = settledFlag(waiter.wait([1, 2], 10_000));
    waiter.observe(
      commit({ history: [{ messageId: 1, step: 0, channel: 'messenger', status: 'Skipped', at: 0, error: 'no bot credentials' }] }),
    );
    waiter.observe(commit({ history: [{ messageId: 1, step: 1, channel: 'chatapp', status: 'Sent', at: 0, error: null }] }));
    await tick();
    expect(state.done).toBe(false);
    waiter.observe(
      commit({ updates: [{ id: 2, version: 0, status: 'undeliverable', snapshot: { value: 'undeliverable', context: {} } }] }),
    );
    await tick();
    expect(state.done).toBe(true);
  });

  it('gives up after the timeout', async () => {
    const clock = createFakeClock();
    const state = settledFlag(createFirstStepWaiter(clock).wait([1], 1_000));
    await clock.advance(999);
    expect(state.done).toBe(false);
    await clock.advance(1);
    await tick();
    expect(state.done).toBe(true);
  });
});
