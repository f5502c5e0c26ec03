import { defaultRoute } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import type { CascadeStatus } from '../api/api-client.ts';
import { journeyOf } from './journey.ts';

const at = '2026-01-01T09:00:00.000Z';
const step = (i: number, status: string | null) => ({
  step: i,
  id: defaultRoute.steps[i]!.id,
  channel: defaultRoute.steps[i]!.channel,
  status,
  dt: at,
  error: null,
  cost: 0,
});

describe('journey of a watched cascade', () => {
  it('joins the steps of the history by the edges of their outcomes', () => {
    const status = {
      status: 'processing',
      steps: [step(0, 'skipped'), step(1, 'permanenterror'), step(2, 'undeliverable'), step(3, 'processing'), step(4, null)],
      history: [
        { step: 0, channel: 'messenger', status: 'Skipped', dt: at, error: 'no messenger bot key' },
        { step: 1, channel: 'chatapp_bot', status: 'Sent', dt: at, error: null },
        { step: 1, channel: 'chatapp_bot', status: 'Failed', dt: at, error: 'permanent: nope' },
        { step: 2, channel: 'chatapp', status: 'Sent', dt: at, error: null },
        { step: 2, channel: 'chatapp', status: 'Expired', dt: at, error: 'no delivery report before the ttl' },
        { step: 3, channel: 'rcs', status: 'Sent', dt: at, error: null },
      ],
    } as unknown as CascadeStatus;
    const journey = journeyOf(defaultRoute, status);
    expect(journey.taken?.map((i) => defaultRoute.edges[i]?.on)).toEqual(['undeliverable', 'permanenterror', 'expired']);
    expect(journey.active).toBe('rcs');
    expect(journey.stepStatus).toMatchObject({ messenger: 'skipped', sms: null });
  });
});
