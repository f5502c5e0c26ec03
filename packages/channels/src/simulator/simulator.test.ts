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
    ['99900000006', 'messenger', 'not_on_channel'],
    ['99900000006', 'chatapp', 'not_on_channel'],
    ['99900000006', 'sms', 'delivered'],
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

  it('holds the latest attempts in `sent`, at most keepSent: past that, the last tenth of them', async () => {
    const clock = createFakeClock();
    const sim = createSimulator({ latencyMs: 0, keepSent: 20 });
    const ctx = { clock, report: async () => undefined };
    const base = { from: 'Shop', text: 'hi', type: 'sms', ttl: 60, accountId: 1, try: 0, idempotencyKey: 'k', partsCount: 1 };
    const send = (messageId: number) => sim.send({ ...base, messageId, step: 0, channel: 'sms', to: '4915112345602' }, ctx);
    for (let id = 1; id <= 20; id++) await send(id);
    expect(sim.sent.map((a) => a.messageId)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await send(21);
    expect(sim.sent.map((a) => a.messageId)).toEqual([20, 21]);
    for (let id = 22; id <= 40; id++) await send(id);
    expect(sim.sent.map((a) => a.messageId)).toEqual([39, 40]);
    expect(createSimulator().sent).toEqual([]);
  });

  it('refuses a not-on-channel number (06) at once on chat channels, and reports nothing', async () => {
    const clock = createFakeClock();
    const reports: Receipt[] = [];
    const sim = createSimulator({ latencyMs: 200 });
    const ctx = { clock, report: async (r: Receipt) => void reports.push(r) };
    const base = { from: 'Shop', text: 'hi', type: 'sms', ttl: 60, accountId: 1, try: 0, idempotencyKey: 'k', partsCount: 1 };
    await expect(sim.send({ ...base, messageId: 1, step: 0, channel: 'messenger', to: '99900000006' }, ctx)).resolves.toEqual({
      outcome: 'failed',
      failure: 'not_on_channel',
      error: 'the recipient is not on this channel (simulator)',
    });
    await clock.advance(1000);
    expect(reports).toEqual([]);
  });

  it('recovers the reports of attempts accepted before a restart, at the times they were due', async () => {
    const clock = createFakeClock();
    const reports: Receipt[] = [];
    const sim = createSimulator({ latencyMs: 200 });
    const ctx = { clock, report: async (r: Receipt) => void reports.push(r) };
    const base = { from: 'Shop', text: 'hi', type: 'sms', ttl: 60, accountId: 1, try: 0, idempotencyKey: 'k', partsCount: 1 };
    const now = clock.now();
    await sim.recover!(
      [
        // Accepted long ago: its report is overdue and comes at once.
        {
          ...base,
          messageId: 1,
          step: 0,
          channel: 'sms',
          to: '99900000002',
          providerMessageId: null,
          acceptedAt: now - 5_000,
          delivered: false,
        },
        // Delivered before the restart: only its read is still to come, 401 ms after acceptance.
        {
          ...base,
          messageId: 2,
          step: 1,
          channel: 'rcs',
          to: '99900000005',
          providerMessageId: null,
          acceptedAt: now - 300,
          delivered: true,
        },
        { ...base, messageId: 3, step: 0, channel: 'sms', to: '99900000004', providerMessageId: null, acceptedAt: now, delivered: false },
      ],
      ctx,
    );
    await clock.advance(0);
    expect(reports).toEqual([
      { messageId: 1, step: 0, outcome: 'failed', failure: 'undeliverable', error: 'recipient not reachable on this channel (simulator)' },
    ]);
    await clock.advance(100);
    expect(reports).toHaveLength(1);
    await clock.advance(1);
    expect(reports[1]).toEqual({ messageId: 2, step: 1, outcome: 'read' });
    await clock.advance(10_000);
    expect(reports).toHaveLength(2);
  });
});

runChannelDriverContract({
  name: 'simulator',
  create: () => createSimulator({ latencyMs: 200 }),
  deliverableRecipient: '99900000000',
});
