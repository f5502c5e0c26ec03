import { describe, expect, it } from 'vitest';
import type { RouteTraffic } from '../ports/route-stats.ts';
import type { Route } from '../types/route.ts';
import { aggregateRouteStats } from './route-stats.ts';

const route: Route = {
  name: 'Bot, chat, SMS',
  start: 'bot',
  steps: [
    { id: 'bot', channel: 'messenger' },
    { id: 'chat', channel: 'chatapp' },
    { id: 'sms', channel: 'sms' },
  ],
  edges: [
    { from: 'bot', to: 'chat', on: 'undeliverable' },
    { from: 'chat', to: 'sms', on: 'expired' },
    { from: 'chat', to: 'sms', on: 'not_read', afterSeconds: 60 },
  ],
};

const cascade = (history: RouteTraffic['history'], status: RouteTraffic['status'] = 'delivered'): RouteTraffic => ({
  messageId: 1,
  status,
  createdAt: 0,
  cost: 100_000,
  stepCosts: [10_000, 30_000, 50_000],
  history,
});

describe('aggregateRouteStats', () => {
  it('tells a not_read fall-through from an expiry, counts skips, and takes the median time in a step', () => {
    const stats = aggregateRouteStats(
      route,
      'rt@1',
      [
        // Skipped bot (no key), chat delivered but never read, SMS delivered.
        cascade([
          { step: 0, status: 'Skipped', at: 0, error: 'no messenger bot key' },
          { step: 1, status: 'Sent', at: 0, error: null },
          { step: 1, status: 'Delivered', at: 1000, error: null },
          { step: 1, status: 'Expired', at: 61_000, error: 'not read within 60 s' },
          { step: 2, status: 'Sent', at: 61_000, error: null },
          { step: 2, status: 'Delivered', at: 62_000, error: null },
        ]),
        // Bot undeliverable, chat never reported: expired.
        cascade(
          [
            { step: 0, status: 'Sent', at: 0, error: null },
            { step: 0, status: 'Failed', at: 500, error: 'undeliverable: x' },
            { step: 1, status: 'Sent', at: 500, error: null },
            { step: 1, status: 'Expired', at: 3_000, error: 'no delivery report before the ttl' },
            { step: 2, status: 'Sent', at: 3_000, error: null },
          ],
          'processing',
        ),
      ],
      { since: 0, until: 100_000 },
    );
    expect(stats.byStatus).toEqual({ delivered: 1, processing: 1 });
    // A skip moves on like an undeliverable step.
    expect(stats.edges.map((e) => e.taken)).toEqual([2, 1, 1]);
    expect(stats.steps[0]).toMatchObject({ reached: 2, skipped: 1, failed: 1, cost: 0.01 });
    expect(stats.steps[1]).toMatchObject({ reached: 2, delivered: 1, expired: 2, medianSeconds: (61 + 2.5) / 2, cost: 0.06 });
    expect(stats.steps[2]).toMatchObject({ reached: 2, delivered: 1, cost: 0.1 });
    expect(stats.cost).toBe(0.2);
  });

  it('gives the median seconds to the millisecond (a mean of two printed 5.000500000000001)', () => {
    const delivered = (ms: number) =>
      cascade([
        { step: 2, status: 'Sent', at: 10_000, error: null },
        { step: 2, status: 'Delivered', at: 10_000 + ms, error: null },
      ]);
    const even = aggregateRouteStats(route, 'rt@1', [delivered(5000), delivered(5001)], { since: 0, until: 100_000 });
    // 5000.5 ms, to the millisecond.
    expect(even.steps[2]?.medianSeconds).toBe(5.001);
    const odd = aggregateRouteStats(route, 'rt@1', [delivered(5000), delivered(5001), delivered(7003)], { since: 0, until: 100_000 });
    expect(odd.steps[2]?.medianSeconds).toBe(5.001);
  });
});
