import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Commit } from '@spillway/core';
import { createEngineMetrics } from './metrics.ts';

type Update = Commit['updates'][number];

const update = (id: number, status: string, history: Array<[string, string]>): Update =>
  ({
    id,
    version: 0,
    status,
    snapshot: { value: 'x', context: {} },
    work: [],
    attempt: 'keep',
    history: history.map(([channel, entry]) => ({ step: 0, channel, status: entry, at: 1, error: null })),
  }) as unknown as Update;

describe('engine metrics', () => {
  it('counts every history entry by channel and status, and every message that reached a final status', async () => {
    const registry = new Registry();
    const { onCommit } = createEngineMetrics(registry);
    const commit = (updates: Update[]): Commit => ({ at: 1, owner: 'w', updates, providerIds: [], receipts: [] });
    onCommit(
      commit([
        update(1, 'processing', [['sms', 'Sent']]),
        update(2, 'delivered', [
          ['sms', 'Sent'],
          ['sms', 'Delivered'],
        ]),
        update(3, 'undeliverable', [['viber', 'Failed']]),
      ]),
    );
    onCommit(commit([update(1, 'delivered', [['sms', 'Delivered']])]));
    const text = await registry.metrics();
    expect(text).toContain('spillway_message_events_total{channel="sms",status="Sent"} 2');
    expect(text).toContain('spillway_message_events_total{channel="sms",status="Delivered"} 2');
    expect(text).toContain('spillway_message_events_total{channel="viber",status="Failed"} 1');
    expect(text).toContain('spillway_messages_finished_total{status="delivered"} 2');
    expect(text).toContain('spillway_messages_finished_total{status="undeliverable"} 1');
    expect(text).not.toContain('status="processing"');
  });
});
