import { describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import { runChannelDriverContract } from '@spillway/core/testing';
import type { ChannelId, Receipt } from '@spillway/core';
import { createSimulator, simulatedOutcome } from './simulator.ts';

describe('simulator test numbers', () => {
  it.each([
    ['99900000000', 'chatapp', 'delivered'],
    ['99900000001', 'chatapp', 'undeliverable'],
    ['99900000001', 'sms', 'delivered'],
    ['99900000002', 'sms', 'undeliverable'],
    ['99900000003', 'rcs', 'permanent'],
    ['99900000004', 'sms', 'silent'],
    ['99900000005', 'messenger', 'read'],
    ['99900000005', 'sms', 'delivered'],
    ['99900000042', 'sms', 'delivered'],
    ['4915112345602', 'sms', 'delivered'],
  ] as const)('%s on %s is %s', (to, channel, outcome) => {
    expect(simulatedOutcome(to, channel as ChannelId)).toBe(outcome);
  });

  it('accepts at once and reports after the latency on the injected clock', async () => {
    const clock = createFakeClock();
    const reports: Receipt[] = [];
    const sim = createSimulator({ latencyMs: 200 });
    const ctx = {
      clock,
      report: async (r: Receipt) => {
        reports.push(r);
      },
    };
    const base = { from: 'Shop', text: 'hi', type: 'sms', ttl: 60, accountId: 1, try: 0, idempotencyKey: 'k', partsCount: 1 };
    await expect(sim.send({ ...base, messageId: 1, step: 0, channel: 'sms', to: '99900000003' }, ctx)).resolves.toMatchObject({
      outcome: 'accepted',
    });
    await sim.send({ ...base, messageId: 2, step: 1, channel: 'chatapp', to: '99900000005' }, ctx);
    await clock.advance(199);
    expect(reports).toEqual([]);
    await clock.advance(1);
    expect(reports).toEqual([
      { messageId: 1, step: 0, outcome: 'failed', failure: 'permanent', error: 'permanent error (simulator)' },
      { messageId: 2, step: 1, outcome: 'delivered' },
    ]);
    await clock.advance(300);
    expect(reports[2]).toEqual({ messageId: 2, step: 1, outcome: 'read' });
  });
});

runChannelDriverContract({
  name: 'simulator',
  create: () => createSimulator({ latencyMs: 200 }),
  deliverableRecipient: '99900000000',
});
