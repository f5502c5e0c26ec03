import { simulatedOutcome } from '@spillway/channels';
import { CHANNELS } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { TEST_NUMBERS, testNumberOutcome } from './sim-world.ts';
import type { StepOutcome } from './sim-world.ts';

// The designer mirrors the reference simulator (its bundle cannot import @spillway/channels):
// held to it here, number by number and channel by channel.
const AS_STEP_OUTCOME: Record<ReturnType<typeof simulatedOutcome>, StepOutcome> = {
  delivered: 'delivered',
  read: 'read',
  undeliverable: 'undeliverable',
  permanent: 'permanent',
  silent: 'no_report',
  not_on_channel: 'not_on_channel',
};
const SUFFIXES = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

describe('the test numbers of the simulation', () => {
  it('give on every channel the outcome the reference simulator gives', () => {
    for (const suffix of SUFFIXES)
      for (const channel of CHANNELS)
        expect([suffix, channel, testNumberOutcome(suffix, channel)]).toEqual([
          suffix,
          channel,
          AS_STEP_OUTCOME[simulatedOutcome(`999000000${suffix}`, channel)],
        ]);
  });

  it('are all offered: every number the simulator treats otherwise than delivering, and 00', () => {
    const special = SUFFIXES.filter((s) => s === '00' || CHANNELS.some((c) => simulatedOutcome(`999000000${s}`, c) !== 'delivered'));
    expect(TEST_NUMBERS.map(([suffix]) => suffix)).toEqual(special);
  });
});
